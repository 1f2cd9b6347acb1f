// Two Redis limiters on two connections — two gateway replicas — racing for the same tokens.
// Runs with the store-backed suites (DATABASE_URL and REDIS_URL set).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateTier } from '../../proto/gen/expertnet/common/v1/common.js';
import type { RateLimitKey } from '../../services/kit/rate-limit/limiter.js';
import { RedisRateLimiter } from '../../services/kit/rate-limit/redis-limiter.js';
import { connectRedis, type Redis } from '../../services/kit/redis.js';

const PREFIX = `rltest:${randomUUID()}:`;
const T0 = Date.UTC(2031, 4, 14, 12, 0, 0);
const connections: Redis[] = [];

async function connection(): Promise<Redis> {
  const redis = await connectRedis(process.env.REDIS_URL!);
  connections.push(redis);
  return redis;
}

function restricted(): RateLimitKey {
  return { credentialId: `key_${randomUUID()}`, rateTier: RateTier.RATE_TIER_RESTRICTED, requestedRate: 60 };
}
function standard(requestedRate: number): RateLimitKey {
  return { credentialId: `key_${randomUUID()}`, rateTier: RateTier.RATE_TIER_STANDARD, requestedRate };
}

afterAll(async () => {
  const [first] = connections;
  if (first) {
    const keys = await first.keys(`${PREFIX}*`);
    if (keys.length > 0) await first.del(...keys);
  }
  for (const redis of connections) redis.disconnect();
});

describe('redis limiter across replicas', () => {
  let replicas: [RedisRateLimiter, RedisRateLimiter];
  beforeAll(async () => {
    replicas = [
      new RedisRateLimiter(await connection(), { prefix: PREFIX }),
      new RedisRateLimiter(await connection(), { prefix: PREFIX }),
    ];
  });

  it('5 parallel requests on each of two replicas for a restricted key: exactly 5 of 10 allowed', async () => {
    const key = restricted();
    const decisions = await Promise.all(
      replicas.flatMap((limiter) => Array.from({ length: 5 }, () => limiter.check(key, T0))),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(5);
    expect(decisions.filter((d) => !d.allowed).every((d) => d.retryAfterSeconds === 30)).toBe(true);
    expect(decisions.filter((d) => d.allowed).map((d) => d.remaining).sort()).toEqual([0, 1, 2, 3, 4]);
  });

  it('100 parallel checks from two connections for a standard rate-50 key: exactly 50 allowed', async () => {
    const key = standard(50);
    const decisions = await Promise.all(
      Array.from({ length: 100 }, (_, i) => replicas[i % 2]!.check(key, T0)),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(50);
  });

  it('sets a TTL on both keys', async () => {
    const [limiter] = replicas;
    const redis = connections[connections.length - 1]!;
    const key = restricted();
    const now = Date.now();
    await limiter.check(key, now);
    const keys = limiter.keys(key.credentialId, now);
    const bucketTtl = await redis.pttl(keys.bucket);
    expect(bucketTtl).toBeGreaterThan(60_000);
    expect(bucketTtl).toBeLessThanOrEqual(30_000 + 60_000);
    const dayTtl = await redis.ttl(keys.day);
    expect(dayTtl).toBeGreaterThan(86_400);
    expect(dayTtl).toBeLessThanOrEqual(2 * 86_400);
    expect(await redis.get(keys.day)).toBe('1');
  });
});
