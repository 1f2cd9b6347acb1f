// Rate limits through the running system (in-process limiter; the Redis limiter across replicas
// is covered in test/postgres/replicas.test.ts and at unit level in services/kit/rate-limit).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { bearer, request } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const freeKey = liveKey();
const paidKey = liveKey();
const slowKey = liveKey();

const seed: SeedInput = {
  users: [
    { id: 'u_free', email: 'free@example.org', name: 'Free', plan: 'free' },
    { id: 'u_paid', email: 'paid@example.org', name: 'Paid', plan: 'paid' },
  ],
  keys: [
    { id: 'k_free', secret: freeKey, owner: { user: 'u_free' }, scopes: ['search:read'] },
    { id: 'k_paid', secret: paidKey, owner: { user: 'u_paid' }, scopes: ['search:read'] },
    { id: 'k_slow', secret: slowKey, owner: { user: 'u_paid' }, scopes: ['search:read'], requested_rate: 3 },
  ],
};

describe('rate limits', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem({ seed });
  });
  afterAll(async () => sys?.stop());

  it('put the RateLimit headers on every authenticated response of the standard tier', async () => {
    const first = await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(paidKey) });
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-limit')).toBe('60');
    expect(first.headers.get('ratelimit-remaining')).toBe('59');
    expect(Number(first.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    expect(first.headers.get('ratelimit-policy')).toBe('"burst";q=60;w=60');
    expect(first.headers.get('ratelimit')).toMatch(/^"burst";r=59;t=\d+$/);
    const notFound = await request(sys.restUrl, 'GET', '/v1/nowhere', { headers: bearer(paidKey) });
    expect(notFound.status).toBe(404);
    expect(notFound.headers.get('ratelimit-remaining')).toBe('58');
  });

  it('give the restricted tier a burst of 5 then 429 rate_limited with Retry-After, headers included', async () => {
    const remaining: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(freeKey) });
      expect(res.status).toBe(200);
      remaining.push(res.headers.get('ratelimit-remaining')!);
    }
    expect(remaining).toEqual(['4', '3', '2', '1', '0']);
    const refused = await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(freeKey) });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'rate_limited', request_id: refused.headers.get('x-request-id') });
    // One token refills in 30 s at 2 per minute.
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(29);
    expect(retryAfter).toBeLessThanOrEqual(30);
    expect(refused.headers.get('ratelimit-limit')).toBe('5');
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    expect(refused.headers.get('ratelimit-policy')).toBe('"burst";q=5;w=150, "daily";q=20;w=86400');
  });

  it('honour the requested rate of a standard key', async () => {
    for (let i = 0; i < 3; i++) expect((await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(slowKey) })).status).toBe(200);
    const refused = await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(slowKey) });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(20);
  });

  it('do not count or label unauthenticated requests', async () => {
    // Counted: the limiter's checks, as the admin server's /metrics reports them.
    const checks = async () => {
      const text = await (await fetch(`${sys.adminUrl}/metrics`)).text();
      return Number(/^rate_limit_checks_total (\d+)$/m.exec(text)?.[1]);
    };
    const before = await checks();
    expect(Number.isInteger(before)).toBe(true);
    for (const headers of [{}, bearer(liveKey())]) {
      const res = await request(sys.restUrl, 'GET', '/v1/me', { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('ratelimit-limit')).toBeNull();
      expect(res.headers.get('ratelimit')).toBeNull();
    }
    expect(await checks()).toBe(before);
    // The counter does move for an authenticated request: the comparison above can fail.
    expect((await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(paidKey) })).status).toBe(200);
    expect(await checks()).toBe(before + 1);
  });
});
