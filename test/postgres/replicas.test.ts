// Several gateway replicas in front of one set of services, PostgreSQL and Redis: what one
// replica learns, every replica enforces on the very next request.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchTopology, type Topology } from '../../deploy/local/launch.js';
import { grpcTransportOf } from '../../deploy/launcher/grpc-tls.js';
import { grpcAddressesOf, loadConfig } from '../../services/kit/config.js';
import { callAs, createServiceClients, type ServiceClients } from '../../services/kit/grpc/client.js';
import { requireSigner, type TokenSigner } from '../../services/kit/grpc/caller-token.js';
import { RedisRateLimiter } from '../../services/kit/rate-limit/redis-limiter.js';
import { loadSecrets } from '../../services/kit/secrets.js';
import { connectRedis } from '../../services/kit/redis.js';
import { bearer, request } from '../helpers/http.js';
import { liveKey } from '../helpers/keys.js';
import { redisTestPrefix } from '../helpers/redis-prefix.js';
import { freshPostgresDatabase, type FreshDatabase } from '../helpers/stores.js';

const keepKey = liveKey();
const revokeKey = liveKey();
const revokeCachedKey = liveKey();
const freeKey = liveKey();
const cappedKey = liveKey();
// Bucket keys live in the shared Redis: a fresh key id per run keeps runs apart.
const freeKeyId = `k_free_${Date.now().toString(36)}`;
const cappedKeyId = `k_capped_${Date.now().toString(36)}`;

describe('two gateway replicas', () => {
  // Rate-limit keys under a prefix of this run's own, deleted afterwards.
  const redisPrefix = redisTestPrefix();
  let db: FreshDatabase;
  let topology: Topology;
  let clients: ServiceClients;
  let signer: TokenSigner;
  beforeAll(async () => {
    db = await freshPostgresDatabase({ migrated: true });
    const seedFile = join(mkdtempSync(join(tmpdir(), 'en-rep-')), 'seed.json');
    writeFileSync(seedFile, JSON.stringify({
      users: [
        { id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' },
        { id: 'u_free', email: 'free@example.org', name: 'Free', plan: 'free' },
      ],
      keys: [
        { id: freeKeyId, secret: freeKey, owner: { user: 'u_free' }, scopes: ['search:read'] },
        { id: cappedKeyId, secret: cappedKey, owner: { user: 'u_free' }, scopes: ['search:read'] },
        { id: 'k_keep', secret: keepKey, owner: { user: 'u_ada' }, scopes: ['search:read'] },
        { id: 'k_revoke', secret: revokeKey, owner: { user: 'u_ada' }, scopes: ['search:read'] },
        { id: 'k_revoke_cached', secret: revokeCachedKey, owner: { user: 'u_ada' }, scopes: ['search:read'] },
      ],
    }));
    const env = { DATABASE_URL: db.url, REDIS_URL: process.env.REDIS_URL!, ...redisPrefix.env, SEED_FILE: seedFile, LOG_LEVEL: 'warn' };
    topology = await launchTopology(env, { gateways: 2, readyTimeoutMs: 90_000 });
    // As the operator, over the topology's mutual TLS (its certificate is in topology.env).
    const config = loadConfig(topology.env);
    clients = createServiceClients(grpcAddressesOf(config), {}, { tls: grpcTransportOf(config).tls });
    signer = requireSigner(loadSecrets(config));
  }, 180_000);
  afterAll(async () => {
    clients?.close();
    await topology?.stop();
    await db?.drop();
    await redisPrefix.cleanup();
  });

  it('refuses a revoked key on its next request through every replica', async () => {
    for (const url of topology.restUrls) {
      expect((await request(url, 'GET', '/v1/me', { headers: bearer(revokeKey) })).status).toBe(200);
    }
    await clients.identity.revokeKey({ keyId: 'k_revoke' }, await callAs(signer, { kind: 'operator', actor: 'test' }, undefined, 5000));
    for (const url of topology.restUrls) {
      const res = await request(url, 'GET', '/v1/me', { headers: bearer(revokeKey) });
      expect(res.status, url).toBe(401);
      expect((await request(url, 'GET', '/v1/me', { headers: bearer(keepKey) })).status, url).toBe(200);
    }
  });

  it('refuses a revoked key on its next request through every replica, though identity cached its caller', async () => {
    // GET /v1/communities takes the caller from identity's cache once read (GET /v1/me reads live).
    const communities = (url: string) => request(url, 'GET', '/v1/communities', { headers: bearer(revokeCachedKey) });
    for (const url of topology.restUrls) {
      for (let i = 0; i < 3; i++) expect((await communities(url)).status).toBe(200);
    }
    await clients.identity.revokeKey({ keyId: 'k_revoke_cached' }, await callAs(signer, { kind: 'operator', actor: 'test' }, undefined, 5000));
    for (const url of topology.restUrls) expect((await communities(url)).status, url).toBe(401);
  });

  it('share one rate-limit bucket through Redis', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 8 }, (_, i) => request(topology.restUrls[i % 2]!, 'GET', '/v1/me', { headers: bearer(freeKey) })),
    );
    const codes = statuses.map((r) => r.status);
    expect(codes.filter((c) => c === 200)).toHaveLength(5);
    expect(codes.filter((c) => c === 429)).toHaveLength(3);
    // The bucket is under this run's prefix (RATE_LIMIT_PREFIX), none under the default `rl:`.
    const redis = await connectRedis(process.env.REDIS_URL!);
    try {
      expect(await redis.keys(`${redisPrefix.prefix}{${freeKeyId}}*`)).not.toHaveLength(0);
      expect(await redis.keys(`rl:{${freeKeyId}}*`)).toHaveLength(0);
    } finally {
      redis.disconnect();
    }
  });

  it('stop a restricted key at 20 requests per UTC day, whichever replica answers', async () => {
    // Arrange 19 requests already made today (as if spread over the day) in the shared store.
    const redis = await connectRedis(process.env.REDIS_URL!);
    try {
      const { day } = new RedisRateLimiter(redis, { prefix: redisPrefix.prefix }).keys(cappedKeyId, Date.now());
      await redis.set(day, '19', 'EX', 2 * 86_400);
      const twentieth = await request(topology.restUrls[0]!, 'GET', '/v1/me', { headers: bearer(cappedKey) });
      expect(twentieth.status).toBe(200);
      expect(twentieth.headers.get('ratelimit-remaining')).toBe('0');
      const refused = await request(topology.restUrls[1]!, 'GET', '/v1/me', { headers: bearer(cappedKey) });
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('rate_limited');
      expect(refused.body.error.message).toContain('daily');
      const now = new Date();
      const toMidnight = (Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) - now.getTime()) / 1000;
      expect(Math.abs(Number(refused.headers.get('retry-after')) - toMidnight)).toBeLessThanOrEqual(5);
      expect(refused.headers.get('ratelimit')).toMatch(/"daily";r=0;t=\d+/);
    } finally {
      redis.disconnect();
    }
  });
});
