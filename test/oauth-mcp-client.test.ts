// One click, as an assistant does it: the official MCP SDK client's OAuth support against the
// running system. Its first request is refused with a 401 naming the protected-resource metadata;
// it discovers the authorization server from there, registers itself, and hands over an
// authorization URL. A person then signs in and allows it in a real browser (headless Chromium);
// the client exchanges the code, calls a tool, refreshes its tokens, and after the person
// disconnects it on the keys screen its next call is refused. The challenge asks for the Read
// preset; a client asking for every scope gets only the preset unless the person ticks more.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { auth as sdkAuth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { mintSignInLink } from '../deploy/launcher/sign-in-link.js';
import { READ_PRESET, SCOPES } from '../services/kit/scopes.js';
import type { Browser } from 'playwright-core';
import { useSystemWithBrowser } from './helpers/chromium.js';
import type { TestSystem } from './helpers/test-system.js';

const seed: SeedInput = { users: [{ id: 'u_ada', email: 'ada@example.org', name: 'Ada Lovelace', plan: 'paid' }] };
/** The assistant's redirect URI: the browser's navigation there is caught, nothing listens. */
const REDIRECT = 'http://127.0.0.1:9/oauth/callback';

/** An assistant's OAuth storage, in memory: what the SDK asks it to keep and hand back. */
class AssistantAuth implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Desktop Assistant', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'], token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.client = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** A browser page signed in to the settings app as Ada, whose navigations to the redirect URI are caught. */
async function signedInPage(sys: TestSystem, browser: Browser) {
  const page = await (await browser.newContext()).newPage();
  const caught: { to?: URL } = {};
  await page.route(`${REDIRECT}**`, async (route) => {
    caught.to = new URL(route.request().url());
    await route.fulfill({ status: 200, contentType: 'text/plain', body: 'You can go back to the assistant.' });
  });
  const link = await mintSignInLink({ clients: sys.clients, signer: sys.signer, deadlineMs: 10_000 }, sys.settingsUrl!, 'u_ada', 'test');
  await page.goto(link.url);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/keys$/);
  return { page, caught };
}

/** The claims of a JWT access token (not verified: the servers do that). */
const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as { scope?: string };

