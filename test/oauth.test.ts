// OAuth access tokens end to end: HTTP → edge → gRPC → identity (and billing) → the store, on
// every store. Once with the one-process local issuer (tokens from IssueAccessToken and the admin
// CLI), once with an external issuer whose JWKS a loopback server publishes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { callAs } from '../services/kit/grpc/client.js';
import { readRemoteError } from '../services/kit/grpc/errors.js';
import { bearer, request, type JsonResponse } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import {
  accessTokenClaims,
  hs256WithPublicKey,
  nowSeconds,
  signToken,
  startJwksServer,
  tamperPayload,
  testSigningKey,
  unsignedToken,
  type JwksServer,
} from './helpers/oauth.js';
import { storeNames } from './helpers/stores.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';
import { runAdminCli, runAdminInProcess, type CliResult } from './helpers/admin-cli.js';


const adaKey = liveKey();
const seed: SeedInput = {
  users: [
    { id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' },
    { id: 'u_bob', email: 'bob@example.org', name: 'Bob', plan: 'free' },
  ],
  wallets: [{ owner: { user: 'u_ada' }, balance: 100 }],
  keys: [{ id: 'k_ada', secret: adaKey, owner: { user: 'u_ada' }, scopes: ['search:read'] }],
};

const operatorOptions = (sys: TestSystem) => callAs(sys.signer, { kind: 'operator', actor: 'oauth-test' }, undefined, 10_000);

function me(sys: TestSystem, token: string): Promise<JsonResponse> {
  return request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(token) });
}

/** A 401 in the envelope that never echoes the token. */
async function expectUnauthorized(sys: TestSystem, token: string, headers: Record<string, string> = bearer(token)): Promise<void> {
  const res = await request(sys.restUrl, 'GET', '/v1/me', { headers });
  expect(res.status).toBe(401);
  expect(res.body.error).toMatchObject({ code: 'unauthorized', request_id: res.headers.get('x-request-id') });
  expect(JSON.stringify(res.body)).not.toContain(token);
}

/**
 * The admin CLI with --json (read as a script reads it: the API's names and values): through the
 * CLI's code in this process, or as a child process (`child`), as an operator runs it.
 */
function runCli(sys: TestSystem, args: string[], { child = false } = {}): Promise<CliResult> {
  return (child ? runAdminCli : runAdminInProcess)(sys.env, [...args, '--json']);
}

