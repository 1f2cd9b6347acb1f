// The MCP surface's transport and its edges, with the official SDK's client against a running system:
// rate limits, 401 with resource metadata, the protected-resource metadata, Host/Origin checks,
// JSON-RPC and transport refusals in the error envelope, idempotency keys, and the stdio transport.
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { createEdge } from '../gateway/core/edge.js';
import { MemoryRateLimiter } from '../services/kit/rate-limit/memory-limiter.js';
import { startMcpHttpServer } from '../gateway/mcp/server.js';
import { openMigratedPglite } from './helpers/store-templates.js';
import { SCOPES } from '../services/kit/scopes.js';
import { renderMetrics } from '../services/kit/metrics.js';
import { bearer, request } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { envelopeOf, k, mcpSuite, repo } from './helpers/mcp-suite.js';

/** The value of one series in a Prometheus text exposition (0 when absent). */
function sampleOf(text: string, name: string, labels: Record<string, string>): number {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && wanted.every((w) => l.includes(w)));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

describe('MCP server (streamable HTTP, stateless; stdio)', () => {
  const { system, server, clients, connect, call } = mcpSuite();

  it('rate limits per credential: the restricted tier refuses the sixth call with rate_limited', async () => {
    const client = await connect(k.free);
    for (let i = 0; i < 5; i++) expect((await call(client, 'whoami')).isError ?? false).toBe(false);
    const refused = envelopeOf(await call(client, 'whoami'));
    expect(refused.error).toMatchObject({ code: 'rate_limited' });
    expect(refused.error.retry_after_seconds).toBeGreaterThanOrEqual(1);
    // listing tools is not counted
    expect((await client.listTools()).tools.length).toBe(14);
  });

  it('401 with WWW-Authenticate resource_metadata on a missing or invalid credential, each counted as unauthorized', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
    const headers = { accept: 'application/json, text/event-stream' };
    const counted = async () => sampleOf((await renderMetrics()).body, 'api_errors_total', { surface: 'mcp', code: 'unauthorized' });
    const before = await counted();
    const missing = await request(server().url, 'POST', '/mcp', { headers, body: init });
    expect(missing.status).toBe(401);
    expect(missing.body.error).toMatchObject({ code: 'unauthorized', request_id: missing.headers.get('x-request-id') });
    const challenge = missing.headers.get('www-authenticate')!;
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain(`resource_metadata="${server().url}/.well-known/oauth-protected-resource"`);
    expect(challenge).not.toContain('error=');

    const invalid = await request(server().url, 'POST', '/mcp', { headers: { ...headers, ...bearer(liveKey()) }, body: init });
    expect(invalid.status).toBe(401);
    expect(invalid.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(invalid.headers.get('www-authenticate')).toContain('resource_metadata=');
    // Each counted under its API error code, for an alert on unauthorized answers alone.
    expect((await counted()) - before).toBe(2);

    // The SDK client sees the 401 too.
    const client = new Client({ name: 'anonymous', version: '1' });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(server().endpoint)))).rejects.toThrow();
  });

  it('serves the RFC 9728 protected-resource metadata', async () => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const res = await request(server().url, 'GET', path);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        resource: server().endpoint,
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
        const req = http.request(server().endpoint, { method, headers: { ...bearer(k.ada), 'content-type': 'application/json', ...headers } }, (res) => {
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
      request(server().url, 'POST', '/mcp', { headers: { ...bearer(k.ada), accept: 'application/json, text/event-stream' }, body: message });
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
      request(server().url, 'POST', '/mcp', { headers: { ...bearer(k.ada), 'x-request-id': 'req-transport-refusal', ...headers }, rawBody: body });
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
    const db = await openMigratedPglite();
    const withStore = await startMcpHttpServer({
      edge: createEdge({ clients: system().clients, signer: system().signer, deadlineMs: 10_000 }),
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
      // A second execution would answer already_member: an equal answer proves the replay.
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
      env: { ...(process.env as Record<string, string>), ...system().env, LOG_LEVEL: 'silent', EXPERTNET_API_KEY: k.reader },
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
