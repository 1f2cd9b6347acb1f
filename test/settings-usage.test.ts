// The usage screen over HTTP: the counts it shows are the requests real API calls made with each
// key (and OAuth grant) today, with the tier and limits the rate limiter applies; a user sees only
// their own credentials (another user's key is 404 through the page's own endpoint, and identity
// refuses the gRPC call whatever the surface sends).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { callAs } from '../services/kit/grpc/client.js';
import { readRemoteError } from '../services/kit/grpc/errors.js';
import { utcDay } from '../services/kit/utc-day.js';
import { bearer, request } from './helpers/http.js';
import { liveKey, testKey } from './helpers/keys.js';
import { SettingsClient, signedInClients } from './helpers/settings-browser-http.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const adaKey = liveKey();
const adaIdle = testKey();
const bobKey = liveKey();
const seed: SeedInput = {
  users: [
    { id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' },
    { id: 'u_bob', email: 'bob@example.org', name: 'Bob', plan: 'free' },
  ],
  keys: [
    { id: 'k_ada', secret: adaKey, owner: { user: 'u_ada' }, scopes: ['profile:read'], requested_rate: 120 },
    { id: 'k_ada_idle', secret: adaIdle, owner: { user: 'u_ada' }, scopes: ['search:read'], environment: 'test' },
    { id: 'k_bob', secret: bobKey, owner: { user: 'u_bob' }, scopes: ['profile:read'] },
  ],
};

/** The text of the section about one credential on the usage page (by its heading). */
function sectionOf(page: string, heading: string): string {
  const at = page.indexOf(heading);
  expect(at, `the page shows ${heading}`).toBeGreaterThan(-1);
  const end = page.indexOf('</section>', at);
  return page.slice(at, end);
}

describe('settings web app: the usage screen', () => {
  let sys: TestSystem;
  let ada: SettingsClient;
  let bob: SettingsClient;
  const me = (secret: string) => request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(secret) });
  beforeAll(async () => {
    sys = await startTestSystem({ seed });
    [ada, bob] = await signedInClients(sys, 'u_ada', 'u_bob');
  });
  afterAll(async () => sys?.stop());

  it('shows for today the number of requests the key made, per key, with its tier and limits', async () => {
    const today = utcDay(new Date());
    for (let i = 0; i < 7; i++) expect((await me(adaKey)).status).toBe(200);
    const page = await ada.get('/usage');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<a href="/usage" aria-current="page">Usage</a>');

    const busy = sectionOf(page.text, `Key <code>${adaKey.slice(0, 12)}`);
    expect(busy).toContain('<dt>Today (UTC)</dt><dd>7 requests</dd>');
    expect(busy).toContain('<dt>Last 30 days</dt><dd>7 requests</dd>');
    expect(busy).toContain('Standard tier: bursts of up to 120 requests, refilling 120 per minute; no daily cap.');
    expect(busy).toContain(`<title>${today}: 7 requests</title>`);
    expect(busy).toContain(`<tr><td>${today}</td><td>7</td></tr>`);
    expect(busy.match(/<g class="day/g)).toHaveLength(30);
    expect(busy).toContain(`Today: 7 requests.`);

    const idle = sectionOf(page.text, `Key <code>${adaIdle.slice(0, 12)}`);
    expect(idle).toContain('(test, active)');
    expect(idle).toContain('<dt>Today (UTC)</dt><dd>0 requests</dd>');

    // Three more: the page follows at once (the counts not yet flushed are added).
    for (let i = 0; i < 3; i++) await me(adaKey);
    expect(sectionOf((await ada.get('/usage')).text, `Key <code>${adaKey.slice(0, 12)}`)).toContain(`<title>${today}: 10 requests</title>`);
  });

  it('shows a restricted key its daily cap, and an OAuth grant once it is used', async () => {
    await me(bobKey);
    const bobs = sectionOf((await bob.get('/usage')).text, `Key <code>${bobKey.slice(0, 12)}`);
    expect(bobs).toContain('Restricted tier: bursts of up to 5 requests, refilling 2 per minute; at most 20 requests per UTC day (reset at 00:00 UTC).');
    expect(bobs).toContain('<dt>Today (UTC)</dt><dd>1 request</dd>');

    const operator = await callAs(sys.signer, { kind: 'operator', actor: 'usage-test' }, undefined, 10_000);
    const { accessToken } = await sys.clients.identity.issueAccessToken(
      { userId: 'u_bob', scopes: ['profile:read'], clientId: 'notebook', ttlSeconds: 300, requestedRate: 0, resource: '' }, operator);
    for (let i = 0; i < 2; i++) expect((await me(accessToken)).status).toBe(200);
    // A grant is listed once its use is stored (within the recorder's one-second flush).
    await expect.poll(async () => (await bob.get('/usage')).text, { timeout: 10_000, interval: 300 }).toContain('OAuth grant to <code>notebook</code>');
    expect(sectionOf((await bob.get('/usage')).text, 'OAuth grant to <code>notebook</code>')).toContain('<dt>Today (UTC)</dt><dd>2 requests</dd>');
  });

  it('adds the counts stored for earlier days, and leaves out a day before the window', async () => {
    const daysAgo = (n: number) => utcDay(new Date(Date.now() - n * 86_400_000));
    // Earlier days' counts as the recorder's flushes left them (no request can be made in the past).
    await sys.db!.query(
      `INSERT INTO identity.key_usage_daily (key_id, day, requests) VALUES ('k_ada_idle', $1, 5), ('k_ada_idle', $2, 2), ('k_ada_idle', $3, 100)`,
      [daysAgo(3), daysAgo(29), daysAgo(30)],
    );
    const idle = sectionOf((await ada.get('/usage')).text, `Key <code>${adaIdle.slice(0, 12)}`);
    expect(idle).toContain(`<title>${daysAgo(3)}: 5 requests</title>`);
    expect(idle).toContain(`<title>${daysAgo(29)}: 2 requests</title>`);
    expect(idle).not.toContain(daysAgo(30));
    expect(idle).toContain('<dt>Last 30 days</dt><dd>7 requests</dd>');
    expect(idle).toContain(`The busiest day was ${daysAgo(3)} with 5 requests.`);
    // The 90-day page of the same key reaches the day before the 30-day window.
    expect((await ada.get('/usage/keys/k_ada_idle')).text).toContain(`<title>${daysAgo(30)}: 100 requests</title>`);
  });

  it('shows one key over 90 days on its own page', async () => {
    const page = await ada.get('/usage/keys/k_ada');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<dt>Last 90 days</dt>');
    expect(page.text.match(/<g class="day/g)).toHaveLength(90);
    expect(page.text).not.toContain(adaIdle.slice(0, 12));
  });

  it('never shows another user’s key: not on the list, 404 on its page, refused by identity', async () => {
    const bobsPage = await bob.get('/usage');
    expect(bobsPage.text).not.toContain(adaKey.slice(0, 12));
    expect(bobsPage.text).not.toContain('k_ada');
    const forged = await bob.get('/usage/keys/k_ada');
    expect(forged.status).toBe(404);
    expect(forged.text).toContain('key k_ada not found');
    expect(forged.text).not.toContain(adaKey.slice(0, 12));
    expect((await bob.get('/usage/keys/k_nope')).status).toBe(404);

    const asBob = await callAs(sys.signer, { kind: 'user', userId: 'u_bob' }, undefined, 10_000);
    const refusals = await Promise.all([
      sys.clients.identity.getUsage({ userId: 'u_ada', days: 30, keyId: '' }, asBob).catch((e) => e),
      sys.clients.identity.getUsage({ userId: 'u_bob', days: 30, keyId: 'k_ada' }, asBob).catch((e) => e),
      sys.clients.identity.getUsage({ userId: 'u_bob', days: 91, keyId: '' }, asBob).catch((e) => e),
    ]);
    expect(refusals.map((e) => readRemoteError(e)?.code)).toEqual(['forbidden', 'not_found', 'invalid_request']);
  });

  it('sends a signed-out browser to sign in, and the page under the strict CSP: no inline script or style', async () => {
    const anonymous = await new SettingsClient(sys.settingsUrl!).get('/usage');
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get('location')).toMatch(/^\/sign-in/);
    const page = await ada.get('/usage');
    expect(page.headers.get('content-security-policy')).toContain("style-src 'self'");
    expect(page.text).not.toMatch(/\sstyle=|<style|<script(?![^>]*\ssrc=)/);
    expect(page.text).toMatch(/<svg class="chart"[^>]*role="img" aria-labelledby="chart-0-title chart-0-desc"/);
  });
});
