// The settings app's CSRF tokens over HTTP: a form's token verifies only with the session it was
// made for (a pair from an anonymous page, another user's session, or the same user's previous
// session is refused: 403, nothing changes); a signed-out form's token only in the browser whose
// pre-session it was made for, and never posted from another origin; the legitimate forms still
// work; behind https every cookie (the OpenID Connect sign-in's too) carries the __Host- prefix.
// The same attacks from a page in a real browser: settings-csrf-browser.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { mintSignInLink } from '../deploy/launcher/sign-in-link.js';
import { callAs } from '../services/kit/grpc/client.js';
import { startIdentityProvider, type TestIdentityProvider } from './helpers/oidc-identity-provider.js';
import { CSRF_COOKIE, csrfTokenOf, PRE_SESSION_COOKIE, SESSION_COOKIE, SettingsClient } from './helpers/settings-browser-http.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const seed: SeedInput = {
  users: [
    { id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' },
    { id: 'u_mal', email: 'mal@example.org', name: 'Mallory', plan: 'paid' },
  ],
};

/** A page's CSRF cookie and token, as an attacker who opened it holds them. */
async function pairOf(client: SettingsClient, path: string) {
  const page = await client.get(path);
  return { cookie: client.cookies.get(CSRF_COOKIE)!, token: csrfTokenOf(page.text) };
}

describe('settings web app: CSRF tokens bound to the session', () => {
  let sys: TestSystem;
  let base: string;
  beforeAll(async () => {
    sys = await startTestSystem({ seed });
    base = sys.settingsUrl!;
  });
  afterAll(async () => sys?.stop());

  const keysOf = async (userId: string) => {
    const call = await callAs(sys.signer, { kind: 'operator', actor: 'csrf-test' }, undefined, 10_000);
    return (await sys.clients.identity.listKeys({ userId, pageSize: 100, pageToken: '' }, call)).keys;
  };
  const linkFor = async (userId: string) =>
    (await mintSignInLink({ clients: sys.clients, signer: sys.signer, deadlineMs: 10_000 }, base, userId, 'test')).url;

  it('refuses a token from an anonymous page, another user’s session or the same user’s previous session (403), minting nothing', async () => {
    const ada = new SettingsClient(base);
    await ada.signIn(sys, 'u_ada');
    const anonymous = await pairOf(new SettingsClient(base), '/sign-in/link?token=x');
    const mallory = new SettingsClient(base);
    await mallory.signIn(sys, 'u_mal');
    const otherSession = await pairOf(mallory, '/keys');
    const previous = await pairOf(ada, '/keys');
    await ada.signIn(sys, 'u_ada'); // the session id rotates: the pages of the one before are too old

    const before = (await keysOf('u_ada')).length;
    for (const pair of [anonymous, otherSession, previous]) {
      ada.cookies.set(CSRF_COOKIE, pair.cookie);
      const forged = await ada.send('POST', '/keys', { _csrf: pair.token, preset: 'read' });
      expect(forged.status).toBe(403);
      expect(forged.text).toContain('not sent from a page of this site in your current session');
    }
    expect((await keysOf('u_ada')).length).toBe(before);
    // The session is untouched: its own page's token works.
    expect((await ada.submit('/keys', '/keys', { preset: 'read' })).status).toBe(303);
    expect((await keysOf('u_ada')).length).toBe(before + 1);
  });

  it('keeps the legitimate forms working: revoke and sign-out with the page’s token', async () => {
    const ada = new SettingsClient(base);
    await ada.signIn(sys, 'u_ada');
    const minted = await ada.submit('/keys', '/keys', { preset: 'read', name: 'to revoke' });
    expect(minted.status).toBe(303);
    const key = (await keysOf('u_ada')).find((k) => k.name === 'to revoke' && !k.revokedAt)!;
    expect((await ada.submit(`/keys/${key.id}/revoke`, `/keys/${key.id}/revoke`)).status).toBe(303);
    expect((await keysOf('u_ada')).find((k) => k.id === key.id)!.revokedAt).toBeTruthy();
    expect((await ada.submit('/keys', '/sign-out')).status).toBe(303);
    expect(ada.cookies.has(SESSION_COOKIE)).toBe(false);
  });

  it('binds a sign-in form to its browser’s pre-session: another browser cannot use its token, and the link stays unused', async () => {
    const link = await linkFor('u_ada');
    const path = link.slice(base.length);
    const token = new URL(link).searchParams.get('token')!;
    const first = new SettingsClient(base);
    const pair = await pairOf(first, path);
    expect(first.cookies.get(PRE_SESSION_COOKIE)).toBeTruthy();

    // Another browser, with a pre-session of its own (it opened a sign-in page) or none at all.
    const withOwn = new SettingsClient(base);
    await withOwn.get('/sign-in/link?token=other');
    const withNone = new SettingsClient(base);
    for (const other of [withOwn, withNone]) {
      other.cookies.set(CSRF_COOKIE, pair.cookie);
      const forged = await other.send('POST', '/sign-in/link', { _csrf: pair.token, token });
      expect(forged.status).toBe(403);
      expect(other.cookies.has(SESSION_COOKIE)).toBe(false);
    }
    // The browser the page was opened in signs in with it: the link was not used up.
    const signedIn = await first.send('POST', '/sign-in/link', { _csrf: pair.token, token });
    expect(signedIn.status).toBe(303);
    expect(first.cookies.has(SESSION_COOKIE)).toBe(true);
  });

  it('refuses a sign-in form another origin posted (Fetch Metadata), whatever cookies and token it carries', async () => {
    const link = await linkFor('u_ada');
    const browser = new SettingsClient(base);
    const pair = await pairOf(browser, link.slice(base.length));
    const token = new URL(link).searchParams.get('token')!;
    const headers = { cookie: [...browser.cookies].map(([n, v]) => `${n}=${v}`).join('; '), 'content-type': 'application/x-www-form-urlencoded' };
    for (const site of ['same-site', 'cross-site']) {
      const answer = await fetch(`${base}/sign-in/link`, {
        method: 'POST', redirect: 'manual', headers: { ...headers, 'sec-fetch-site': site }, body: new URLSearchParams({ _csrf: pair.token, token }),
      });
      expect(answer.status).toBe(403);
    }
    const sameOrigin = await fetch(`${base}/sign-in/link`, {
      method: 'POST', redirect: 'manual', headers: { ...headers, 'sec-fetch-site': 'same-origin' }, body: new URLSearchParams({ _csrf: pair.token, token }),
    });
    expect(sameOrigin.status).toBe(303);
  });
});