describe.each(storeNames())('OAuth access tokens, local issuer, on %s', (store) => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem({ store, seed });
  });
  afterAll(async () => sys?.stop());

  async function issue(userId: string, scopes: string[], clientId = 'mcp-client') {
    return sys.clients.identity.issueAccessToken({ userId, scopes, clientId, ttlSeconds: 300, requestedRate: 0 }, await operatorOptions(sys));
  }

  it('accepts an issued token: GET /v1/me shows the grant as an oauth credential', async () => {
    const issued = await issue('u_ada', ['search:read', 'profile:read']);
    const res = await me(sys, issued.accessToken);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      key: {
        id: issued.grantId,
        prefix: '',
        environment: 'live',
        kind: 'personal',
        credential: 'oauth',
        rate_tier: 'standard',
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
      owner: { type: 'user', id: 'u_ada', name: 'Ada' },
      scopes: ['search:read', 'profile:read'],
      usage: { requests_today: expect.any(Number), requests_this_month: expect.any(Number), credits_spent_this_month: 0 },
      credit_balance: 100,
    });
    expect(JSON.stringify(res.body)).not.toContain(issued.accessToken);
  });

  it('decides the grant tier at creation: a free user is restricted', async () => {
    const issued = await issue('u_bob', ['search:read']);
    const res = await me(sys, issued.accessToken);
    expect(res.body.key.rate_tier).toBe('restricted');
    expect(res.body.owner).toEqual({ type: 'user', id: 'u_bob', name: 'Bob' });
  });

  it('counts requests per grant', async () => {
    const { accessToken } = await issue('u_ada', ['search:read']);
    const first = await me(sys, accessToken);
    const second = await me(sys, accessToken);
    expect(second.body.usage.requests_today).toBe(first.body.usage.requests_today + 1);
    expect(second.body.usage.requests_this_month).toBe(first.body.usage.requests_this_month + 1);
  });

  it('refuses a revoked grant on its very next request', async () => {
    const issued = await issue('u_ada', ['search:read']);
    expect((await me(sys, issued.accessToken)).status).toBe(200);
    await sys.clients.identity.revokeGrant({ grantId: issued.grantId }, await operatorOptions(sys));
    await expectUnauthorized(sys, issued.accessToken);
  });

  it('refuses a tampered token, one signed by another key, alg none, and a token in X-API-Key', async () => {
    const issued = await issue('u_bob', ['search:read']);
    await expectUnauthorized(sys, tamperPayload(issued.accessToken, (c) => void (c.sub = 'u_ada')));
    await expectUnauthorized(sys, tamperPayload(issued.accessToken, (c) => void (c.exp = (c.exp as number) + 3000)));
    const payload = JSON.parse(Buffer.from(issued.accessToken.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
    await expectUnauthorized(sys, await signToken(testSigningKey('EdDSA'), payload));
    await expectUnauthorized(sys, unsignedToken(payload));
    await expectUnauthorized(sys, issued.accessToken, { 'x-api-key': issued.accessToken });
  });

  it('keeps API keys working beside access tokens', async () => {
    const res = await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(adaKey) });
    expect(res.status).toBe(200);
    expect(res.body.key).toMatchObject({ id: 'k_ada', credential: 'api_key' });
  });

  it('admin CLI: tokens issue prints a working token; tokens list shows the grant; tokens revoke ends it', async () => {
    const issued = await runCli(sys, ['tokens', 'issue', '--user', 'u_ada', '--scopes', 'search:read,profile:read', '--client', 'cli-test', '--ttl', '120'], { child: true });
    expect(issued.stderr).toBe('');
    expect(issued.code).toBe(0);
    const out = JSON.parse(issued.stdout);
    expect(out).toMatchObject({
      access_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      grant_id: expect.stringMatching(/^grant_/),
      expires_at: expect.any(String),
      grant: { user_id: 'u_ada', client_id: 'cli-test', scopes: ['search:read', 'profile:read'] },
    });
    expect(Date.parse(out.expires_at) - Date.now()).toBeLessThanOrEqual(120_000);
    expect((await me(sys, out.access_token)).body.key.id).toBe(out.grant_id);

    const listed = JSON.parse((await runCli(sys, ['tokens', 'list', '--user', 'u_ada'])).stdout);
    expect(listed.grants.map((g: { id: string }) => g.id)).toContain(out.grant_id);
    expect(JSON.stringify(listed)).not.toContain(out.access_token);

    const revoked = await runCli(sys, ['tokens', 'revoke', out.grant_id]);
    expect(revoked.code).toBe(0);
    expect(JSON.parse(revoked.stdout).grant.revoked_at).toBeTruthy();
    await expectUnauthorized(sys, out.access_token);

    const bad = await runCli(sys, ['tokens', 'issue', '--user', 'u_ada', '--scopes', 'search:read', '--ttl', 'soon']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--ttl');
  });
});

