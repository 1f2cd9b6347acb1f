// The settings web app over HTTP: one-time sign-in links, server-side sessions (cookie attributes,
// rotation at sign-in, idle and absolute expiry, sign-out), CSRF refusals and the security headers.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { callAs } from '../services/kit/grpc/client.js';
import { hashSecret } from '../services/identity/api-key-secret.js';
import { SESSION_COOKIE, SettingsClient } from './helpers/settings-browser-http.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const seed: SeedInput = {
  users: [
    { id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' },
    { id: 'u_bob', email: 'bob@example.org', name: 'Bob', plan: 'free' },
  ],
};

const IDLE_SECONDS = 600;
const MAX_SECONDS = 3600;

describe('settings web app: sign-in and sessions', () => {
  let sys: TestSystem;
  let base: string;
  beforeAll(async () => {
    sys = await startTestSystem({ seed, env: { SETTINGS_SESSION_IDLE_SECONDS: String(IDLE_SECONDS), SETTINGS_SESSION_MAX_SECONDS: String(MAX_SECONDS) } });
    base = sys.settingsUrl!;
  });
  afterAll(async () => sys?.stop());

  async function operatorKeysOf(userId: string) {
    const call = await callAs(sys.signer, { kind: 'operator', actor: 'test' }, undefined, 10_000);
    return (await sys.clients.identity.listKeys({ userId, pageSize: 100, pageToken: '' }, call)).keys;
  }

  it('sends a signed-out browser to sign in, with a strict CSP that forbids framing', async () => {
    const browser = new SettingsClient(base);
    const keys = await browser.get('/keys');
    expect(keys.status).toBe(303);
    expect(keys.headers.get('location')).toBe('/sign-in?expired=0');
    const signIn = await browser.get('/sign-in');
    expect(signIn.status).toBe(200);
    const csp = signIn.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(signIn.headers.get('x-content-type-options')).toBe('nosniff');
    expect(signIn.text).toContain('users sign-in-link');
  });

  it('signs in with a one-time link into a httpOnly, SameSite=Lax session cookie; the link works only once', async () => {
    const browser = new SettingsClient(base);
    const link = await (async () => {
      const { mintSignInLink } = await import('../deploy/launcher/sign-in-link.js');
      return mintSignInLink({ clients: sys.clients, signer: sys.signer, deadlineMs: 10_000 }, base, 'u_ada', 'test');
    })();
    const opened = await browser.get(link.url.slice(base.length));
    expect(opened.status).toBe(200);
    expect(browser.cookies.has(SESSION_COOKIE)).toBe(false);
    const signedIn = await browser.signInWith(link.url);
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe('/keys');
    const cookie = signedIn.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).not.toMatch(/Secure/i);
    const keys = await browser.get('/keys');
    expect(keys.status).toBe(200);
    expect(keys.text).toContain('Ada');

    const again = await new SettingsClient(base).signInWith(link.url);
    expect(again.status).toBe(401);
    expect(again.text).toContain('unknown, already used or expired');
  });

  it('mints a sign-in link with the admin CLI', async () => {
    const cli = join(import.meta.dirname, '..', 'deploy/admin/cli.ts');
    const { stdout } = await promisify(execFile)('npx', ['tsx', cli, 'users', 'sign-in-link', '--user', 'u_bob', '--json'], {
      env: { ...process.env, ...sys.env, SETTINGS_PUBLIC_URL: base },
    });
    const printed = JSON.parse(stdout) as { url: string; expires_at: string };
    expect(Date.parse(printed.expires_at)).toBeGreaterThan(Date.now());
    expect(printed.url.startsWith(`${base}/sign-in/link?token=`)).toBe(true);
    const browser = new SettingsClient(base);
    expect((await browser.signInWith(printed.url)).status).toBe(303);
    expect((await browser.get('/keys')).text).toContain('Bob');
  });

  it('rotates the session id at sign-in: the session the browser held before ends', async () => {
    const browser = new SettingsClient(base);
    await browser.signIn(sys, 'u_ada');
    const before = browser.cookies.get(SESSION_COOKIE)!;
    await browser.signIn(sys, 'u_ada');
    const after = browser.cookies.get(SESSION_COOKIE)!;
    expect(after).not.toBe(before);
    const stale = new SettingsClient(base);
    stale.cookies.set(SESSION_COOKIE, before);
    expect((await stale.get('/keys')).status).toBe(303);
    expect((await browser.get('/keys')).status).toBe(200);
  });

  it('refuses a state-changing form without a valid CSRF token (403), changing nothing', async () => {
    const browser = new SettingsClient(base);
    await browser.signIn(sys, 'u_bob');
    const before = (await operatorKeysOf('u_bob')).length;
    const missing = await browser.send('POST', '/keys', { preset: 'read' });
    expect(missing.status).toBe(403);
    expect(missing.text).toContain('Reload the page and try again');
    const forged = await browser.send('POST', '/keys', { preset: 'read', _csrf: 'forged-token' });
    expect(forged.status).toBe(403);
    const signOut = await browser.send('POST', '/sign-out', {});
    expect(signOut.status).toBe(403);
    expect((await operatorKeysOf('u_bob')).length).toBe(before);
    expect((await browser.get('/keys')).status).toBe(200);
  });

  it('signs out: the session ends on the server, not only in the browser', async () => {
    const browser = new SettingsClient(base);
    await browser.signIn(sys, 'u_ada');
    const sessionId = browser.cookies.get(SESSION_COOKIE)!;
    const out = await browser.submit('/keys', '/sign-out');
    expect(out.status).toBe(303);
    expect(browser.cookies.has(SESSION_COOKIE)).toBe(false);
    const replay = new SettingsClient(base);
    replay.cookies.set(SESSION_COOKIE, sessionId);
    expect((await replay.get('/keys')).status).toBe(303);
  });

  it('ends a session left idle, and a busy one at its absolute expiry', async () => {
    // The sessions' clocks are the store's: a session is aged there instead of waited on, so the
    // outcome does not hang on how fast this machine answers.
    const age = (client: SettingsClient, column: 'last_seen_at' | 'absolute_expires_at', seconds: number) =>
      sys.db!.query(`UPDATE identity.web_sessions SET ${column} = now() - make_interval(secs => $2) WHERE id_hash = $1`, [
        hashSecret(client.cookies.get(SESSION_COOKIE)!, sys.secrets.apiKeyPepper),
        seconds,
      ]);
    const idle = new SettingsClient(base);
    await idle.signIn(sys, 'u_ada');
    const busy = new SettingsClient(base);
    await busy.signIn(sys, 'u_ada');
    expect((await busy.get('/keys')).status).toBe(200);

    await age(idle, 'last_seen_at', IDLE_SECONDS + 1);
    const expired = await idle.get('/keys');
    expect(expired.status).toBe(303);
    expect(expired.headers.get('location')).toBe('/sign-in?expired=1');

    // Seen a moment ago, but past its absolute end: it has ended too.
    await age(busy, 'absolute_expires_at', 1);
    expect((await busy.get('/keys')).status).toBe(303);
    // One seen just under the idle time ago, inside its absolute end, lives on.
    const kept = new SettingsClient(base);
    await kept.signIn(sys, 'u_ada');
    await age(kept, 'last_seen_at', IDLE_SECONDS - 60);
    expect((await kept.get('/keys')).status).toBe(200);
  });

  it('offers no identity provider when none is configured: the sign-in page names none, and its start is 404', async () => {
    const browser = new SettingsClient(base);
    expect((await browser.get('/sign-in')).text).not.toContain('/sign-in/oidc');
    for (const path of ['/sign-in/oidc', '/sign-in/oidc/callback?code=x&state=y']) {
      const page = await browser.get(path);
      expect(page.status).toBe(404);
      expect(page.text).toContain('Sign-in with an identity provider is not set up here: use a sign-in link.');
    }
  });
});
