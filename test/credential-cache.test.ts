// API keys' callers cached by identity and checked by the edge's rate limiter through their stamps
// (docs/CREDENTIAL-CACHE.md): what a change does takes effect on the very next request all the
// same, and every request is counted once. One process on the embedded store (stamps in memory),
// and on PostgreSQL with the stamps in Redis when both are configured.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { Role } from '../proto/gen/expertnet/common/v1/common.js';
import { stampKey } from '../services/kit/credential-stamps.js';
import { callAs } from '../services/kit/grpc/client.js';
import { connectRedis } from '../services/kit/redis.js';
import { bearer, request } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { redisTestPrefix } from './helpers/redis-prefix.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const k = { cached: liveKey(), revoked: liveKey(), narrowed: liveKey(), counted: liveKey(), lost: liveKey(), manager: liveKey() };
const scopes = ['profile:read', 'search:read'];

const seed: SeedInput = {
  users: [
    { id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' },
    { id: 'u_max', email: 'max@example.org', name: 'Max', plan: 'paid' },
  ],
  organizations: [{ id: 'o_lab', name: 'Lab', members: [{ user: 'u_max', role: 'admin' }] }],
  communities: [{ id: 'c_lab', name: 'Lab community', owner: { organization: 'o_lab' } }],
  keys: [
    { id: 'k_cached', secret: k.cached, owner: { user: 'u_ada' }, scopes },
    { id: 'k_revoked', secret: k.revoked, owner: { user: 'u_ada' }, scopes },
    { id: 'k_narrowed', secret: k.narrowed, owner: { user: 'u_ada' }, scopes },
    { id: 'k_counted', secret: k.counted, owner: { user: 'u_ada' }, scopes },
    { id: 'k_lost', secret: k.lost, owner: { user: 'u_ada' }, scopes },
    { id: 'k_manager', secret: k.manager, owner: { user: 'u_max' }, scopes },
  ],
};

const withRedis = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
const modes = withRedis ? (['pglite', 'postgres+redis'] as const) : (['pglite'] as const);

describe.each(modes)('cached API-key callers on %s', (mode) => {
  const prefix = redisTestPrefix();
  let sys: TestSystem;
  beforeAll(async () => {
    sys = mode === 'pglite'
      ? await startTestSystem({ seed })
      : await startTestSystem({ store: 'postgres', seed, env: { REDIS_URL: process.env.REDIS_URL!, ...prefix.env } });
  });
  afterAll(async () => {
    await sys?.stop();
    await prefix.cleanup();
  });

  const operator = () => callAs(sys.signer, { kind: 'operator', actor: 'test' }, undefined, 5000);
  /** The key's stored count of today, once the counts of this process have been flushed (every second). */
  async function storedRequests(keyId: string): Promise<number> {
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const rows = await sys.db!.query<{ requests: string }>('SELECT requests FROM identity.key_usage_daily WHERE key_id = $1', [keyId]);
    return Number(rows[0]?.requests ?? 0);
  }
  const communities = (secret: string) => request(sys.restUrl, 'GET', '/v1/communities', { headers: bearer(secret) });

  it('identity answers a key it read live from its cache after, with the stamp the edge checks', async () => {
    const edge = await callAs(sys.signer, { kind: 'edge' }, 'r', 5000);
    const ask = () => sys.clients.identity.authenticate({ apiKey: k.cached, accessToken: '', acceptCached: true }, edge);
    const first = await ask();
    const second = await ask();
    expect(first.stamp).toBe('');
    expect(second.stamp).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(second.caller).toEqual(first.caller);
    // Asked without accept_cached (as the settings app and MCP ask), identity reads live.
    expect((await sys.clients.identity.authenticate({ apiKey: k.cached, accessToken: '' }, edge)).stamp).toBe('');
  });

  it('refuses a revoked key on its next request, though its caller was cached', async () => {
    for (let i = 0; i < 3; i++) expect((await communities(k.revoked)).status).toBe(200);
    await sys.clients.identity.revokeKey({ keyId: 'k_revoked' }, await operator());
    // An unknown path too: authentication and the rate-limit step run before routing.
    expect((await request(sys.restUrl, 'GET', '/v1/no-such-path', { headers: bearer(k.revoked) })).status).toBe(401);
    const res = await communities(k.revoked);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
    expect((await communities(k.cached)).status).toBe(200);
    // The refused requests were counted from the cache, then uncounted: three requests stored.
    expect(await storedRequests('k_revoked')).toBe(3);
  });

  it('applies a key’s narrowed scopes on its next request', async () => {
    const search = () => request(sys.restUrl, 'POST', '/v1/search', { headers: bearer(k.narrowed), body: { query: 'graph networks', scope: 'public' } });
    expect([200, 202]).toContain((await search()).status);
    expect((await communities(k.narrowed)).status).toBe(200);
    // A seed applied again changes what a seed may change: here the key's scopes.
    await sys.clients.identity.mintKey({ userId: 'u_ada', id: 'k_narrowed', secret: k.narrowed, scopes: ['profile:read'] }, await operator());
    const refused = await search();
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('forbidden');
    expect((await communities(k.narrowed)).status).toBe(200);
  });

  it('takes an organization’s communities from its demoted admin’s key on its next request', async () => {
    const listed = async () => {
      const res = await communities(k.manager);
      expect(res.status).toBe(200);
      return res.body.communities.map((c: { community_id: string }) => c.community_id);
    };
    expect(await listed()).toEqual(['c_lab']);
    expect(await listed()).toEqual(['c_lab']);
    const lab = (role: Role) => ({ organization: { id: 'o_lab', name: 'Lab', jitConsent: false, members: [{ userId: 'u_max', role, joinedAt: '' }] } });
    await sys.clients.identity.upsertOrganization(lab(Role.ROLE_MEMBER), await operator());
    expect(await listed()).toEqual([]);
    await sys.clients.identity.upsertOrganization(lab(Role.ROLE_ADMIN), await operator());
    expect(await listed()).toEqual(['c_lab']);
  });

  it('counts every request once, cached or read live again after a change', async () => {
    for (let i = 0; i < 4; i++) expect((await communities(k.counted)).status).toBe(200);
    // A change to the key (a scope fewer) makes its cached caller stale once.
    await sys.clients.identity.mintKey({ userId: 'u_ada', id: 'k_counted', secret: k.counted, scopes: ['profile:read'] }, await operator());
    for (let i = 0; i < 3; i++) expect((await communities(k.counted)).status).toBe(200);
    const me = await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(k.counted) });
    expect(me.status).toBe(200);
    expect(me.body.usage.requests_today).toBe(8);
  });
});

