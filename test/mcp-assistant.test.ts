// The MCP surface sized for an assistant (docs/MCP.md, "Sized for an assistant"), on the demo
// data: tools/list fits in TOOL_LIST_MAX_BYTES with slim input schemas; a search answers a few
// good matches by default, weak ones counted rather than shown unless asked, the full REST body
// on `detail: "full"`; a refused argument is named as the tool names it; a client that sends a
// progress token hears progress while a search or an enrichment run is pending. With the
// official SDK client (Client + StreamableHTTPClientTransport).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoSeed } from '../deploy/admin/demo-data.js';
import { TOOL_LIST_MAX_BYTES } from '../gateway/mcp/tool-list.js';
import { SCOPES } from '../services/kit/scopes.js';
import { bearer, request } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { startMcpSystem, type McpSystem } from './helpers/mcp-system.js';

const key = liveKey();
const demo = demoSeed();
const seed = { ...demo, keys: [...(demo.keys ?? []), { id: 'k_assistant', secret: key, owner: { user: 'u_demo' }, scopes: [...SCOPES], requested_rate: 6000 }] };

/** A request as reported: REST answers 20 matches (about 15 KB), 16 of them weak. */
const QUERY = { query: 'malaria vaccine trials in Kenya', scope: 'all' };
/** What a default search result may weigh (its JSON, as the tool's text). */
const SEARCH_RESULT_MAX_BYTES = 4 * 1024;

