// The MCP surface end to end, with the official SDK's client: a running system (every service
// over gRPC), the REST edge it starts, and an MCP server bound to an edge built from the same
// clients and signer — the way the runtime builds it. Every tool is compared with its REST
// operation (same credential, same data): status ↔ error code, body ↔ structuredContent.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEdge } from '../gateway/core/edge.js';
import { MemoryRateLimiter } from '../gateway/core/rate-limit/memory-limiter.js';
import { createMcpHttpServer, startMcpHttpServer, type RunningMcpServer } from '../gateway/mcp/server.js';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { callAs } from '../services/kit/grpc/client.js';
import { SCOPES } from '../services/kit/scopes.js';
import { migrateAll } from '../services/kit/db/migrations.js';
import { openPglite } from '../services/kit/db/pglite-database.js';
import { bearer, request } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const repo = fileURLToPath(new URL('..', import.meta.url));

const k = { ada: liveKey(), scopeless: liveKey(), reader: liveKey(), bob: liveKey(), free: liveKey() };
const rate = { requested_rate: 6000 };

const seed: SeedInput = {
  users: [
    { id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' },
    { id: 'u_bob', email: 'bob@example.org', name: 'Bob', plan: 'paid' },
    { id: 'u_free', email: 'free@example.org', name: 'Free', plan: 'free' },
  ],
  organizations: [{ id: 'o_lab', name: 'Lab', members: [{ user: 'u_ada', role: 'admin' }] }],
  communities: [
    { id: 'c_bio', name: 'Biology', owner: { organization: 'o_lab' }, api_writes: true },
    { id: 'c_chem', name: 'Chemistry', owner: { organization: 'o_lab' }, api_writes: true },
    { id: 'c_closed', name: 'Closed', owner: { organization: 'o_lab' } },
    { id: 'c_foreign', name: 'Foreign', owner: { user: 'u_bob' }, api_writes: true },
  ],
  profiles: [
    { id: 'p_ada', user: 'u_ada', name: 'Ada Lovelace', headline: 'Analyst', email: 'ada@example.org' },
    { id: 'p_one', name: 'One Person', email: 'one@example.org', organization: 'Lab' },
    { id: 'p_two', name: 'Two Person', email: 'two@example.org' },
    { id: 'p_three', name: 'Three Person', email: 'three@example.org' },
    { id: 'p_gone_rest', name: 'Gone Rest', email: 'gone-rest@example.org' },
    { id: 'p_gone_mcp', name: 'Gone Mcp', email: 'gone-mcp@example.org' },
  ],
  memberships: [
    { community: 'c_bio', profile: 'p_ada', role: 'admin' },
    { community: 'c_bio', profile: 'p_one' },
    { community: 'c_bio', profile: 'p_two' },
    { community: 'c_bio', profile: 'p_three' },
    { community: 'c_chem', profile: 'p_gone_rest' },
    { community: 'c_chem', profile: 'p_gone_mcp' },
  ],
  keys: [
    { id: 'k_ada', secret: k.ada, owner: { user: 'u_ada' }, scopes: ['profile:read', 'member:write'], ...rate },
    { id: 'k_scopeless', secret: k.scopeless, owner: { user: 'u_ada' }, scopes: ['search:read'], ...rate },
    { id: 'k_reader', secret: k.reader, owner: { user: 'u_ada' }, scopes: ['profile:read'], ...rate },
    { id: 'k_bob', secret: k.bob, owner: { user: 'u_bob' }, scopes: ['profile:read', 'member:write'], ...rate },
    { id: 'k_free', secret: k.free, owner: { user: 'u_free' }, scopes: ['profile:read'] },
  ],
};

/** The REST error envelope a tool error carries as JSON text. */
function envelopeOf(result: CallToolResult): { error: { code: string; message: string; request_id: string; [k: string]: unknown } } {
  expect(result.isError).toBe(true);
  const text = result.content.find((c) => c.type === 'text');
  return JSON.parse((text as { text: string }).text);
}

describe('MCP server (streamable HTTP, stateless; stdio)', () => {
  let sys: TestSystem;
  let mcp: RunningMcpServer;
  let listener: Server;
  const clients: Client[] = [];

  beforeAll(async () => {
    // The server's default resource URI names its port; identity must know it (the audience of
    // MCP access tokens) before the server starts, so the socket is bound first (port 0) and
    // handed to the server.
    listener = createMcpHttpServer();
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const { port } = listener.address() as AddressInfo;
    sys = await startTestSystem({ seed, env: { MCP_RESOURCE_URL: `http://127.0.0.1:${port}/mcp` } });
    mcp = await startMcpHttpServer({
      edge: createEdge({ clients: sys.clients, signer: sys.signer, deadlineMs: 10_000 }),
      limiter: new MemoryRateLimiter(),
      host: '127.0.0.1',
      port,
      server: listener,
      authorizationServers: ['http://127.0.0.1:8080/oauth'],
    });
  });
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    if (mcp) await mcp.close();
    else listener?.close();
    await sys?.stop();
  });

  async function connect(secret: string): Promise<Client> {
    const client = new Client({ name: 'mcp-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(mcp.endpoint), { requestInit: { headers: bearer(secret) } });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;

  /** REST and MCP agree: 2xx ↔ structuredContent equal to the body; otherwise the status's code ↔ the tool error's. */
  async function expectParity(rest: { status: number; body: any }, tool: CallToolResult, compare = true) {
    if (rest.status === 200) {
      expect(tool.isError ?? false).toBe(false);
      if (compare) expect(tool.structuredContent).toEqual(rest.body);
      expect(JSON.parse((tool.content[0] as { text: string }).text)).toEqual(tool.structuredContent);
    } else {
      const envelope = envelopeOf(tool);
      expect(envelope.error.code).toBe(rest.body.error.code);
      const { request_id: _a, ...restError } = rest.body.error;
      const { request_id: requestId, ...toolError } = envelope.error;
      expect(requestId).toMatch(/^req_/);
      expect(toolError).toEqual(restError);
    }
  }

  it('lists the tools with their annotations, input and output schemas', async () => {
    const client = await connect(k.ada);
    // Tools only, and a fixed list: no list_changed notifications are promised.
    expect(client.getServerCapabilities()).toEqual({ tools: { listChanged: false } });
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(Object.keys(byName).sort()).toEqual(
      ['add_community_members', 'enrich_my_profile', 'estimate_community_enrichment', 'get_community_member', 'get_enrichment_run',
        'get_my_profile', 'get_search', 'list_community_members', 'remove_community_member', 'search_experts', 'start_community_enrichment',
        'whoami'],
    );
    for (const name of ['whoami', 'get_my_profile', 'list_community_members', 'get_community_member', 'get_search', 'estimate_community_enrichment', 'get_enrichment_run']) {
      expect(byName[name]!.annotations, name).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true });
    }
    for (const name of ['add_community_members', 'enrich_my_profile', 'start_community_enrichment']) {
      expect(byName[name]!.annotations, name).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
    }
    expect(byName.remove_community_member!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    for (const t of tools) expect(t.annotations?.openWorldHint, t.name).toBe(false);
    expect(byName.list_community_members!.inputSchema.required).toEqual(['community_id']);
    expect(Object.keys(byName.list_community_members!.inputSchema.properties ?? {}).sort()).toEqual(['after', 'community_id', 'limit']);
    expect(byName.add_community_members!.inputSchema.required?.sort()).toEqual(['community_id', 'members']);
    // No edge database given: the tool takes no idempotency key rather than pretending to honour one.
    expect(byName.add_community_members!.inputSchema.properties).not.toHaveProperty('idempotency_key');
    expect(byName.whoami!.outputSchema?.properties).toHaveProperty('scopes');
    // Enrichment: the REST body's options (but dry_run, which each tool sets), the REST bodies as outputs.
    const options = ['community_id', 'depth', 'include_already_enriched', 'joined_since', 'profile_ids', 'workflow_key'];
    expect(Object.keys(byName.enrich_my_profile!.inputSchema.properties ?? {})).toEqual([]);
    expect(Object.keys(byName.estimate_community_enrichment!.inputSchema.properties ?? {}).sort()).toEqual(options);
    expect(Object.keys(byName.start_community_enrichment!.inputSchema.properties ?? {}).sort()).toEqual(options);
    for (const name of ['estimate_community_enrichment', 'start_community_enrichment']) {
      expect(byName[name]!.inputSchema.required, name).toEqual(['community_id']);
    }
    expect(byName.get_enrichment_run!.inputSchema.required).toEqual(['run_id']);
    expect(Object.keys(byName.get_enrichment_run!.inputSchema.properties ?? {}).sort()).toEqual(['community_id', 'items_after', 'run_id']);
    expect(Object.keys(byName.enrich_my_profile!.outputSchema?.properties ?? {})).toContain('run_id');
    expect(byName.start_community_enrichment!.outputSchema?.properties).toHaveProperty('eligible_count');
    expect(Object.keys(byName.estimate_community_enrichment!.outputSchema?.properties ?? {}).sort()).toEqual(
      ['eligible_count', 'estimated_max_credits', 'estimated_max_credits_per_profile', 'total_members'],
    );
    expect(byName.get_enrichment_run!.outputSchema?.properties).toHaveProperty('next_items_after');
    expect(byName.start_community_enrichment!.description).toMatch(/depth is required/);
    expect(byName.enrich_my_profile!.description).toMatch(/30 days/);
    for (const t of tools) expect(t.description!.length).toBeGreaterThan(80);
  });

  it('whoami equals GET /v1/me for an API key and for an OAuth access token (one per resource)', async () => {
    const client = await connect(k.ada);
    const tool = await call(client, 'whoami');
    const rest = await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(k.ada) });
    // Usage counters move with every request; everything else is equal.
    const strip = (b: any) => ({ ...b, usage: undefined });
    expect(rest.status).toBe(200);
    expect(strip(tool.structuredContent)).toEqual(strip(rest.body));
    expect((tool.structuredContent as any).key).toMatchObject({ id: 'k_ada', credential: 'api_key' });

    // A token is good for one resource (RFC 8707): one for MCP, one for REST, each its own grant.
    const operator = await callAs(sys.signer, { kind: 'operator', actor: 'mcp-test' }, undefined, 10_000);
    const issue = (resource: string) => sys.clients.identity.issueAccessToken(
      { userId: 'u_ada', scopes: ['profile:read'], clientId: 'mcp-client', ttlSeconds: 300, requestedRate: 0, resource },
      operator,
    );
    const forMcp = await issue(mcp.resourceUrl);
    const forRest = await issue('');
    const viaToken = await call(await connect(forMcp.accessToken), 'whoami');
    const restToken = await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(forRest.accessToken) });
    expect(restToken.status).toBe(200);
    const stripGrant = (b: any) => ({ ...strip(b), key: { ...b.key, id: undefined, created_at: undefined } });
    expect(stripGrant(viaToken.structuredContent)).toEqual(stripGrant(restToken.body));
    expect((viaToken.structuredContent as any).key).toMatchObject({ id: forMcp.grantId, credential: 'oauth' });
  });

  it('parity of the reads: get_my_profile, list_community_members (paging), get_community_member', async () => {
    const client = await connect(k.ada);
    const rest = (path: string, secret = k.ada) => request(sys.restUrl, 'GET', path, { headers: bearer(secret) });

    await expectParity(await rest('/v1/me/profile'), await call(client, 'get_my_profile'));

    const page1 = await rest('/v1/communities/c_bio/members?limit=2');
    expect(page1.status).toBe(200);
    const tool1 = await call(client, 'list_community_members', { community_id: 'c_bio', limit: 2 });
    await expectParity(page1, tool1);
    const cursor = page1.body.next_cursor as string;
    expect(cursor).toBeTruthy();
    await expectParity(
      await rest(`/v1/communities/c_bio/members?limit=2&after=${encodeURIComponent(cursor)}`),
      await call(client, 'list_community_members', { community_id: 'c_bio', limit: 2, after: cursor }),
    );
    // Above the maximum: served as the maximum on both.
    await expectParity(await rest('/v1/communities/c_bio/members?limit=5000'), await call(client, 'list_community_members', { community_id: 'c_bio', limit: 5000 }));
    // A cursor of another community: 400 invalid_request on both.
    const wrongCursor = await rest(`/v1/communities/c_chem/members?after=${encodeURIComponent(cursor)}`);
    expect(wrongCursor.status).toBe(400);
    await expectParity(wrongCursor, await call(client, 'list_community_members', { community_id: 'c_chem', after: cursor }));
    // Outside the read reach: 403 on both.
    const foreign = await rest('/v1/communities/c_foreign/members');
    expect(foreign.status).toBe(403);
    await expectParity(foreign, await call(client, 'list_community_members', { community_id: 'c_foreign' }));

    await expectParity(await rest('/v1/communities/c_bio/members/p_one'), await call(client, 'get_community_member', { community_id: 'c_bio', profile_id: 'p_one' }));
    const missing = await rest('/v1/communities/c_bio/members/p_gone_rest');
    expect(missing.status).toBe(404);
    await expectParity(missing, await call(client, 'get_community_member', { community_id: 'c_bio', profile_id: 'p_gone_rest' }));

    // Bob has no profile: 404 not_found on both.
    const bobProfile = await rest('/v1/me/profile', k.bob);
    expect(bobProfile.status).toBe(404);
    await expectParity(bobProfile, await call(await connect(k.bob), 'get_my_profile'));
  });

  it('parity of the writes: add_community_members and remove_community_member (different people, same outcome)', async () => {
    const client = await connect(k.ada);
    const add = (body: unknown) =>
      request(sys.restUrl, 'POST', '/v1/communities/c_chem/members', { headers: bearer(k.ada), body });

    const restAdded = await add({ members: [{ email: 'one@example.org' }, { email: 'new-rest@example.org', name: 'New Rest' }] });
    expect(restAdded.status).toBe(200);
    const toolAdded = await call(client, 'add_community_members', {
      community_id: 'c_chem',
      members: [{ email: 'two@example.org' }, { email: 'new-mcp@example.org', name: 'New Mcp' }],
    });
    await expectParity(restAdded, toolAdded, false);
    const shape = (b: any) => b.results.map((r: any) => ({ index: r.index, status: r.status, error: r.error }));
    expect(shape(toolAdded.structuredContent)).toEqual(shape(restAdded.body));
    expect((toolAdded.structuredContent as any).results[0]).toMatchObject({ status: 'added', profile_id: 'p_two' });

    // Repeating a person: already_member on both.
    const again = await add({ members: [{ email: 'one@example.org' }] });
    const toolAgain = await call(client, 'add_community_members', { community_id: 'c_chem', members: [{ email: 'two@example.org' }] });
    expect(shape(toolAgain.structuredContent)).toEqual(shape(again.body));
    expect((toolAgain.structuredContent as any).results[0].status).toBe('already_member');

    // Writes not enabled: 422 unprocessable on both; outside the reach: 403 on both.
    const closed = await request(sys.restUrl, 'POST', '/v1/communities/c_closed/members', { headers: bearer(k.ada), body: { members: [{ email: 'x@example.org' }] } });
    expect(closed.status).toBe(422);
    await expectParity(closed, await call(client, 'add_community_members', { community_id: 'c_closed', members: [{ email: 'x@example.org' }] }));
    const foreign = await request(sys.restUrl, 'POST', '/v1/communities/c_foreign/members', { headers: bearer(k.ada), body: { members: [{ email: 'x@example.org' }] } });
    expect(foreign.status).toBe(403);
    await expectParity(foreign, await call(client, 'add_community_members', { community_id: 'c_foreign', members: [{ email: 'x@example.org' }] }));

    // Erasure: each surface erases its own person; then both answer 404 for the person already gone.
    const erased = await request(sys.restUrl, 'DELETE', '/v1/communities/c_chem/members/p_gone_rest', { headers: bearer(k.ada) });
    expect(erased.status).toBe(200);
    const toolErased = await call(client, 'remove_community_member', { community_id: 'c_chem', profile_id: 'p_gone_mcp' });
    await expectParity(erased, toolErased, false);
    expect(toolErased.structuredContent).toEqual({ ...erased.body, profile_id: 'p_gone_mcp' });
    const erasedAgain = await request(sys.restUrl, 'DELETE', '/v1/communities/c_chem/members/p_gone_mcp', { headers: bearer(k.ada) });
    expect(erasedAgain.status).toBe(404);
    await expectParity(erasedAgain, await call(client, 'remove_community_member', { community_id: 'c_chem', profile_id: 'p_gone_mcp' }));
  });

  it('a missing scope is a tool error forbidden naming the scope, as REST’s 403', async () => {
    const scopeless = await connect(k.scopeless);
    const rest = await request(sys.restUrl, 'GET', '/v1/communities/c_bio/members', { headers: bearer(k.scopeless) });
    expect(rest.status).toBe(403);
    const tool = await call(scopeless, 'list_community_members', { community_id: 'c_bio' });
    await expectParity(rest, tool);
    expect(envelopeOf(tool).error).toMatchObject({ code: 'forbidden', required_scope: 'profile:read' });
    expect(envelopeOf(tool).error.message).toContain('profile:read');

    const reader = await connect(k.reader);
    const write = await call(reader, 'remove_community_member', { community_id: 'c_bio', profile_id: 'p_one' });
    expect(envelopeOf(write).error).toMatchObject({ code: 'forbidden', required_scope: 'member:write' });
    // whoami needs no scope.
    expect((await call(scopeless, 'whoami')).isError ?? false).toBe(false);
  });

  it('invalid arguments are REST’s 400 invalid_request, naming the field as REST does', async () => {
    const client = await connect(k.ada);
    const rest = await request(sys.restUrl, 'GET', '/v1/communities/not%20a%20valid%20id!/members?limit=0', { headers: bearer(k.ada) });
    expect(rest.status).toBe(400);
    const bad = await call(client, 'list_community_members', { community_id: 'not a valid id!', limit: 0 });
    await expectParity(rest, bad);
    expect(envelopeOf(bad).error.message).toMatch(/^path\.id: /);
  });

  it('rate limits per credential: the restricted tier refuses the sixth call with rate_limited', async () => {
    const client = await connect(k.free);
    for (let i = 0; i < 5; i++) expect((await call(client, 'whoami')).isError ?? false).toBe(false);
    const refused = envelopeOf(await call(client, 'whoami'));
    expect(refused.error).toMatchObject({ code: 'rate_limited' });
    expect(refused.error.retry_after_seconds).toBeGreaterThanOrEqual(1);
    // listing tools is not counted
    expect((await client.listTools()).tools.length).toBe(12);
  });

  it('401 with WWW-Authenticate resource_metadata on a missing or invalid credential', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
    const headers = { accept: 'application/json, text/event-stream' };
    const missing = await request(mcp.url, 'POST', '/mcp', { headers, body: init });
    expect(missing.status).toBe(401);
    expect(missing.body.error).toMatchObject({ code: 'unauthorized', request_id: missing.headers.get('x-request-id') });
    const challenge = missing.headers.get('www-authenticate')!;
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain(`resource_metadata="${mcp.url}/.well-known/oauth-protected-resource"`);
    expect(challenge).not.toContain('error=');

    const invalid = await request(mcp.url, 'POST', '/mcp', { headers: { ...headers, ...bearer(liveKey()) }, body: init });
    expect(invalid.status).toBe(401);
    expect(invalid.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(invalid.headers.get('www-authenticate')).toContain('resource_metadata=');

    // The SDK client sees the 401 too.
    const client = new Client({ name: 'anonymous', version: '1' });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(mcp.endpoint)))).rejects.toThrow();
  });

  it('serves the RFC 9728 protected-resource metadata', async () => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const res = await request(mcp.url, 'GET', path);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        resource: mcp.endpoint,
        authorization_servers: ['http://127.0.0.1:8080/oauth'],
        scopes_supported: [...SCOPES],
        bearer_methods_supported: ['header'],
      });
    }
  });

  it('refuses a disallowed Host or Origin (DNS rebinding) with 403, and GET /mcp with 405 (stateless)', async () => {
    const http = await import('node:http');
    const raw = (headers: Record<string, string>, method = 'POST') =>
      new Promise<number>((resolve, reject) => {
        const req = http.request(mcp.endpoint, { method, headers: { ...bearer(k.ada), 'content-type': 'application/json', ...headers } }, (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => (res.statusCode === 400 ? reject(new Error(text)) : resolve(res.statusCode!)));
        });
        req.on('error', reject);
        req.end(method === 'POST' ? '{}' : undefined);
      });
    expect(await raw({ host: 'evil.example.com' })).toBe(403);
    expect(await raw({ origin: 'https://evil.example.com' })).toBe(403);
    expect(await raw({ origin: `http://localhost:5173` }, 'GET')).toBe(405);
    expect(await raw({}, 'GET')).toBe(405);
  });

  // Found by test/fuzz-mcp.test.ts: these were JSON-RPC internal errors (-32603) carrying a raw validation dump.
  it('answers params that break the method’s schema with -32602 Invalid params, not an internal error', async () => {
    const rpc = (message: unknown) =>
      request(mcp.url, 'POST', '/mcp', { headers: { ...bearer(k.ada), accept: 'application/json, text/event-stream' }, body: message });
    for (const message of [
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'whoami', arguments: 'not an object' } },
      { jsonrpc: '2.0', id: 7, method: 'tools/list', params: { cursor: 5 } },
    ]) {
      const res = await rpc(message);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32602, message: expect.stringMatching(/^Invalid params: /) } });
    }
    // Params that are not an object are not a JSON-RPC request at all: the transport's 400, in the envelope.
    const notRpc = await rpc({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: 'text' });
    expect(notRpc.status).toBe(400);
    expect(notRpc.body.error.code).toBe('bad_request');
    // Valid params still reach the tool.
    const ok = await rpc({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'whoami', arguments: {} } });
    expect(ok.body.result.structuredContent.key.id).toBe('k_ada');
  });

  // Found by test/fuzz-raw-http.test.ts: these came back as JSON-RPC error bodies, not the envelope.
  it('answers the transport’s own refusals (Accept, Content-Type, size, JSON) in the error envelope with the request id', async () => {
    const post = (headers: Record<string, string>, body: string) =>
      request(mcp.url, 'POST', '/mcp', { headers: { ...bearer(k.ada), 'x-request-id': 'req-transport-refusal', ...headers }, rawBody: body });
    const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const cases: Array<[number, string, Awaited<ReturnType<typeof post>>]> = [
      [406, 'not_acceptable', await post({ 'content-type': 'application/json' }, '{}')],
      [415, 'unsupported_media_type', await post({ ...json, 'content-type': 'text/plain' }, '{}')],
      [413, 'payload_too_large', await post(json, JSON.stringify({ x: 'x'.repeat(1024 * 1024) }))],
      [400, 'bad_request', await post(json, '{nope')],
      [400, 'bad_request', await post(json, '[[[]]]')],
    ];
    for (const [status, code, res] of cases) {
      expect(res.status, code).toBe(status);
      expect(res.headers.get('x-request-id')).toBe('req-transport-refusal');
      expect(res.body).toEqual({ error: { code, message: expect.any(String), request_id: 'req-transport-refusal' } });
      expect(res.body.error.message.length).toBeGreaterThan(0);
    }
  });

  it('add_community_members honours idempotency_key when the server has the edge store: replay, other arguments, refusals not kept', async () => {
    const db = await openPglite('memory://');
    await migrateAll(db, ['edge']);
    const withStore = await startMcpHttpServer({
      edge: createEdge({ clients: sys.clients, signer: sys.signer, deadlineMs: 10_000 }),
      limiter: new MemoryRateLimiter(),
      host: '127.0.0.1',
      port: 0,
      authorizationServers: [],
      db,
    });
    try {
      const client = new Client({ name: 'idem', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(withStore.endpoint), { requestInit: { headers: bearer(k.ada) } }));
      clients.push(client);
      const { tools } = await client.listTools();
      expect(tools.find((t) => t.name === 'add_community_members')!.inputSchema.properties).toHaveProperty('idempotency_key');

      const args = { community_id: 'c_bio', members: [{ name: 'Placeholder Idem' }], idempotency_key: 'mcp-idem-1' };
      const first = await call(client, 'add_community_members', args);
      expect(first.isError ?? false).toBe(false);
      const again = await call(client, 'add_community_members', args);
      // A name alone makes a new placeholder each time: a replay proves the operation did not run again.
      expect(again.structuredContent).toEqual(first.structuredContent);
      expect(again._meta).toMatchObject({ 'expertnet/idempotent_replayed': true });
      const other = envelopeOf(await call(client, 'add_community_members', { ...args, members: [{ name: 'Someone Else' }] }));
      expect(other.error.code).toBe('unprocessable');
      // A refusal (writes not enabled) is not kept: the same key may be used once the cause is fixed.
      const refused = { community_id: 'c_closed', members: [{ email: 'x@example.org' }], idempotency_key: 'mcp-idem-2' };
      expect(envelopeOf(await call(client, 'add_community_members', refused)).error.code).toBe('unprocessable');
      // Were it stored, other arguments under the same key would be refused as a mismatch.
      const retried = envelopeOf(await call(client, 'add_community_members', { ...refused, members: [{ email: 'y@example.org' }] }));
      expect(retried.error.code).toBe('unprocessable');
      expect(retried.error.message).not.toContain('idempotency_key');
    } finally {
      await withStore.close();
      await db.close();
    }
  });

  it('stdio transport: whoami works with EXPERTNET_API_KEY against the running system', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', join(repo, 'deploy/launcher/mcp-stdio.ts')],
      cwd: repo,
      env: { ...(process.env as Record<string, string>), ...sys.env, LOG_LEVEL: 'silent', EXPERTNET_API_KEY: k.reader },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'stdio-test', version: '1' });
    await client.connect(transport);
    clients.push(client);
    const me = await call(client, 'whoami');
    expect(me.isError ?? false).toBe(false);
    expect((me.structuredContent as any).key).toMatchObject({ id: 'k_reader', credential: 'api_key' });
    const page = await call(client, 'list_community_members', { community_id: 'c_bio', limit: 1 });
    expect((page.structuredContent as any).members).toHaveLength(1);
    const denied = envelopeOf(await call(client, 'remove_community_member', { community_id: 'c_bio', profile_id: 'p_one' }));
    expect(denied.error.code).toBe('forbidden');
  });
});
