// The OAuth authorization server one-click MCP clients connect through, end to end over HTTP on the
// running system: its RFC 8414 metadata names the system's own URLs (the ports it bound), dynamic
// client registration, the authorization code flow with PKCE (S256) and a resource indicator, the
// signed-in user's consent on the settings app's page, the token exchange, a tool call with the
// token, refresh with rotation, revoke on the keys screen → 401; and the refusals: no or plain
// PKCE, an unregistered redirect URI, a resource that is not this system's, a denied consent, a
// REST token sent to MCP.
import { createHash, randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { bearer, request } from './helpers/http.js';
import { payloadOf } from './helpers/oauth.js';
import { followRedirects } from './helpers/oidc-identity-provider.js';
import { csrfTokenOf, SettingsClient } from './helpers/settings-browser-http.js';
import { storeNames } from './helpers/stores.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const seed: SeedInput = { users: [{ id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' }] };
/** Where the client says the answer goes: nothing listens there, the test reads the redirect. */
const REDIRECT = 'http://127.0.0.1:9/callback';
const atRedirect = (next: URL) => next.href.startsWith(REDIRECT);

describe.each(storeNames())('the OAuth authorization server (one-click MCP) on %s', (store) => {
  let sys: TestSystem;
  let issuer: string;
  let ada: SettingsClient;
  beforeAll(async () => {
    sys = await startTestSystem({ store, seed, env: { MCP_PORT: '0' } });
    issuer = `${sys.settingsUrl}/oauth`;
    ada = new SettingsClient(sys.settingsUrl!);
    await ada.signIn(sys, 'u_ada');
  });
  afterAll(async () => sys?.stop());

  async function register(): Promise<string> {
    const response = await request(sys.settingsUrl!, 'POST', '/oauth/reg', {
      body: { redirect_uris: [REDIRECT], client_name: 'Desk Assistant', token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] },
    });
    expect(response.status).toBe(201);
    return response.body.client_id as string;
  }

  function authorizeUrl(clientId: string, params: Record<string, string> = {}) {
    const verifier = randomBytes(32).toString('base64url');
    const url = new URL(`${issuer}/auth`);
    const query: Record<string, string> = {
      client_id: clientId, response_type: 'code', redirect_uri: REDIRECT, scope: 'search:read profile:read offline_access',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256',
      state: randomBytes(8).toString('hex'), resource: sys.mcpUrl!, ...params,
    };
    for (const [k, v] of Object.entries(query)) if (v !== '') url.searchParams.set(k, v);
    return { url: url.href, verifier };
  }

  /** The signed-in browser's cookies, as a jar per origin. */
  const browserJars = () => new Map([[new URL(sys.settingsUrl!).origin, new Map(ada.cookies)]]);

  /** Authorizes as Ada and answers the consent page; the redirect to the client (code or error). */
  async function consent(clientId: string, decision: 'approve' | 'deny', params: Record<string, string> = {}) {
    const { url, verifier } = authorizeUrl(clientId, params);
    const jars = browserJars();
    const page = await followRedirects(url, jars, atRedirect);
    expect(page.status).toBe(200);
    expect(page.url).toMatch(/\/authorize\/[\w-]+$/);
    const answer = await followRedirects(page.url, jars, atRedirect, { _csrf: csrfTokenOf(page.text), decision });
    return { page, location: new URL(answer.location!), verifier };
  }

  const token = (form: Record<string, string>) =>
    fetch(`${issuer}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) })
      .then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, string> }));

  async function mcpWhoami(accessToken: string) {
    const client = new Client({ name: 'oauth-as-test', version: '1' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(sys.mcpUrl!), { requestInit: { headers: bearer(accessToken) } }));
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      return { ok: !result.isError, content: result.structuredContent as Record<string, any> };
    } catch {
      return { ok: false, content: undefined };
    } finally {
      await client.close().catch(() => undefined);
    }
  }

  it('publishes RFC 8414 metadata naming the bound settings URL, which the MCP server names as its authorization server', async () => {
    const metadata = await request(sys.settingsUrl!, 'GET', '/.well-known/oauth-authorization-server/oauth');
    expect(metadata.status).toBe(200);
    expect(metadata.body).toMatchObject({
      issuer, authorization_endpoint: `${issuer}/auth`, token_endpoint: `${issuer}/token`, registration_endpoint: `${issuer}/reg`,
      code_challenge_methods_supported: ['S256'], response_types_supported: ['code'],
    });
    expect(metadata.body.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token']));
    expect(issuer).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*\/oauth$/);
    const resource = await request(new URL(sys.mcpUrl!).origin, 'GET', '/.well-known/oauth-protected-resource');
    expect(resource.body.authorization_servers).toEqual([issuer]);
  });

  it('registers a client, shows the consent, exchanges the code (PKCE) for a token the MCP server accepts, refreshes with rotation, and a revoke on the keys screen ends it', async () => {
    const clientId = await register();
    const { page, location, verifier } = await consent(clientId, 'approve');
    expect(page.text).toContain('<strong>Desk Assistant</strong>');
    expect(page.text).toContain(`<code>search:read</code>`);
    expect(page.text).toContain(`<code>profile:read</code>`);
    expect(page.text).not.toContain('<code>self:enrich</code>');
    const code = location.searchParams.get('code')!;
    expect(code).toBeTruthy();

    const exchanged = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: clientId, code_verifier: verifier });
    expect(exchanged.status).toBe(200);
    const claims = payloadOf(exchanged.body.access_token!);
    expect(claims).toMatchObject({ iss: issuer, aud: sys.mcpUrl, sub: 'u_ada', grant_id: expect.stringMatching(/^grant_/) });
    expect(String(claims.scope).split(' ').sort()).toEqual(['profile:read', 'search:read']);
    expect(Number(claims.exp) - Number(claims.iat)).toBeLessThanOrEqual(3600);

    const me = await mcpWhoami(exchanged.body.access_token!);
    expect(me.ok).toBe(true);
    expect(me.content?.key).toMatchObject({ id: claims.grant_id, credential: 'oauth' });
    // A token for the MCP server is not one for the REST API.
    expect((await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(exchanged.body.access_token!) })).status).toBe(401);

    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: exchanged.body.refresh_token!, client_id: clientId });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(exchanged.body.refresh_token);
    expect(payloadOf(refreshed.body.access_token!).grant_id).toBe(claims.grant_id);
    expect((await mcpWhoami(refreshed.body.access_token!)).ok).toBe(true);
    const reused = await token({ grant_type: 'refresh_token', refresh_token: exchanged.body.refresh_token!, client_id: clientId });
    expect(reused.body.error).toBe('invalid_grant');

    const keys = await ada.get('/keys');
    expect(keys.text).toContain(`<code>${clientId}</code>`);
    const revoked = await ada.submit('/keys', `/grants/${claims.grant_id}/revoke`);
    expect(revoked.status).toBe(303);
    expect((await mcpWhoami(refreshed.body.access_token!)).ok).toBe(false);
    const afterRevoke = await token({ grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token!, client_id: clientId });
    expect(afterRevoke.body.error).toBe('invalid_grant');
  });

  it('issues a token for the REST API when asked for it: accepted there, refused by the MCP server', async () => {
    const clientId = await register();
    // The REST API's audience names the port it bound, like the issuer and the MCP resource.
    const restAudience = `${sys.restUrl}/v1`;
    const { location, verifier } = await consent(clientId, 'approve', { resource: restAudience });
    const exchanged = await token({ grant_type: 'authorization_code', code: location.searchParams.get('code')!, redirect_uri: REDIRECT, client_id: clientId, code_verifier: verifier });
    expect(payloadOf(exchanged.body.access_token!).aud).toBe(restAudience);
    expect((await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(exchanged.body.access_token!) })).status).toBe(200);
    expect((await mcpWhoami(exchanged.body.access_token!)).ok).toBe(false);
  });

  it('gives a client that names no resource a token for the MCP server, after one consent', async () => {
    const clientId = await register();
    const { page, location, verifier } = await consent(clientId, 'approve', { resource: '' });
    expect(page.text).toContain(`on the MCP server (<code>${sys.mcpUrl}</code>)`);
    const exchanged = await token({ grant_type: 'authorization_code', code: location.searchParams.get('code')!, redirect_uri: REDIRECT, client_id: clientId, code_verifier: verifier });
    expect(payloadOf(exchanged.body.access_token!).aud).toBe(sys.mcpUrl);
    expect((await mcpWhoami(exchanged.body.access_token!)).ok).toBe(true);
  });

  it('sends the client access_denied when the user denies, and creates no grant', async () => {
    const clientId = await register();
    const { location } = await consent(clientId, 'deny');
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect((await ada.get('/keys')).text).not.toContain(`<code>${clientId}</code>`);
  });

  it('refuses an authorization request without PKCE, with plain PKCE, or for a resource that is not this system’s', async () => {
    const clientId = await register();
    for (const [params, error, description] of [
      [{ code_challenge: '', code_challenge_method: '' }, 'invalid_request', /requires PKCE/],
      [{ code_challenge_method: 'plain' }, 'invalid_request', /code_challenge_method/],
      [{ resource: 'https://elsewhere.example/api' }, 'invalid_target', /not a resource of this system|resource/],
    ] as const) {
      const answer = await followRedirects(authorizeUrl(clientId, params).url, browserJars(), atRedirect);
      const location = new URL(answer.location!);
      expect(location.searchParams.get('error')).toBe(error);
      expect(location.searchParams.get('error_description')).toMatch(description);
    }
  });

  it('never redirects to a URI the client did not register', async () => {
    const clientId = await register();
    const answer = await followRedirects(authorizeUrl(clientId, { redirect_uri: 'https://attacker.example/cb' }).url, browserJars(), () => true);
    expect(answer.status).toBe(400);
    expect(answer.location).toBeNull();
    expect(answer.text).toContain('redirect_uri');
  });

  it('sends a browser that is not signed in to sign in, and back to the consent page after', async () => {
    const clientId = await register();
    const jars = new Map<string, Map<string, string>>();
    const toSignIn = await followRedirects(authorizeUrl(clientId).url, jars, (next) => next.pathname === '/sign-in');
    expect(new URL(toSignIn.location!).searchParams.get('next')).toMatch(/^\/authorize\/[\w-]+$/);
    await followRedirects(toSignIn.location!, jars);
    const browser = new SettingsClient(sys.settingsUrl!);
    for (const [name, value] of jars.get(new URL(sys.settingsUrl!).origin)!) browser.cookies.set(name, value);
    const signedIn = await browser.signIn(sys, 'u_ada');
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe(new URL(toSignIn.location!).searchParams.get('next'));
  });
});
