// Client ID metadata documents, the way current MCP clients may name themselves: by the https URL of
// their metadata document instead of registering. The authorization server advertises them, fetches
// a client's document when the client first appears, and runs the whole flow with it — consent
// naming the document's client, the code exchanged for a token the MCP server accepts — while
// keeping no client registration. A document that cannot be fetched, names another client_id or
// carries a secret is refused as the client's error, and the browser is sent nowhere.
//
// The system fetches only from public addresses (loopback, private ranges: SSRF protection,
// gateway/settings/guarded-fetch.ts), and this machine has no other. So the suite hands the system
// a fetch that reaches the document server below under a public name (`https://assistant.example`,
// plain HTTP on loopback underneath, through the same guarded fetch with private addresses
// explicitly allowed); every other URL goes through the system's default guarded fetch.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import type { OutgoingFetch } from '../gateway/settings/authorization-server.js';
import { guardedFetch } from '../gateway/settings/guarded-fetch.js';
import { bearer, request } from './helpers/http.js';
import { payloadOf } from './helpers/oauth.js';
import { followRedirects } from './helpers/oidc-identity-provider.js';
import { csrfTokenOf, SettingsClient } from './helpers/settings-browser-http.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const seed: SeedInput = { users: [{ id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' }] };
const REDIRECT = 'http://127.0.0.1:9/callback';
const atRedirect = (next: URL) => next.href.startsWith(REDIRECT);
const PUBLIC_ORIGIN = 'https://assistant.example';

/** What the document server answers per path, and how often each was fetched. */
const documents = new Map<string, Record<string, unknown>>();
const fetches = new Map<string, number>();

const clientDocument = (path: string, extra: Record<string, unknown> = {}) => ({
  client_id: `${PUBLIC_ORIGIN}${path}`, client_name: 'Metadata Assistant', redirect_uris: [REDIRECT],
  grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', ...extra,
});

describe('OAuth client ID metadata documents', () => {
  let sys: TestSystem;
  let ada: SettingsClient;
  let documentServer: Server;
  beforeAll(async () => {
    documentServer = createServer((req, res) => {
      fetches.set(req.url!, (fetches.get(req.url!) ?? 0) + 1);
      const document = documents.get(req.url!);
      res.writeHead(document ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(document ?? {}));
    });
    await new Promise<void>((resolve) => documentServer.listen(0, '127.0.0.1', resolve));
    const local = `http://127.0.0.1:${(documentServer.address() as AddressInfo).port}`;
    const publicOnly = guardedFetch();
    const documentServerToo = guardedFetch({ allowPrivateAddresses: true });
    const clientMetadataFetch: OutgoingFetch = (url, init) => url.startsWith(`${PUBLIC_ORIGIN}/`)
      ? documentServerToo(`${local}${url.slice(PUBLIC_ORIGIN.length)}`, init)
      : publicOnly(url, init);
    sys = await startTestSystem({ seed, env: { MCP_PORT: '0' }, hooks: { clientMetadataFetch } });
    ada = new SettingsClient(sys.settingsUrl!);
    await ada.signIn(sys, 'u_ada');
  });
  afterAll(async () => {
    await sys?.stop();
    await new Promise((resolve) => documentServer?.close(resolve));
  });

  function authorizeUrl(clientId: string) {
    const verifier = randomBytes(32).toString('base64url');
    const url = new URL(`${sys.settingsUrl}/oauth/auth`);
    for (const [k, v] of Object.entries({
      client_id: clientId, response_type: 'code', redirect_uri: REDIRECT, scope: 'profile:read offline_access', resource: sys.mcpUrl!,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256',
    })) url.searchParams.set(k, v);
    return { url: url.href, verifier };
  }
  const browserJars = () => new Map([[new URL(sys.settingsUrl!).origin, new Map(ada.cookies)]]);
  const keptClients = () => sys.db!.query(`SELECT id FROM edge.oauth_state WHERE model = 'Client'`);

  it('are advertised in the authorization server metadata', async () => {
    const metadata = await request(sys.settingsUrl!, 'GET', '/.well-known/oauth-authorization-server/oauth');
    expect(metadata.body.client_id_metadata_document_supported).toBe(true);
  });

  it('let a client named by its document URL get consent, a code and a token the MCP server accepts, with no registration kept', async () => {
    const path = '/oauth/client.json';
    documents.set(path, clientDocument(path));
    const clientId = `${PUBLIC_ORIGIN}${path}`;
    const { url, verifier } = authorizeUrl(clientId);
    const jars = browserJars();
    const consentPage = await followRedirects(url, jars, atRedirect);
    expect(consentPage.status).toBe(200);
    expect(consentPage.text).toContain('<strong>Metadata Assistant</strong>');
    const answer = await followRedirects(consentPage.url, jars, atRedirect, { _csrf: csrfTokenOf(consentPage.text), decision: 'approve' });
    const code = new URL(answer.location!).searchParams.get('code')!;
    expect(code).toBeTruthy();

    const exchanged = await fetch(`${sys.settingsUrl}/oauth/token`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: clientId, code_verifier: verifier }),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, string> }));
    expect(exchanged.status).toBe(200);
    expect(payloadOf(exchanged.body.access_token!)).toMatchObject({ aud: sys.mcpUrl, sub: 'u_ada', client_id: clientId });

    const mcp = new Client({ name: 'cimd-test', version: '1' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(sys.mcpUrl!), { requestInit: { headers: bearer(exchanged.body.access_token!) } }));
    const whoami = await mcp.callTool({ name: 'whoami', arguments: {} });
    await mcp.close();
    expect(whoami.isError).toBeFalsy();
    expect((whoami.structuredContent as Record<string, any>).key).toMatchObject({ credential: 'oauth' });

    // Fetched when the client first appeared, then served from the provider's cache.
    expect(fetches.get(path)).toBe(1);
    expect((await ada.get('/keys')).text).toContain(`<code>${clientId}</code>`);
    expect(await keptClients()).toEqual([]);
  });

  it.each([
    ['cannot be fetched', '/oauth/missing.json', undefined, 'invalid_client: client_id metadata document fetch failed'],
    ['names another client_id', '/oauth/impostor.json', { client_id: `${PUBLIC_ORIGIN}/oauth/other.json` }, 'client_id does not match'],
    ['carries a client secret', '/oauth/secret.json', { client_secret: 'shh' }, 'must not contain client_secret'],
  ])('refuse a client whose document %s, with no redirect and no client kept', async (_case, path, override, message) => {
    if (override) documents.set(path, clientDocument(path, override));
    const answer = await followRedirects(authorizeUrl(`${PUBLIC_ORIGIN}${path}`).url, browserJars(), () => true);
    expect(answer.status).toBe(400);
    expect(answer.location).toBeNull();
    expect(answer.text).toContain(message);
    expect(await keptClients()).toEqual([]);
  });

  it('refuse a client_id URL on a special-use address: the system does not fetch from this machine', async () => {
    const answer = await followRedirects(authorizeUrl('https://127.0.0.1:9/assistant.json').url, browserJars(), () => true);
    expect(answer.status).toBe(400);
    expect(answer.location).toBeNull();
    expect(answer.text).toContain('invalid_client: client_id metadata document fetch failed');
    expect(await keptClients()).toEqual([]);
  });
});