describe.runIf(withRedis)('cached API-key callers when Redis lost their stamps', () => {
  const prefix = redisTestPrefix();
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem({ store: 'postgres', seed, env: { REDIS_URL: process.env.REDIS_URL!, ...prefix.env } });
  });
  afterAll(async () => {
    await sys?.stop();
    await prefix.cleanup();
  });

  it('publishes after a change the very stamp a live read of the key then gives', async () => {
    const operator = await callAs(sys.signer, { kind: 'operator', actor: 'test' }, undefined, 5000);
    const edge = await callAs(sys.signer, { kind: 'edge' }, 'r', 5000);
    await sys.clients.identity.mintKey({ userId: 'u_ada', id: 'k_cached', secret: k.cached, scopes: ['search:read'] }, operator);
    await sys.clients.identity.authenticate({ apiKey: k.cached, accessToken: '', refresh: true }, edge);
    const { stamp } = await sys.clients.identity.authenticate({ apiKey: k.cached, accessToken: '', acceptCached: true }, edge);
    const redis = await connectRedis(process.env.REDIS_URL!);
    try {
      expect(stamp).not.toBe('');
      expect(await redis.get(stampKey(prefix.prefix, 'k_cached'))).toBe(stamp);
    } finally {
      redis.disconnect();
    }
  });

  it('reads the key live and answers as usual, counting each request once', async () => {
    const communities = () => request(sys.restUrl, 'GET', '/v1/communities', { headers: bearer(k.lost) });
    for (let i = 0; i < 2; i++) expect((await communities()).status).toBe(200);
    const redis = await connectRedis(process.env.REDIS_URL!);
    try {
      expect(await redis.del(stampKey(prefix.prefix, 'k_lost'))).toBe(1);
    } finally {
      redis.disconnect();
    }
    for (let i = 0; i < 2; i++) expect((await communities()).status).toBe(200);
    const me = await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(k.lost) });
    expect(me.body.usage.requests_today).toBe(5);
  });
});
