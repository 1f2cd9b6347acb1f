// Connected applications on the API keys screen: each OAuth grant of the signed-in user with its
// client, scopes and use, and revoke after a confirmation — the very next MCP or API request with
// any of its access tokens is 401. A user neither sees nor revokes another user's grant: not on the
// page, 404 through the page's own endpoints, refused by identity whatever the surface sends.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { callAs } from '../services/kit/grpc/client.js';
import { readRemoteError } from '../services/kit/grpc/errors.js';
import { bearer, request } from './helpers/http.js';
import { signedInClients, type SettingsClient } from './helpers/settings-browser-http.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const seed: SeedInput = {
  users: [
    { id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' },
    { id: 'u_bob', email: 'bob@example.org', name: 'Bob' },
  ],
};

describe('settings web app: connected applications (OAuth grants)', () => {
  let sys: TestSystem;
  let ada: SettingsClient;
  let bob: SettingsClient;
  const operator = () => callAs(sys.signer, { kind: 'operator', actor: 'grants-test' }, undefined, 10_000);
  /** A grant for `userId` and an access token under it for the REST API (resource '') or the MCP server. */
  const connect = async (userId: string, clientId: string, resource = '') =>
    sys.clients.identity.issueAccessToken(
      { userId, scopes: ['search:read', 'profile:read'], clientId, ttlSeconds: 300, requestedRate: 0, resource }, await operator());
  const restMe = (token: string) => request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(token) });
  async function mcpWhoami(token: string) {
    const client = new Client({ name: 'grants-test', version: '1' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(sys.mcpUrl!), { requestInit: { headers: bearer(token) } }));
      return { ok: !(await client.callTool({ name: 'whoami', arguments: {} })).isError };
    } catch (error) {
      return { ok: false, error: String(error) };
    } finally {
      await client.close().catch(() => undefined);
    }
  }

  beforeAll(async () => {
    sys = await startTestSystem({ seed, env: { MCP_PORT: '0' } });
    [ada, bob] = await signedInClients(sys, 'u_ada', 'u_bob');
  });
  afterAll(async () => sys?.stop());

  it('lists the user’s connected applications with client, scopes and status, and nobody else’s', async () => {
    const { grantId } = await connect('u_ada', 'notebook-assistant');
    await connect('u_bob', 'bobs-assistant');
    const page = (await ada.get('/keys')).text;
    expect(page).toContain('<h2>Connected applications</h2>');
    expect(page).toMatch(/<tr><td><code>notebook-assistant<\/code><\/td><td>search:read, profile:read<\/td><td>standard<\/td>/);
    expect(page).toContain(`href="/grants/${grantId}/revoke"`);
    expect(page).not.toContain('bobs-assistant');
    const bobsPage = (await bob.get('/keys')).text;
    expect(bobsPage).toContain('bobs-assistant');
    expect(bobsPage).not.toContain('notebook-assistant');
  });

  it('revokes after a confirmation: the very next REST and MCP requests with its tokens are 401', async () => {
    const rest = await connect('u_ada', 'desktop-assistant');
    const mcp = await sys.clients.identity.issueAccessToken(
      { userId: 'u_ada', scopes: ['profile:read'], clientId: 'desktop-assistant-mcp', ttlSeconds: 300, requestedRate: 0, resource: sys.mcpUrl! }, await operator());
    expect((await restMe(rest.accessToken)).status).toBe(200);
    expect((await mcpWhoami(mcp.accessToken)).ok).toBe(true);

    for (const { grantId, accessToken, check } of [
      { ...rest, check: async (t: string) => (await restMe(t)).status === 200 },
      { ...mcp, check: async (t: string) => (await mcpWhoami(t)).ok },
    ]) {
      const confirm = await ada.get(`/grants/${grantId}/revoke`);
      expect(confirm.status).toBe(200);
      expect(confirm.text).toContain('Every access token it holds is refused');
      const revoked = await ada.submit(`/grants/${grantId}/revoke`, `/grants/${grantId}/revoke`);
      expect(revoked.status).toBe(303);
      const after = await ada.get(revoked.headers.get('location')!);
      expect(after.text).toContain('was disconnected: requests with its access tokens are refused.');
      expect(after.text).not.toContain(`href="/grants/${grantId}/revoke"`);
      expect(await check(accessToken)).toBe(false);
    }
    expect((await restMe(rest.accessToken)).status).toBe(401);
  });

  it('answers 404 when a user opens or submits the revocation of another user’s grant, and the grant keeps working', async () => {
    const bobs = await connect('u_bob', 'bobs-notebook');
    expect((await ada.get(`/grants/${bobs.grantId}/revoke`)).status).toBe(404);
    const forged = await ada.submit('/keys', `/grants/${bobs.grantId}/revoke`);
    expect(forged.status).toBe(404);
    expect(forged.text).toContain(`grant ${bobs.grantId} not found`);
    expect((await restMe(bobs.accessToken)).status).toBe(200);
  });

  it('has identity refuse a signed-in user acting on another user’s grants, whatever the surface sends', async () => {
    const bobs = await connect('u_bob', 'bobs-cli');
    const asAda = await callAs(sys.signer, { kind: 'user', userId: 'u_ada' }, undefined, 10_000);
    const refusals = await Promise.all([
      sys.clients.identity.revokeGrant({ grantId: bobs.grantId }, asAda).catch((e) => e),
      sys.clients.identity.listGrants({ userId: 'u_bob', pageSize: 10, pageToken: '' }, asAda).catch((e) => e),
      sys.clients.identity.createGrant({ userId: 'u_bob', scopes: ['search:read'], clientId: 'x', requestedRate: 0 }, asAda).catch((e) => e),
    ]);
    expect(refusals.map((e) => readRemoteError(e)?.code)).toEqual(['not_found', 'forbidden', 'forbidden']);
    expect((await restMe(bobs.accessToken)).status).toBe(200);
  });
});