describe('one-click MCP with the MCP SDK client’s OAuth flow', () => {
  const suite = useSystemWithBrowser(seed);

  it('challenges with the Read preset as its scope, and still lists every scope as supported', async () => {
    const { sys } = suite;
    const refused = await fetch(sys.mcpUrl!, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain(`scope="${READ_PRESET.join(' ')}"`);
    const metadata = await (await fetch(new URL('/.well-known/oauth-protected-resource', sys.mcpUrl!))).json() as { scopes_supported: string[] };
    expect(metadata.scopes_supported).toEqual([...SCOPES]);
  });

  it('grants a client asking for all six scopes the Read preset alone, unless the person ticks more', async () => {
    const { sys, browser } = suite;
    const auth = new AssistantAuth();
    // As a client does that asks for every scope the server supports (and the challenge used to name).
    expect(await sdkAuth(auth, { serverUrl: sys.mcpUrl!, scope: SCOPES.join(' ') })).toBe('REDIRECT');
    expect(auth.authorizationUrl!.searchParams.get('scope')).toBe(SCOPES.join(' '));
    const { page, caught } = await signedInPage(sys, browser);
    await page.goto(auth.authorizationUrl!.href);
    await expect.poll(() => page.locator('main').innerText(), { timeout: 15_000 }).toContain('Desktop Assistant');
    for (const scope of ['self:enrich', 'member:write', 'enrich:write']) {
      expect(await page.getByRole('checkbox', { name: new RegExp(scope) }).isChecked()).toBe(false);
    }
    expect(await page.locator('main').innerText()).toMatch(/self:enrich[^\n]*billable/);
    expect(await page.locator('main').innerText()).toMatch(/member:write[^\n]*API writes/);
    await page.getByRole('button', { name: 'Allow' }).click();
    await expect.poll(() => caught.to?.searchParams.get('code') ?? null, { timeout: 15_000 }).not.toBeNull();
    expect(await sdkAuth(auth, { serverUrl: sys.mcpUrl!, authorizationCode: caught.to!.searchParams.get('code')! })).toBe('AUTHORIZED');
    expect(auth.saved!.scope).toBe(READ_PRESET.join(' '));
    expect(claimsOf(auth.saved!.access_token).scope).toBe(READ_PRESET.join(' '));
    const client = new Client({ name: 'desktop-assistant', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(sys.mcpUrl!), { authProvider: auth }));
    const selfEnrich = await client.callTool({ name: 'enrich_my_profile', arguments: {} });
    expect(selfEnrich.isError).toBe(true);
    expect(JSON.stringify(selfEnrich.content)).toContain('self:enrich');
    expect(JSON.stringify(selfEnrich.content)).toContain('forbidden');
    await client.close();

    // Asked again in another browser (the provider does not ask this session twice: what was
    // left unticked counts as answered), the person ticks member:write: it is granted with the
    // preset, nothing else.
    auth.saved = undefined;
    expect(await sdkAuth(auth, { serverUrl: sys.mcpUrl!, scope: SCOPES.join(' ') })).toBe('REDIRECT');
    const other = await signedInPage(sys, browser);
    await other.page.goto(auth.authorizationUrl!.href);
    await other.page.getByRole('checkbox', { name: /member:write/ }).check();
    await other.page.getByRole('button', { name: 'Allow' }).click();
    await expect.poll(() => other.caught.to?.searchParams.get('code') ?? null, { timeout: 15_000 }).not.toBeNull();
    expect(await sdkAuth(auth, { serverUrl: sys.mcpUrl!, authorizationCode: other.caught.to!.searchParams.get('code')! })).toBe('AUTHORIZED');
    const granted = [...READ_PRESET, 'member:write'].join(' ');
    expect(auth.saved!.scope).toBe(granted);
    expect(claimsOf(auth.saved!.access_token).scope).toBe(granted);

    // Connected applications: the name the consent page showed, with its scopes, newest first.
    await page.goto(`${sys.settingsUrl}/keys`);
    const rows = await page.locator('table:has(caption:text("Applications connected with OAuth")) tbody tr').allInnerTexts();
    expect(rows[0]).toContain('Desktop Assistant');
    expect(rows[0]).toContain(auth.client!.client_id);
    expect(rows[0]).toContain(`${READ_PRESET.join(', ')}, member:write`);
    expect(rows[1]).toContain('Desktop Assistant');
    expect(rows[1]).not.toContain('member:write');
  });

  it('discovers, registers, has the person allow it in the browser, calls a tool, refreshes, and is refused once disconnected', async () => {
    const { sys, browser } = suite;
    const auth = new AssistantAuth();
    const connect = async () => {
      const client = new Client({ name: 'desktop-assistant', version: '1' });
      const transport = new StreamableHTTPClientTransport(new URL(sys.mcpUrl!), { authProvider: auth });
      await client.connect(transport);
      return { client, transport };
    };

    // No credential: the SDK follows the 401 to the metadata, registers, and asks for the browser.
    const first = new StreamableHTTPClientTransport(new URL(sys.mcpUrl!), { authProvider: auth });
    await expect(new Client({ name: 'desktop-assistant', version: '1' }).connect(first)).rejects.toThrow(/Unauthorized/);
    expect(auth.client?.client_id).toBeTruthy();
    const authorizationUrl = auth.authorizationUrl!;
    expect(authorizationUrl.href.startsWith(`${sys.settingsUrl}/oauth/auth`)).toBe(true);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('resource')).toBe(sys.mcpUrl);

    // The person: signs in to the settings app, opens the link, reads the request, allows it.
    const page = await (await browser.newContext()).newPage();
    let redirectedTo: URL | undefined;
    await page.route(`${REDIRECT}**`, async (route) => {
      redirectedTo = new URL(route.request().url());
      await route.fulfill({ status: 200, contentType: 'text/plain', body: 'You can go back to the assistant.' });
    });
    const link = await mintSignInLink({ clients: sys.clients, signer: sys.signer, deadlineMs: 10_000 }, sys.settingsUrl!, 'u_ada', 'test');
    await page.goto(link.url);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/keys$/);
    // Following the challenge, it asks for the Read preset: nothing to untick.
    expect(authorizationUrl.searchParams.get('scope')).toBe(READ_PRESET.join(' '));
    await page.goto(authorizationUrl.href);
    await expect.poll(() => page.locator('main').innerText(), { timeout: 15_000 }).toContain('Desktop Assistant');
    expect(await page.locator('main').innerText()).toMatch(/search:read[\s\S]*profile:read/);
    expect(await page.getByRole('checkbox').count()).toBe(0);
    await page.getByRole('button', { name: 'Allow' }).click();
    await expect.poll(() => redirectedTo?.searchParams.get('code') ?? null, { timeout: 15_000 }).not.toBeNull();

    // The assistant: exchanges the code, connects, calls a tool.
    await first.finishAuth(redirectedTo!.searchParams.get('code')!);
    expect(auth.saved?.access_token).toBeTruthy();
    expect(auth.saved?.refresh_token).toBeTruthy();
    const { client } = await connect();
    const me = await client.callTool({ name: 'whoami', arguments: {} });
    expect(me.isError ?? false).toBe(false);
    const grantId = (me.structuredContent as { key: { id: string } }).key.id;
    expect(grantId).toMatch(/^grant_/);
    await client.close();

    // Refresh, as the SDK does when its access token runs out: new tokens, the same grant.
    const before = { ...auth.saved! };
    expect(await sdkAuth(auth, { serverUrl: sys.mcpUrl! })).toBe('AUTHORIZED');
    expect(auth.saved!.access_token).not.toBe(before.access_token);
    expect(auth.saved!.refresh_token).not.toBe(before.refresh_token);
    const again = await connect();
    expect(((await again.client.callTool({ name: 'whoami', arguments: {} })).structuredContent as { key: { id: string } }).key.id).toBe(grantId);
    await again.client.close();

    // The person disconnects it on the keys screen; its next call is refused.
    await page.goto(`${sys.settingsUrl}/keys`);
    await page.getByRole('link', { name: new RegExp(`Revoke Desktop Assistant ${auth.client!.client_id}`) }).click();
    await expect.poll(() => page.locator('main').innerText()).toContain('Disconnect Desktop Assistant');
    await page.getByRole('button', { name: 'Revoke access' }).click();
    await page.waitForURL(/\/keys\?revoked_grant=/);
    const after = new StreamableHTTPClientTransport(new URL(sys.mcpUrl!), {
      requestInit: { headers: { authorization: `Bearer ${auth.saved!.access_token}` } },
    });
    await expect(new Client({ name: 'desktop-assistant', version: '1' }).connect(after)).rejects.toThrow(/"code":"unauthorized","message":"access token grant is revoked or unknown"/);
  });
});
