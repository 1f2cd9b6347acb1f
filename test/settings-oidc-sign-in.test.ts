// Sign-in to the settings web app at an external OpenID Connect provider: a real provider
// (oidc-provider) on this machine, the app configured by environment as its confidential client,
// and a browser's redirects followed over HTTP. The authorization code flow with PKCE (S256), a
// state and a nonce; the identity is linked to the user with its verified e-mail address once and
// found by its subject after; a refusal opens no session and says what to do.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { followRedirects, startIdentityProvider, type TestIdentityProvider } from './helpers/oidc-identity-provider.js';
import { SESSION_COOKIE, SettingsClient } from './helpers/settings-browser-http.js';
import { storeNames } from './helpers/stores.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const seed: SeedInput = {
  users: [
    { id: 'u_ada', email: 'ada@example.org', name: 'Ada Lovelace', plan: 'paid' },
    { id: 'u_bob', email: 'bob@example.org', name: 'Bob', plan: 'free' },
  ],
};

describe.each(storeNames())('settings web app: sign-in at an OpenID Connect provider on %s', (store) => {
  let idp: TestIdentityProvider;
  let sys: TestSystem;
  let base: string;
  beforeAll(async () => {
    idp = await startIdentityProvider();
    sys = await startTestSystem({
      store, seed,
      env: { SETTINGS_OIDC_ISSUER: idp.issuer, SETTINGS_OIDC_CLIENT_ID: 'settings-app', SETTINGS_OIDC_CLIENT_SECRET: 'a-client-secret-for-tests', SETTINGS_OIDC_NAME: 'Example SSO' },
    });
    base = sys.settingsUrl!;
    idp.register({ client_id: 'settings-app', client_secret: 'a-client-secret-for-tests', redirect_uris: [`${base}/sign-in/oidc/callback`] });
    idp.accounts.set('sub-ada', { email: 'Ada@Example.org', email_verified: true, name: 'Ada at SSO' });
    idp.accounts.set('sub-unverified', { email: 'bob@example.org', email_verified: false });
    idp.accounts.set('sub-stranger', { email: 'stranger@example.org', email_verified: true });
  });
  afterAll(async () => {
    await sys?.stop();
    await idp?.stop();
  });

  const isCallback = (next: URL) => next.origin === new URL(base).origin && next.pathname === '/sign-in/oidc/callback';
  /** Starts a sign-in as `subject` in `jars` and follows it to the app's answer to the callback. */
  async function signInAs(subject: string | null, jars = new Map<string, Map<string, string>>()) {
    idp.nextLogin = subject;
    const atCallback = await followRedirects(`${base}/sign-in/oidc`, jars, isCallback);
    const answer = await followRedirects(atCallback.location!, jars, (next) => next.origin === new URL(base).origin);
    return { atCallback, answer, jar: jars.get(new URL(base).origin)!, jars };
  }
  const linkedUser = async (subject: string) =>
    (await sys.db!.query<{ user_id: string }>('SELECT user_id FROM identity.external_identities WHERE issuer = $1 AND subject = $2', [idp.issuer, subject]))[0]?.user_id;

  it('offers the provider on the sign-in page and sends the browser there with PKCE (S256), a state and a nonce', async () => {
    const page = await new SettingsClient(base).get('/sign-in');
    expect(page.text).toContain('<a class="button" href="/sign-in/oidc">Sign in with Example SSO</a>');
    const start = await fetch(`${base}/sign-in/oidc`, { redirect: 'manual' });
    expect(start.status).toBe(303);
    const to = new URL(start.headers.get('location')!);
    expect(to.origin).toBe(idp.issuer);
    expect(Object.fromEntries(to.searchParams)).toMatchObject({
      client_id: 'settings-app', response_type: 'code', code_challenge_method: 'S256',
      redirect_uri: `${base}/sign-in/oidc/callback`, scope: 'openid email profile',
    });
    for (const name of ['code_challenge', 'state', 'nonce']) expect(to.searchParams.get(name)).toMatch(/^[\w-]{20,}$/);
    const pending = start.headers.getSetCookie().find((c) => c.startsWith('en_oidc='))!;
    expect(pending).toMatch(/HttpOnly/i);
    expect(pending).toMatch(/SameSite=Lax/i);
    // Path=/, as the __Host- prefix it carries behind TLS requires.
    expect(pending).toMatch(/Path=\/(;|$)/);
  });

  it('signs in the user whose verified e-mail address the provider gives, rotating the session the browser held', async () => {
    const jars = new Map<string, Map<string, string>>();
    const before = new SettingsClient(base);
    await before.signIn(sys, 'u_bob');
    const oldSession = before.cookies.get(SESSION_COOKIE)!;
    jars.set(new URL(base).origin, new Map(before.cookies));

    const { answer, jar } = await signInAs('sub-ada', jars);
    expect(answer.status).toBe(303);
    expect(answer.location).toBe(`${base}/keys`);
    expect(jar.get(SESSION_COOKIE)).toBeTruthy();
    expect(jar.get(SESSION_COOKIE)).not.toBe(oldSession);
    expect(jar.has('en_oidc')).toBe(false);
    const signedIn = new SettingsClient(base);
    for (const [name, value] of jar) signedIn.cookies.set(name, value);
    const keys = await signedIn.get('/keys');
    expect(keys.status).toBe(200);
    expect(keys.text).toContain('Ada Lovelace');
    expect(await linkedUser('sub-ada')).toBe('u_ada');
    // The session the browser held before signing in has ended.
    expect((await before.get('/keys')).status).toBe(303);
  });

  it('finds a linked identity by its subject, even after the provider changes its e-mail address', async () => {
    await signInAs('sub-ada');
    idp.accounts.set('sub-ada', { email: 'ada.lovelace@elsewhere.example', email_verified: true });
    const { answer } = await signInAs('sub-ada');
    expect(answer.status).toBe(303);
    expect(answer.location).toBe(`${base}/keys`);
    expect(await linkedUser('sub-ada')).toBe('u_ada');
  });

  it('refuses an identity whose e-mail address is not verified, or which no account uses, opening no session', async () => {
    const unverified = await signInAs('sub-unverified');
    expect(unverified.answer.status).toBe(401);
    expect(unverified.answer.text).toContain('your provider gave no verified e-mail address');
    expect(unverified.jar.has(SESSION_COOKIE)).toBe(false);
    const stranger = await signInAs('sub-stranger');
    expect(stranger.answer.status).toBe(401);
    expect(stranger.answer.text).toContain('no account uses the e-mail address your provider gave; ask an operator to add you');
    expect(stranger.jar.has(SESSION_COOKIE)).toBe(false);
    expect(await linkedUser('sub-unverified')).toBeUndefined();
    expect(await linkedUser('sub-stranger')).toBeUndefined();
  });

  it('says so when the person cancels at the provider', async () => {
    const { answer, jar } = await signInAs(null);
    expect(answer.status).toBe(401);
    expect(answer.text).toContain('Your identity provider did not sign you in (access_denied)');
    expect(jar.has(SESSION_COOKIE)).toBe(false);
  });

  it('refuses a callback this browser did not start, and one whose state was changed, opening no session', async () => {
    idp.nextLogin = 'sub-ada';
    const jars = new Map<string, Map<string, string>>();
    const { location } = await followRedirects(`${base}/sign-in/oidc`, jars, isCallback);
    // Another browser (no pending cookie) brings the code back.
    const elsewhere = await followRedirects(location!, new Map(), () => true);
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.text).toContain('This sign-in was not started in this browser');
    expect(elsewhere.text).not.toContain(new URL(location!).searchParams.get('code')!);

    idp.nextLogin = 'sub-ada';
    const again = await followRedirects(`${base}/sign-in/oidc`, jars, isCallback);
    const tampered = new URL(again.location!);
    tampered.searchParams.set('state', 'not-the-state-this-browser-was-given');
    const answer = await followRedirects(tampered.href, jars, () => true);
    expect(answer.status).toBe(401);
    expect(answer.text).toContain('The answer of your identity provider could not be verified');
    expect(jars.get(new URL(base).origin)!.has(SESSION_COOKIE)).toBe(false);
  });
});

describe('settings web app: an OpenID Connect provider that cannot be reached', () => {
  let idp: TestIdentityProvider;
  let sys: TestSystem;
  beforeAll(async () => {
    // Never registered: the provider answers 503 to everything, its discovery document included.
    idp = await startIdentityProvider();
    sys = await startTestSystem({ seed, env: { SETTINGS_OIDC_ISSUER: idp.issuer, SETTINGS_OIDC_CLIENT_ID: 'settings-app' } });
  });
  afterAll(async () => {
    await sys?.stop();
    await idp?.stop();
  });

  it('answers 503 with a page that says to try again or use a sign-in link, and sets no cookie', async () => {
    const start = await fetch(`${sys.settingsUrl}/sign-in/oidc`, { redirect: 'manual' });
    expect(start.status).toBe(503);
    expect(await start.text()).toContain('The sign-in provider cannot be reached right now. Try again in a moment, or use a sign-in link.');
    expect(start.headers.getSetCookie().filter((c) => c.startsWith('en_oidc='))).toEqual([]);
  });
});