describe('settings web app behind https: every cookie carries the __Host- prefix', () => {
  let idp: TestIdentityProvider;
  let sys: TestSystem;
  beforeAll(async () => {
    idp = await startIdentityProvider();
    idp.register({ client_id: 'settings-app', token_endpoint_auth_method: 'none', redirect_uris: ['https://settings.example.test/sign-in/oidc/callback'] });
    sys = await startTestSystem({
      seed, env: { SETTINGS_PUBLIC_URL: 'https://settings.example.test', SETTINGS_OIDC_ISSUER: idp.issuer, SETTINGS_OIDC_CLIENT_ID: 'settings-app' },
    });
  });
  afterAll(async () => {
    await sys?.stop();
    await idp?.stop();
  });

  /** The Set-Cookie line of `name`, checked to be a __Host- cookie: Secure, Path=/, no Domain. */
  function hostCookie(headers: Headers, name: string): string {
    const line = headers.getSetCookie().find((c) => c.startsWith(`__Host-${name}=`));
    expect(line, `Set-Cookie __Host-${name}`).toBeDefined();
    expect(line).toMatch(/; Secure/i);
    expect(line).toMatch(/; Path=\/(;|$)/);
    expect(line).not.toMatch(/Domain=/i);
    expect(line).toMatch(/HttpOnly/i);
    return line!;
  }

  it('sets the CSRF, pre-session, return and session cookies as __Host- cookies, and the forms work with them', async () => {
    const browser = new SettingsClient(sys.settingsUrl!);
    const remembered = await browser.get('/sign-in?next=/authorize/abc');
    hostCookie(remembered.headers, 'en_return');
    const link = await mintSignInLink({ clients: sys.clients, signer: sys.signer, deadlineMs: 10_000 }, sys.settingsUrl!, 'u_ada', 'test');
    const page = await browser.get(link.url.slice(sys.settingsUrl!.length));
    hostCookie(page.headers, 'en_csrf');
    hostCookie(page.headers, 'en_presession');
    expect(page.headers.getSetCookie().filter((c) => !c.startsWith('__Host-'))).toEqual([]);

    const signedIn = await browser.send('POST', '/sign-in/link', { _csrf: csrfTokenOf(page.text), token: new URL(link.url).searchParams.get('token')! });
    expect(signedIn.status).toBe(303);
    hostCookie(signedIn.headers, 'en_settings');
    expect(signedIn.headers.getSetCookie().filter((c) => !c.startsWith('__Host-'))).toEqual([]);
    expect((await browser.submit('/keys', '/keys', { preset: 'read' })).status).toBe(303);
  });

  it('keeps an OpenID Connect sign-in in progress in a __Host- cookie', async () => {
    const browser = new SettingsClient(sys.settingsUrl!);
    const start = await browser.get('/sign-in/oidc');
    expect(start.status).toBe(303);
    hostCookie(start.headers, 'en_oidc');
  });
});
