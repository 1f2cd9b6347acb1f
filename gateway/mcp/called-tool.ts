// The tool a POST /mcp body calls, for the caller's request log (services/kit/request-log.ts): the
// name of its tools/call (the first, in a batch), as the client sent it; empty for any other
// message. Only the name: never the arguments.
export function calledTool(body: unknown): string {
  const messages = Array.isArray(body) ? body : [body];
  for (const m of messages) {
    if (typeof m !== 'object' || m === null) continue;
    const { method, params } = m as { method?: unknown; params?: { name?: unknown } };
    if (method === 'tools/call' && typeof params?.name === 'string') return params.name.slice(0, 64);
  }
  return '';
}
