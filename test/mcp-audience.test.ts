// Token audiences (RFC 8707) end to end, on the real system: every service over gRPC, and the REST
// edge and the MCP server the runtime itself starts, configured by nothing but MCP_PORT (the MCP
// resource URI, http://HOST:MCP_PORT/mcp, is then the same for the server that advertises it, for
// identity that checks it and for the admin CLI that issues for it). A token minted for the MCP
// resource works on MCP only, one minted for the REST API on REST only; API keys work on both.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { callAs } from '../services/kit/grpc/client.js';
import { bearer, request } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { payloadOf } from './helpers/oauth.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';
import { runAdminCli, runAdminInProcess } from './helpers/admin-cli.js';


const adaKey = liveKey();
const seed: SeedInput = {
  users: [{ id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' }],
  keys: [{ id: 'k_ada', secret: adaKey, owner: { user: 'u_ada' }, scopes: ['profile:read'], requested_rate: 6000 }],
};

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
const MCP_ACCEPT = { accept: 'application/json, text/event-stream' };

describe('access token audiences: the MCP resource and the REST API', () => {
  let sys: TestSystem;
  let mcpUrl: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    // MCP_PORT=0: the server binds what the OS gives it, and names itself by that port.
    sys = await startTestSystem({ seed, env: { MCP_PORT: '0' } });
    mcpUrl = sys.mcpUrl!;
  });
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await sys?.stop();
  });

  const issue = async (resource: string) =>
    sys.clients.identity.issueAccessToken(
      { userId: 'u_ada', scopes: ['profile:read'], clientId: 'mcp-client', ttlSeconds: 300, requestedRate: 0, resource },
      await callAs(sys.signer, { kind: 'operator', actor: 'mcp-audience-test' }, undefined, 10_000),
    );

  async function whoamiOverMcp(secret: string): Promise<CallToolResult> {
    const client = new Client({ name: 'mcp-audience-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: bearer(secret) } }));
    clients.push(client);
    return (await client.callTool({ name: 'whoami', arguments: {} })) as CallToolResult;
  }

  const restMe = (secret: string) => request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(secret) });
  const mcpInit = (secret: string) => request(new URL(mcpUrl).origin, 'POST', '/mcp', { headers: { ...MCP_ACCEPT, ...bearer(secret) }, body: INIT });

  it('the MCP server names itself http://HOST:MCP_PORT/mcp, the resource identity accepts tokens for', async () => {
    expect(mcpUrl).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*\/mcp$/);
    const metadata = await request(new URL(mcpUrl).origin, 'GET', '/.well-known/oauth-protected-resource');
    expect(metadata.body.resource).toBe(mcpUrl);
    expect(payloadOf((await issue(metadata.body.resource)).accessToken).aud).toBe(mcpUrl);
  });

  it('a token for the MCP resource works on MCP and is 401 on REST', async () => {
    const { accessToken, grantId } = await issue(mcpUrl);
    const me = await whoamiOverMcp(accessToken);
    expect(me.isError ?? false).toBe(false);
    expect((me.structuredContent as any).key).toMatchObject({ id: grantId, credential: 'oauth' });

    const rest = await restMe(accessToken);
    expect(rest.status).toBe(401);
    expect(rest.body.error).toMatchObject({ code: 'unauthorized', request_id: rest.headers.get('x-request-id') });
    expect(JSON.stringify(rest.body)).not.toContain(accessToken);
  });

  it('a token for the REST API is 401 on MCP, with the RFC 9728 challenge; it works on REST', async () => {
    const { accessToken } = await issue('');
    expect((await restMe(accessToken)).status).toBe(200);

    const refused = await mcpInit(accessToken);
    expect(refused.status).toBe(401);
    expect(refused.body.error).toMatchObject({ code: 'unauthorized', request_id: refused.headers.get('x-request-id') });
    const challenge = refused.headers.get('www-authenticate')!;
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain(`resource_metadata="${new URL(mcpUrl).origin}/.well-known/oauth-protected-resource"`);
    expect(challenge).toContain('error="invalid_token"');
    expect(challenge).toContain('error_description="access token is not for this resource (aud)"');
    expect(challenge).not.toContain(accessToken);
    expect(JSON.stringify(refused.body)).not.toContain(accessToken);
    // The SDK client sees the refusal too.
    const client = new Client({ name: 'rest-token', version: '1' });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: bearer(accessToken) } }))).rejects.toThrow();
  });

  it('API keys have no audience: the same key works on MCP and on REST', async () => {
    const me = await whoamiOverMcp(adaKey);
    expect((me.structuredContent as any).key).toMatchObject({ id: 'k_ada', credential: 'api_key' });
    expect((await restMe(adaKey)).body.key.id).toBe('k_ada');
  });

  it('issues only for the resources identity serves', async () => {
    await expect(issue('https://evil.example/mcp')).rejects.toThrow(/resource must be one served here/);
  });

  // --json: read as a script reads it. The operator's MCP_PORT is the port the server bound (it was started with 0).
  // The first issue as a child process, as an operator runs it; the others through the same code in this process.
  const childCli = (args: string[]) => runAdminCli({ ...sys.env, MCP_PORT: new URL(mcpUrl).port }, [...args, '--json']);
  const runCli = (args: string[]) => runAdminInProcess({ ...sys.env, MCP_PORT: new URL(mcpUrl).port }, [...args, '--json']);

  it('admin CLI: tokens issue --audience mcp prints a token that works on MCP and not on REST', async () => {
    const issued = await childCli(['tokens', 'issue', '--user', 'u_ada', '--scopes', 'profile:read', '--client', 'cli-mcp', '--audience', 'mcp']);
    expect(issued.stderr).toBe('');
    expect(issued.code).toBe(0);
    const out = JSON.parse(issued.stdout) as { access_token: string; grant_id: string };
    expect(payloadOf(out.access_token).aud).toBe(mcpUrl);
    const me = await whoamiOverMcp(out.access_token);
    expect((me.structuredContent as any).key).toMatchObject({ id: out.grant_id, credential: 'oauth' });
    expect((await restMe(out.access_token)).status).toBe(401);

    // --resource names the same resource verbatim; the default stays the REST API.
    const byUrl = JSON.parse((await runCli(['tokens', 'issue', '--user', 'u_ada', '--scopes', 'profile:read', '--resource', mcpUrl])).stdout);
    expect(payloadOf(byUrl.access_token).aud).toBe(mcpUrl);
    const rest = JSON.parse((await runCli(['tokens', 'issue', '--user', 'u_ada', '--scopes', 'profile:read'])).stdout);
    expect((await restMe(rest.access_token)).status).toBe(200);
    expect((await mcpInit(rest.access_token)).status).toBe(401);

    const unknown = await runCli(['tokens', 'issue', '--user', 'u_ada', '--scopes', 'profile:read', '--resource', 'https://evil.example/mcp']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('invalid_request');
    const bad = await runCli(['tokens', 'issue', '--user', 'u_ada', '--scopes', 'profile:read', '--audience', 'smtp']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--audience');
  });
});
