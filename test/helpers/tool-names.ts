// REST's refusal message as an MCP tool words it: each problem names the tool's argument, not the
// request part (gateway/mcp/argument-errors.ts): `path.id: …` → `community_id: …`, `body.scope: …`
// → `scope: …`, `query.limit: …` → `limit: …`, `body: …` → `arguments: …`. Written out here, not
// imported, so that a change to the server's wording shows up as a failing comparison.
export function inToolNames(message: string): string {
  return message
    .split('; ')
    .map((problem) => problem.replace(/^path\.id: /, 'community_id: ').replace(/^(?:body|query|path): /, 'arguments: ').replace(/^(?:body|query|path)\./, ''))
    .join('; ');
}
