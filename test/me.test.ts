// GET /v1/me end to end: edge → gRPC → identity and billing → the store, on every store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { callAs } from '../services/kit/grpc/client.js';
import { bearer, request } from './helpers/http.js';
import { liveKey, testKey } from './helpers/keys.js';
import { storeNames } from './helpers/stores.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const adaKey = testKey();
const freeKey = liveKey();
const orgKey = liveKey();
const revokedKey = liveKey();
const cyKey = liveKey();
const cySecondKey = liveKey();

const seed: SeedInput = {
  users: [
    { id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' },
    { id: 'u_bob', email: 'bob@example.org', name: 'Bob', plan: 'free' },
    { id: 'u_cy', email: 'cy@example.org', name: 'Cy', plan: 'paid' },
  ],
  organizations: [{ id: 'o_lab', name: 'Lab', members: [{ user: 'u_ada', role: 'owner' }] }],
  communities: [{ id: 'c_bio', name: 'Biology', owner: { organization: 'o_lab' }, api_writes: true }],
  wallets: [
    { owner: { user: 'u_ada' }, balance: 100 },
    { owner: { organization: 'o_lab' }, balance: 5000 },
    { owner: { user: 'u_cy' }, balance: 50 },
  ],
  keys: [
    { id: 'k_ada', secret: adaKey, owner: { user: 'u_ada' }, scopes: ['search:read', 'profile:read'], allowlist: ['c_bio'] },
    { id: 'k_bob', secret: freeKey, owner: { user: 'u_bob' }, scopes: ['search:read'] },
    { id: 'k_org', secret: orgKey, owner: { organization: 'o_lab' }, scopes: ['profile:read'] },
    { id: 'k_revoked', secret: revokedKey, owner: { user: 'u_ada' }, scopes: ['search:read'] },
    { id: 'k_cy', secret: cyKey, owner: { user: 'u_cy' }, scopes: ['search:read'] },
    { id: 'k_cy2', secret: cySecondKey, owner: { user: 'u_cy' }, scopes: ['search:read'] },
  ],
  profiles: [{ id: 'p_pond', user: 'u_bob', public: true, name: 'Pia Pond', headline: 'Pond ecologist' }],
};

describe.each(storeNames())('GET /v1/me on %s', (store) => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem({ store, seed });
  });
  afterAll(async () => sys?.stop());

  it('answers the key identity, owner, scopes, usage and balance (Authorization: Bearer)', async () => {
    const res = await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(adaKey) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      key: {
        id: 'k_ada',
        prefix: adaKey.slice(0, 15),
        environment: 'test',
        kind: 'personal',
        credential: 'api_key',
        rate_tier: 'standard',
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
      owner: { type: 'user', id: 'u_ada', name: 'Ada' },
      scopes: ['search:read', 'profile:read'],
      usage: { requests_today: expect.any(Number), requests_this_month: expect.any(Number), credits_spent_this_month: 0 },
      credit_balance: 100,
    });
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('credits_spent_this_month is what this key’s searches were charged; another key of the owner spent nothing', async () => {
    for (const query of ['pond ecologist', 'ecologist']) {
      const search = await request(sys.restUrl, 'POST', '/v1/search', { headers: bearer(cyKey), body: { query, scope: 'public', wait_seconds: 10 } });
      expect(search.status).toBe(200);
      expect(search.body.status).toBe('complete');
    }
    const me = await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(cyKey) });
    const spent = me.body.usage.credits_spent_this_month;
    expect(spent).toBeGreaterThan(0);
    expect(spent).toBe(50 - me.body.credit_balance);
    const other = await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(cySecondKey) });
    expect(other.body).toMatchObject({ usage: { credits_spent_this_month: 0 }, credit_balance: me.body.credit_balance });
  });

  it('accepts the key in X-API-Key, and never echoes the secret', async () => {
    const res = await request(sys.restUrl, 'GET', '/v1/me', { headers: { 'x-api-key': freeKey } });
    expect(res.status).toBe(200);
    expect(res.body.key.id).toBe('k_bob');
    expect(res.body.key.environment).toBe('live');
    expect(JSON.stringify(res.body)).not.toContain(freeKey);
  });

  it('decides the tier from the owner at mint: free user restricted, paid user standard', async () => {
    const bob = await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(freeKey) });
    expect(bob.body.key.rate_tier).toBe('restricted');
    expect(bob.body.credit_balance).toBe(0);
  });

  it('counts requests: each authenticated call adds one to today and this month', async () => {
    const first = await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(adaKey) });
    const second = await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(adaKey) });
    expect(second.body.usage.requests_today).toBe(first.body.usage.requests_today + 1);
    expect(second.body.usage.requests_this_month).toBe(first.body.usage.requests_this_month + 1);
  });

  it('tracks last_used_at in batches: the key listing shows it within about a second', async () => {
    const operator = await callAs(sys.signer, { kind: 'operator', actor: 'test' }, undefined, 5000);
    const before = Date.now();
    await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(freeKey) });
    await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(adaKey) });
    // Each key's listing shows the use once its batch is written (the two keys' batches may land apart).
    const usedSince = async (userId: string, keyId: string) => {
      const { keys } = await sys.clients.identity.listKeys({ userId, pageSize: 10, pageToken: '' }, operator);
      const at = keys.find((k) => k.id === keyId)?.lastUsedAt;
      return at !== undefined && at !== '' && Date.parse(at) >= before - 1000;
    };
    await expect.poll(() => usedSince('u_bob', 'k_bob'), { timeout: 3_000, interval: 100 }).toBe(true);
    await expect.poll(() => usedSince('u_ada', 'k_ada'), { timeout: 3_000, interval: 100 }).toBe(true);
  });

  it('shows a legacy organization-owned key as kind organization, owned and paid by the organization', async () => {
    const res = await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(orgKey) });
    expect(res.status).toBe(200);
    expect(res.body.key.kind).toBe('organization');
    expect(res.body.owner).toEqual({ type: 'organization', id: 'o_lab', name: 'Lab' });
    expect(res.body.credit_balance).toBe(5000);
  });

  it('refuses a missing key with 401 in the envelope, with X-Request-Id', async () => {
    const res = await request(sys.restUrl, 'GET', '/v1/me');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      error: { code: 'unauthorized', message: expect.any(String), request_id: res.headers.get('x-request-id') },
    });
  });

  it('refuses a key with a broken checksum, an unknown well-formed key and a non-key', async () => {
    const broken = adaKey.slice(0, -1) + (adaKey.endsWith('A') ? 'B' : 'A');
    for (const secret of [broken, liveKey(), 'hello', `${adaKey}x`]) {
      const res = await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(secret) });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
      expect(JSON.stringify(res.body)).not.toContain(secret);
    }
  });

  it('answers concurrent requests of different keys and owners each with its own key, owner, balance and count', async () => {
    // Read together (one statement per read for all the requests of a moment): no answer may get another's row.
    const keys = [
      { secret: adaKey, id: 'k_ada', owner: 'u_ada' },
      { secret: orgKey, id: 'k_org', owner: 'o_lab' },
      { secret: cyKey, id: 'k_cy', owner: 'u_cy' },
      { secret: cySecondKey, id: 'k_cy2', owner: 'u_cy' },
    ];
    const before = await Promise.all(keys.map((k) => request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(k.secret) })));
    const balances = new Map(before.map((res) => [res.body.owner.id as string, res.body.credit_balance as number]));
    // The three wallets differ, so an answer with another's row shows.
    expect(new Set(balances.values()).size).toBe(3);
    const rounds = 5;
    const answers = await Promise.all(
      Array.from({ length: rounds }, () => keys).flat().map((k) => request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(k.secret) }).then((res) => ({ k, res }))),
    );
    for (const { k, res } of answers) {
      expect(res.status).toBe(200);
      expect({ key: res.body.key.id, owner: res.body.owner.id, balance: res.body.credit_balance }).toEqual({ key: k.id, owner: k.owner, balance: balances.get(k.owner) });
    }
    const after = await Promise.all(keys.map((k) => request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(k.secret) })));
    // Every request counted once, to its own key: the rounds plus the request that reads the count.
    keys.forEach((_, i) => expect(after[i]!.body.usage.requests_today - before[i]!.body.usage.requests_today).toBe(rounds + 1));
  });

  it('refuses a revoked key on its very next request', async () => {
    expect((await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(revokedKey) })).status).toBe(200);
    const options = await callAs(sys.signer, { kind: 'operator', actor: 'test' }, undefined, 5000);
    await sys.clients.identity.revokeKey({ keyId: 'k_revoked' }, options);
    const res = await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(revokedKey) });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
  });

  it('echoes a client X-Request-Id and replaces an unusable one', async () => {
    const echoed = await request(sys.restUrl, 'GET', '/v1/me', { headers: { ...bearer(adaKey), 'x-request-id': 'trace-me-42' } });
    expect(echoed.headers.get('x-request-id')).toBe('trace-me-42');
    const replaced = await request(sys.restUrl, 'GET', '/v1/me', { headers: { 'x-request-id': 'x'.repeat(200) } });
    expect(replaced.headers.get('x-request-id')).not.toBe('x'.repeat(200));
    expect(replaced.body.error.request_id).toBe(replaced.headers.get('x-request-id'));
  });

  it('answers 401 before routing on unknown paths and methods, and 404 once authenticated', async () => {
    for (const [method, path] of [['GET', '/nope'], ['DELETE', '/v1/me'], ['POST', '/v2/anything'], ['PATCH', '/']]) {
      const res = await request(sys.restUrl, method!, path!);
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
    }
    const known = await request(sys.restUrl, 'GET', '/v1/nope', { headers: bearer(adaKey) });
    expect(known.status).toBe(404);
    expect(known.body.error).toMatchObject({ code: 'not_found', request_id: known.headers.get('x-request-id') });
  });

  it('answers a CORS preflight 204 without credentials', async () => {
    const res = await request(sys.restUrl, 'OPTIONS', '/v1/me', {
      headers: { origin: 'https://app.example.org', 'access-control-request-method': 'GET' },
    });
    expect(res.status).toBe(204);
  });

  it('refuses Authorization and X-API-Key carrying different keys with 400', async () => {
    const res = await request(sys.restUrl, 'GET', '/v1/me', { headers: { ...bearer(adaKey), 'x-api-key': freeKey } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
  });
});