describe('the MCP surface sized for an assistant (demo data)', () => {
  let running: McpSystem | undefined;
  let client: Client;

  beforeAll(async () => {
    // With idempotency keys: the longer of the two tool lists.
    running = await startMcpSystem(seed, { idempotency: true });
    client = new Client({ name: 'assistant-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(running.mcp.endpoint), { requestInit: { headers: bearer(key) } }));
  }, 120_000);
  afterAll(async () => {
    await client?.close().catch(() => undefined);
    await running?.stop();
  });

  const call = async (name: string, args: Record<string, unknown>, onprogress?: (p: Progress) => void) =>
    (await client.callTool({ name, arguments: args }, undefined, onprogress ? { onprogress } : undefined)) as CallToolResult;
  const text = (result: CallToolResult) => (result.content[0] as { text: string }).text;
  const errorOf = (result: CallToolResult) => {
    expect(result.isError, text(result)).toBe(true);
    return JSON.parse(text(result)).error as { code: string; message: string };
  };

  it(`tools/list is at most ${TOOL_LIST_MAX_BYTES} bytes, without giant regular expressions or safe-integer bounds`, async () => {
    const listed = await request(running!.mcp.url, 'POST', '/mcp', {
      headers: { ...bearer(key), accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expect(listed.status).toBe(200);
    const bytes = Buffer.byteLength(JSON.stringify(listed.body));
    expect(bytes).toBeLessThanOrEqual(TOOL_LIST_MAX_BYTES);
    const raw = JSON.stringify(listed.body);
    expect(raw).not.toContain(String(Number.MAX_SAFE_INTEGER));
    const tools = listed.body.result.tools as Array<{ name: string; description: string; inputSchema: unknown }>;
    expect(tools).toHaveLength(14);
    // Every pattern left is short; an email is `format: email`, not an expression.
    const patterns = [...raw.matchAll(/"pattern":"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!);
    for (const p of patterns) expect(p.length, p).toBeLessThanOrEqual(40);
    const email = JSON.stringify(tools.find((t) => t.name === 'add_community_members')!.inputSchema);
    expect(email).toContain('"format":"email"');
    // The descriptions teach: defaults, which scope to pick, what is billed.
    const search = tools.find((t) => t.name === 'search_experts')!;
    expect(search.description).toMatch(/default/);
    expect(search.description).toMatch(/`community` with community_id/);
    expect(search.description).toMatch(/billed/);
    expect(tools.find((t) => t.name === 'start_community_enrichment')!.description).toMatch(/estimate_community_enrichment first/);
  });

  it(`a default search answers at most 5 matches, none weak, one line each, in at most ${SEARCH_RESULT_MAX_BYTES} bytes`, async () => {
    const result = await call('search_experts', QUERY);
    expect(result.isError ?? false, text(result)).toBe(false);
    const body = result.structuredContent as { status: string; matches: Array<Record<string, unknown>>; weak_matches_left_out?: number; no_good_match: boolean };
    expect(body.status).toBe('complete');
    expect(body.no_good_match).toBe(false);
    expect(Buffer.byteLength(text(result))).toBeLessThanOrEqual(SEARCH_RESULT_MAX_BYTES);
    expect(body.matches.length).toBeGreaterThan(0);
    expect(body.matches.length).toBeLessThanOrEqual(5);
    for (const m of body.matches) {
      expect(m.weak_match, JSON.stringify(m)).toBeUndefined();
      expect(typeof m.why).toBe('string');
      expect(m.why as string).not.toContain('\n');
      expect((m.why as string).length).toBeLessThanOrEqual(200);
      expect(Object.keys(m)).not.toContain('explanation');
    }
    // What the full answer holds, for comparison: more matches, weak ones among them, more bytes.
    const full = await call('search_experts', { ...QUERY, detail: 'full' });
    const fullMatches = (full.structuredContent as { matches: Array<{ weak_match: boolean }> }).matches;
    expect(fullMatches.some((m) => m.weak_match)).toBe(true);
    expect(body.weak_matches_left_out).toBe(fullMatches.filter((m) => m.weak_match).length);
    expect(Buffer.byteLength(text(full))).toBeGreaterThan(3 * Buffer.byteLength(text(result)));
  });

  it('weak matches are left out by default and returned when asked; limit and detail full give more', async () => {
    const weak = await call('search_experts', { ...QUERY, include_weak: true, limit: 20 });
    const matches = (weak.structuredContent as { matches: Array<{ weak_match?: boolean }> }).matches;
    expect(matches.some((m) => m.weak_match === true)).toBe(true);
    expect(matches.length).toBeGreaterThan(5);

    // detail full is REST's body: every field and the whole explanation.
    const full = await call('search_experts', { ...QUERY, detail: 'full' });
    const rest = await request(running!.sys.restUrl, 'POST', '/v1/search', { headers: bearer(key), body: QUERY });
    expect(rest.status).toBe(200);
    const { search_id: _a, ...restBody } = rest.body;
    const { search_id: toolId, ...toolBody } = full.structuredContent as { search_id: string };
    expect(toolBody).toEqual(restBody);
    // get_search shows a finished search the same two ways.
    const polled = await call('get_search', { search_id: toolId });
    expect((polled.structuredContent as { matches: unknown[] }).matches.length).toBeLessThanOrEqual(5);
    // Over the maximum counts as the maximum, as search_experts's limit.
    const polledMany = await call('get_search', { search_id: toolId, limit: 60, include_weak: true });
    expect((polledMany.structuredContent as { matches: unknown[] }).matches).toHaveLength(20);
    const polledFull = await call('get_search', { search_id: toolId, detail: 'full' });
    expect((polledFull.structuredContent as { matches: unknown[] }).matches).toEqual((full.structuredContent as { matches: unknown[] }).matches);
  });

  it('a refused argument is named as the tool names it, not by REST’s part', async () => {
    expect(errorOf(await call('search_experts', { query: 'x', scope: 'everything' })).message).toMatch(/^scope: /);
    expect(errorOf(await call('search_experts', { query: 'x', scope: 'all', limit: 0 })).message).toMatch(/^limit: /);
    expect(errorOf(await call('search_experts', { query: 'x', scope: 'all', detail: 'more' })).message).toMatch(/^detail: /);
    expect(errorOf(await call('search_experts', { query: 'x', scope: 'community' })).message).toMatch(/^community_id: /);
    expect(errorOf(await call('search_experts', { query: 'x', scope: 'all', color: 'blue' })).message).toMatch(/^arguments: .*color/);
    expect(errorOf(await call('list_community_members', { community_id: 'not a valid id!' })).message).toMatch(/^community_id: /);
    expect(errorOf(await call('list_community_members', { community_id: 'c_climate', limit: 'many' })).message).toMatch(/^limit: /);
    expect(errorOf(await call('get_search', { search_id: 'srch_x', limit: 0 })).message).toMatch(/^limit: /);
    const add = errorOf(await call('add_community_members', { community_id: 'c_climate', members: [] })).message;
    expect(add).toMatch(/^members: /);
    for (const message of [add]) expect(message).not.toMatch(/\b(body|path|query)\./);
  });

  it('progress notifications while a search or an enrichment run is pending, for a client that sent a progress token', async () => {
    const heard: Progress[] = [];
    const searched = await call('search_experts', { query: 'coral reef restoration', scope: 'all' }, (p) => heard.push(p));
    expect(searched.isError ?? false, text(searched)).toBe(false);
    expect(heard.length).toBeGreaterThan(0);
    expect(heard[0]!.message).toContain('search_experts: started');
    for (let i = 1; i < heard.length; i++) expect(heard[i]!.progress).toBeGreaterThan(heard[i - 1]!.progress);

    const runHeard: Progress[] = [];
    const started = await call('enrich_my_profile', {}, (p) => runHeard.push(p));
    expect(started.isError ?? false, text(started)).toBe(false);
    const runId = (started.structuredContent as { run_id: string }).run_id;
    expect(runHeard.map((p) => p.message)).toContainEqual(expect.stringMatching(new RegExp(`^run ${runId} (queued|running|succeeded): \\d+ of \\d+ people done`)));
    const pollHeard: Progress[] = [];
    await call('get_enrichment_run', { run_id: runId }, (p) => pollHeard.push(p));
    expect(pollHeard.map((p) => p.message)).toContainEqual(expect.stringMatching(/ of \d+ people done \(\d+ succeeded, \d+ failed, \d+ skipped\)$/));

    // Without a token: nothing is sent, and the answer stays plain JSON.
    const plain = await request(running!.mcp.url, 'POST', '/mcp', {
      headers: { ...bearer(key), accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami', arguments: {} } },
    });
    expect(plain.headers.get('content-type')).toMatch(/^application\/json/);
  });
});
