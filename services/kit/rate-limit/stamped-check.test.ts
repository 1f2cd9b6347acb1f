// The rate limiter's stamped check (docs/CREDENTIAL-CACHE.md): a caller identity answered from its
// cache counts only while the credential's published stamp equals the caller's; otherwise the
// check answers 'stale' and takes nothing. Memory (with the process's stamps) always, Redis when
// REDIS_URL is set.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateTier } from '../../../proto/gen/expertnet/common/v1/common.js';
import { MemoryCredentialStamps, RedisCredentialStamps, type CredentialStamps } from '../credential-stamps.js';
import { connectRedis, type Redis } from '../redis.js';
import type { RateLimitDecision, RateLimiter, RateLimitKey } from './limiter.js';
import { MemoryRateLimiter } from './memory-limiter.js';
import { RedisRateLimiter } from './redis-limiter.js';

const PREFIX = `rltest:${randomUUID()}:`;
let redis: Redis | undefined;

afterAll(async () => {
  if (!redis) return;
  const keys = await redis.keys(`${PREFIX}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

interface Backend {
  name: string;
  make(): Promise<{ limiter: RateLimiter; stamps: CredentialStamps }>;
}

const backends: Backend[] = [{
  name: 'memory',
  make: async () => {
    const stamps = new MemoryCredentialStamps();
    return { limiter: new MemoryRateLimiter({ stamps }), stamps };
  },
}];
if (process.env.REDIS_URL) {
  backends.push({
    name: 'redis',
    make: async () => {
      redis ??= await connectRedis(process.env.REDIS_URL!);
      return { limiter: new RedisRateLimiter(redis, { prefix: PREFIX }), stamps: new RedisCredentialStamps(redis, PREFIX) };
    },
  });
}

/** A restricted key: a bucket of 5. */
function key(): RateLimitKey {
  return { credentialId: `key_${randomUUID()}`, rateTier: RateTier.RATE_TIER_RESTRICTED, requestedRate: 60 };
}
const T0 = Date.UTC(2031, 4, 14, 12, 0, 0);

function remaining(decision: RateLimitDecision | 'stale'): number | 'stale' {
  return decision === 'stale' ? decision : decision.remaining;
}

describe.each(backends)('stamped rate-limit check on $name', ({ make }) => {
  let limiter: RateLimiter;
  let stamps: CredentialStamps;
  beforeAll(async () => {
    ({ limiter, stamps } = await make());
  });

  it('counts the request while the published stamp equals the caller’s', async () => {
    const k = key();
    await stamps.publish([[k.credentialId, 'stamp-1']]);
    expect(remaining(await limiter.checkStamped(k, 'stamp-1', T0))).toBe(4);
    expect(remaining(await limiter.checkStamped(k, 'stamp-1', T0))).toBe(3);
  });

  it('answers stale and counts nothing when no stamp is published or another one is', async () => {
    const k = key();
    expect(await limiter.checkStamped(k, 'stamp-1', T0)).toBe('stale');
    await stamps.publish([[k.credentialId, 'stamp-2']]);
    expect(await limiter.checkStamped(k, 'stamp-1', T0)).toBe('stale');
    // Neither stale check took a token: the bucket is still full.
    expect((await limiter.check(k, T0)).remaining).toBe(4);
  });

  it('answers each of checks sent together by its own stamp: a stale one takes nothing, the others count', async () => {
    const fresh = key();
    const changed = key();
    await stamps.publish([[fresh.credentialId, 'stamp-1'], [changed.credentialId, 'stamp-2']]);
    const [a, b, c] = await Promise.all([
      limiter.checkStamped(fresh, 'stamp-1', T0),
      limiter.checkStamped(changed, 'stamp-1', T0),
      limiter.checkStamped(fresh, 'stamp-1', T0),
    ]);
    expect([remaining(a), remaining(b), remaining(c)]).toEqual([4, 'stale', 3]);
    expect((await limiter.check(changed, T0)).remaining).toBe(4);
  });

  it('never lets a seed put a stamp over a published one', async () => {
    const k = key();
    await stamps.publish([[k.credentialId, 'after-change']]);
    await stamps.seed(k.credentialId, 'read-before-change');
    expect(await limiter.checkStamped(k, 'read-before-change', T0)).toBe('stale');
    expect(remaining(await limiter.checkStamped(k, 'after-change', T0))).toBe(4);
  });

  it('takes a seeded stamp where none was published', async () => {
    const k = key();
    await stamps.seed(k.credentialId, 'read-live');
    expect(remaining(await limiter.checkStamped(k, 'read-live', T0))).toBe(4);
  });
});

describe('memory limiter without the process’s stamps', () => {
  it('finds every stamped check stale', async () => {
    expect(await new MemoryRateLimiter().checkStamped(key(), 'stamp-1', T0)).toBe('stale');
  });
});
