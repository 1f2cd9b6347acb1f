// Where a webhook endpoint may point, over real HTTP on every store (docs/WEBHOOKS.md "Endpoint
// URLs"): by default an https URL whose host is, and resolves to, public addresses only — a
// loopback, private, unique-local or IPv4-mapped loopback address, literal or by name, and http are
// refused at creation and at a PATCH of `url` with 400 naming `url`, nothing stored; a host that
// does not resolve is 400 too. WEBHOOK_ALLOW_PRIVATE_URLS=true (local development) lets them through.
// Literal public addresses need no DNS, so the suite needs no network.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { bearer, request } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { storeNames } from './helpers/stores.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const key = liveKey();
const seed: SeedInput = {
  users: [{ id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' }],
  keys: [{ id: 'k_ada', secret: key, owner: { user: 'u_ada' }, scopes: ['webhooks:read', 'webhooks:write'], requested_rate: 6000 }],
};

/** URLs refused by default, each with what the refusal says. */
const PRIVATE: Array<[string, RegExp]> = [
  ['https://10.1.2.3/hook', /^url: 10\.1\.2\.3 is not a public address$/],
  ['https://192.168.0.10/hook', /^url: 192\.168\.0\.10 is not a public address$/],
  ['https://169.254.169.254/latest', /^url: 169\.254\.169\.254 is not a public address$/],
  ['https://100.64.0.1/hook', /^url: 100\.64\.0\.1 is not a public address$/],
  ['https://localhost/hook', /^url: the host localhost resolves to 127\.0\.0\.1, which is not a public address$/],
  ['https://localhost:8443/hook', /^url: the host localhost resolves to 127\.0\.0\.1/],
  ['https://[::1]/hook', /^url: ::1 is not a public address$/],
  ['https://[fd00::1]/hook', /^url: fd00::1 is not a public address$/],
  ['https://[::ffff:127.0.0.1]/hook', /^url: ::ffff:7f00:1 is not a public address$/],
  ['https://0.0.0.0/hook', /^url: 0\.0\.0\.0 is not a public address$/],
  ['http://93.184.216.34/hook', /^url: must be an https URL$/],
];
/** Allowed by WEBHOOK_ALLOW_PRIVATE_URLS=true, as stored. */
const ALLOWED_LOCALLY = ['https://10.1.2.3/hook', 'https://localhost:8443/hook', 'https://[::1]/hook', 'https://[fd00::1]/hook', 'http://localhost:3000/hook'];

describe.each(storeNames())('webhook endpoint URLs on %s', (store) => {
  let sys: TestSystem;
  let local: TestSystem;
  const call = (on: TestSystem, method: string, path: string, body?: unknown) => request(on.restUrl, method, path, { headers: bearer(key), body });
  const listed = async (on: TestSystem) => (await call(on, 'GET', '/v1/webhook_endpoints')).body.endpoints as Array<{ id: string; url: string }>;
  beforeAll(async () => {
    [sys, local] = await Promise.all([
      startTestSystem({ store, seed }),
      startTestSystem({ store, seed, env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } }),
    ]);
  }, 180_000);
  afterAll(async () => {
    await Promise.all([sys?.stop(), local?.stop()]);
  });

  it('refuses at creation a host that is or resolves to a non-public address, and http: 400 naming url, nothing stored', async () => {
    for (const [url, message] of PRIVATE) {
      const refused = await call(sys, 'POST', '/v1/webhook_endpoints', { url, events: ['member.added'] });
      expect(refused.status, url).toBe(400);
      expect(refused.body.error.code, url).toBe('invalid_request');
      expect(refused.body.error.message, url).toMatch(message);
    }
    const nowhere = await call(sys, 'POST', '/v1/webhook_endpoints', { url: 'https://nowhere.invalid/hook', events: ['member.added'] });
    expect(nowhere.status).toBe(400);
    expect(nowhere.body.error.message).toBe('url: the host nowhere.invalid does not resolve');
    expect(await listed(sys)).toEqual([]);
  });

  it('accepts a public literal address without DNS, and refuses a PATCH of url to a private one, keeping the stored url', async () => {
    const made = await call(sys, 'POST', '/v1/webhook_endpoints', { url: 'https://93.184.216.34/hook', events: ['member.added'] });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.url).toBe('https://93.184.216.34/hook');
    for (const url of ['https://localhost/hook', 'https://[fd00::1]/hook', 'http://93.184.216.34/hook']) {
      const refused = await call(sys, 'PATCH', `/v1/webhook_endpoints/${made.body.id}`, { url, status: 'disabled' });
      expect(refused.status, url).toBe(400);
      expect(refused.body.error.message, url).toMatch(/^url: /);
    }
    const kept = await call(sys, 'GET', `/v1/webhook_endpoints/${made.body.id}`);
    expect(kept.body).toMatchObject({ url: 'https://93.184.216.34/hook', status: 'enabled' });
    const moved = await call(sys, 'PATCH', `/v1/webhook_endpoints/${made.body.id}`, { url: 'https://[2606:2800:220:1:248:1893:25c8:1946]/hook' });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body.url).toBe('https://[2606:2800:220:1:248:1893:25c8:1946]/hook');
  });

  it('with WEBHOOK_ALLOW_PRIVATE_URLS=true accepts http and loopback or private addresses, at creation and by PATCH', async () => {
    for (const url of ALLOWED_LOCALLY) {
      const made = await call(local, 'POST', '/v1/webhook_endpoints', { url, events: ['member.added'] });
      expect(made.status, `${url}: ${JSON.stringify(made.body)}`).toBe(201);
      expect(made.body.url).toBe(url);
    }
    const first = (await listed(local))[0]!;
    const moved = await call(local, 'PATCH', `/v1/webhook_endpoints/${first.id}`, { url: 'http://127.0.0.1:9000/hook' });
    expect(moved.status).toBe(200);
    expect(moved.body.url).toBe('http://127.0.0.1:9000/hook');
    const nowhere = await call(local, 'POST', '/v1/webhook_endpoints', { url: 'http://nowhere.invalid/hook', events: ['member.added'] });
    expect(nowhere.body.error.message).toBe('url: the host nowhere.invalid does not resolve');
  });
});