describe.each(storeNames())('OAuth access tokens, external issuer (JWKS), on %s', (store) => {
  const ISSUER = 'https://idp.example.test/';
  const AUDIENCE = 'https://api.example.test/v1';
  /** The MCP server's public resource URI (MCP_RESOURCE_URL): the audience the IdP signs for MCP clients. */
  const MCP_RESOURCE = 'https://api.example.test/mcp';
  const published = testSigningKey('ES256', 'idp-2025');
  const rsa = testSigningKey('RS256', 'idp-rsa');
  let jwks: JwksServer;
  let sys: TestSystem;
  let grantId: string;
  const claims = (overrides: Record<string, unknown> = {}) =>
    accessTokenClaims({ iss: ISSUER, aud: AUDIENCE, sub: 'u_ada', scope: 'search:read', grant_id: grantId }, overrides);

  beforeAll(async () => {
    jwks = await startJwksServer([published, rsa]);
    sys = await startTestSystem({
      store,
      seed,
      env: { OAUTH_JWKS_URL: jwks.url, OAUTH_ISSUER: ISSUER, OAUTH_AUDIENCE: AUDIENCE, MCP_RESOURCE_URL: MCP_RESOURCE },
    });
    const { grant } = await sys.clients.identity.createGrant(
      { userId: 'u_ada', scopes: ['search:read', 'profile:read'], clientId: 'https://client.example/app', requestedRate: 0 },
      await operatorOptions(sys),
    );
    grantId = grant!.id;
  });
  afterAll(async () => {
    await sys?.stop();
    await jwks?.close();
  });

  it('runs no authorization server of its own: /oauth is 404 and the MCP metadata names the external issuer', async () => {
    expect((await fetch(`${sys.settingsUrl}/oauth/.well-known/openid-configuration`)).status).toBe(404);
    expect((await fetch(`${sys.settingsUrl}/.well-known/oauth-authorization-server/oauth`)).status).toBe(404);
    const metadata = await fetch(`${new URL(sys.mcpUrl!).origin}/.well-known/oauth-protected-resource`).then((r) => r.json() as Promise<{ authorization_servers: string[] }>);
    expect(metadata.authorization_servers).toEqual([ISSUER]);
  });

  it('accepts a token signed with a published key; the caller gets the token scopes', async () => {
    for (const key of [published, rsa]) {
      const res = await me(sys, await signToken(key, claims()));
      expect(res.status).toBe(200);
      expect(res.body.key).toMatchObject({ id: grantId, credential: 'oauth', kind: 'personal', prefix: '' });
      expect(res.body.scopes).toEqual(['search:read']);
    }
  });

  it('refuses the wrong audience, the wrong issuer, an expired token and one not valid yet', async () => {
    const now = nowSeconds();
    await expectUnauthorized(sys, await signToken(published, claims({ aud: 'https://other.example.test/v1' })));
    await expectUnauthorized(sys, await signToken(published, claims({ iss: 'https://evil.example.test/' })));
    await expectUnauthorized(sys, await signToken(published, claims({ iat: now - 900, exp: now - 120 })));
    await expectUnauthorized(sys, await signToken(published, claims({ nbf: now + 300, exp: now + 600 })));
    await expectUnauthorized(sys, await signToken(published, claims({ iat: now, exp: now + 86_400 })));
  });

  it('keeps the surfaces apart by audience (RFC 8707): an MCP token on MCP only, a REST token on REST only', async () => {
    const mcpInit = (token: string) => request(new URL(sys.mcpUrl!).origin, 'POST', '/mcp', {
      headers: { accept: 'application/json, text/event-stream', ...bearer(token) },
      body: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
    });
    const forMcp = await signToken(published, claims({ aud: MCP_RESOURCE }));
    const forRest = await signToken(published, claims());
    expect((await mcpInit(forMcp)).status).toBe(200);
    await expectUnauthorized(sys, forMcp);
    const refused = await mcpInit(forRest);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('resource_metadata="https://api.example.test/.well-known/oauth-protected-resource"');
    // A token the IdP minted for both resources is good on both.
    const both = await signToken(published, claims({ aud: [AUDIENCE, MCP_RESOURCE] }));
    expect((await mcpInit(both)).status).toBe(200);
    expect((await me(sys, both)).status).toBe(200);
  });

  it('refuses alg none, HS256 keyed with the published public key, and a key the JWKS does not hold', async () => {
    await expectUnauthorized(sys, unsignedToken(claims()));
    await expectUnauthorized(sys, await hs256WithPublicKey(published, claims()));
    await expectUnauthorized(sys, await hs256WithPublicKey(rsa, claims()));
    await expectUnauthorized(sys, await signToken(testSigningKey('ES256', 'idp-2025'), claims()));
    await expectUnauthorized(sys, await signToken(testSigningKey('ES256', 'unknown-kid'), claims()));
  });

  it('refuses scopes wider than the grant, and a grant of another user', async () => {
    await expectUnauthorized(sys, await signToken(published, claims({ scope: 'search:read enrich:write' })));
    await expectUnauthorized(sys, await signToken(published, claims({ sub: 'u_bob' })));
  });

  it('refuses a revoked grant on the very next request', async () => {
    const { grant } = await sys.clients.identity.createGrant(
      { userId: 'u_ada', scopes: ['search:read'], clientId: 'revoke-me', requestedRate: 0 },
      await operatorOptions(sys),
    );
    const token = await signToken(published, claims({ grant_id: grant!.id }));
    expect((await me(sys, token)).status).toBe(200);
    await sys.clients.identity.revokeGrant({ grantId: grant!.id }, await operatorOptions(sys));
    await expectUnauthorized(sys, token);
  });

  it('does not issue tokens itself (unprocessable), through gRPC and the CLI', async () => {
    try {
      await sys.clients.identity.issueAccessToken(
        { userId: 'u_ada', scopes: ['search:read'], clientId: '', ttlSeconds: 0, requestedRate: 0 },
        await operatorOptions(sys),
      );
      throw new Error('expected a refusal');
    } catch (error) {
      expect(readRemoteError(error)?.code).toBe('unprocessable');
    }
    const cli = await runCli(sys, ['tokens', 'issue', '--user', 'u_ada', '--scopes', 'search:read']);
    expect(cli.code).not.toBe(0);
    expect(cli.stderr).toContain('unprocessable');
    const granted = await runCli(sys, ['tokens', 'grant', '--user', 'u_ada', '--scopes', 'search:read', '--client', 'idp-connector']);
    expect(granted.code).toBe(0);
    const grant = JSON.parse(granted.stdout).grant;
    expect((await me(sys, await signToken(published, claims({ grant_id: grant.id })))).body.key.id).toBe(grant.id);
  });
});
