// The rate limiters, memory always and Redis when REDIS_URL is set, on a driven clock (nowMs):
// restricted (bucket 5 at 2/min, 20 per UTC day) and standard (requestedRate per minute, burst
// equal to it). Then the header formatting. Two limiters racing on one Redis (two gateway replicas)
// are in test/postgres/redis-limiter-replicas.test.ts.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateTier } from '../../../proto/gen/expertnet/common/v1/common.js';
import { connectRedis, type Redis } from '../redis.js';
import { decide, secondsToUtcMidnight, TOKEN_UNITS, type RateLimiter, type RateLimitKey } from './limiter.js';
import { MemoryRateLimiter } from './memory-limiter.js';
import { rateLimitHeaders } from './headers.js';
import { rateLimitPolicy } from './policy.js';
import { RedisRateLimiter } from './redis-limiter.js';

const REDIS_URL = process.env.REDIS_URL;
/** Unique per run; every key this file writes starts with it and is deleted afterwards. */
const PREFIX = `rltest:${randomUUID()}:`;

const connections: Redis[] = [];
async function connection(): Promise<Redis> {
  const redis = await connectRedis(REDIS_URL!);
  connections.push(redis);
  return redis;
}

afterAll(async () => {
  const [first] = connections;
  if (first) {
    let cursor = '0';
    do {
      const [next, keys] = await first.scan(cursor, 'MATCH', `${PREFIX}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await first.del(...keys);
    } while (cursor !== '0');
  }
  for (const redis of connections) redis.disconnect();
});

interface Backend {
  name: string;
  make(): Promise<RateLimiter>;
}

const backends: Backend[] = [{ name: 'memory', make: async () => new MemoryRateLimiter() }];
if (REDIS_URL) backends.push({ name: 'redis', make: async () => new RedisRateLimiter(await connection(), { prefix: PREFIX }) });

/** Noon UTC: a whole afternoon before the daily cap resets. */
const T0 = Date.UTC(2031, 4, 14, 12, 0, 0);
const SECOND = 1000;

function restricted(): RateLimitKey {
  return { credentialId: `key_${randomUUID()}`, rateTier: RateTier.RATE_TIER_RESTRICTED, requestedRate: 60 };
}
function standard(requestedRate: number): RateLimitKey {
  return { credentialId: `key_${randomUUID()}`, rateTier: RateTier.RATE_TIER_STANDARD, requestedRate };
}

describe.each(backends)('rate limiter on $name', ({ make }) => {
  let limiter: RateLimiter;
  beforeAll(async () => {
    limiter = await make();
  });

  describe('restricted tier', () => {
    it('allows a burst of 5 (remaining 4..0), refuses the 6th for 30 s, then allows one more', async () => {
      const key = restricted();
      const remaining: number[] = [];
      for (let i = 0; i < 5; i++) {
        const d = await limiter.check(key, T0);
        expect(d.allowed).toBe(true);
        expect(d.limit).toBe(5);
        expect(d.retryAfterSeconds).toBeNull();
        remaining.push(d.remaining);
      }
      expect(remaining).toEqual([4, 3, 2, 1, 0]);

      const sixth = await limiter.check(key, T0);
      expect(sixth).toMatchObject({ allowed: false, refusedBy: 'burst', remaining: 0, retryAfterSeconds: 30, resetSeconds: 150 });

      const early = await limiter.check(key, T0 + 29 * SECOND);
      expect(early).toMatchObject({ allowed: false, retryAfterSeconds: 1 });

      const later = await limiter.check(key, T0 + 30 * SECOND);
      expect(later).toMatchObject({ allowed: true, remaining: 0, resetSeconds: 150 });
      expect(await limiter.check(key, T0 + 30 * SECOND)).toMatchObject({ allowed: false, retryAfterSeconds: 30 });
    });

    it('reports seconds to full; after 150 s idle the bucket is full again (reset 0)', async () => {
      const key = restricted();
      const first = await limiter.check(key, T0);
      expect(first).toMatchObject({ allowed: true, remaining: 4, resetSeconds: 30 });
      for (let i = 0; i < 4; i++) await limiter.check(key, T0);
      // 20 s later: 2/3 of a token back, so 130 s to full.
      const refused = await limiter.check(key, T0 + 20 * SECOND);
      expect(refused).toMatchObject({ allowed: false, resetSeconds: 130, retryAfterSeconds: 10 });

      const idle = T0 + 150 * SECOND;
      const afterIdle = await limiter.check(key, idle);
      expect(afterIdle).toMatchObject({ allowed: true, remaining: 4, resetSeconds: 30 });
      // It really was full: four more in a burst, then refused.
      const burst: boolean[] = [];
      for (let i = 0; i < 5; i++) burst.push((await limiter.check(key, idle)).allowed);
      expect(burst).toEqual([true, true, true, true, false]);
      // A full bucket reports 0 to reset (seen in a real check in the daily-cap test too).
      const policy = rateLimitPolicy(RateTier.RATE_TIER_RESTRICTED, 0);
      expect(decide(policy, { refusedBy: 'daily', tokenUnits: 5 * TOKEN_UNITS, usedToday: 20 }, idle).resetSeconds).toBe(0);
    });

    it('refuses the 21st request of a UTC day until 00:00 UTC, allows it the day after', async () => {
      const key = restricted();
      let now = T0;
      for (let i = 0; i < 20; i++) {
        const d = await limiter.check(key, now);
        expect(d.allowed, `request ${i + 1}`).toBe(true);
        expect(d.daily?.remaining).toBe(19 - i);
        now += 30 * SECOND; // one token back each time: the bucket never blocks
      }
      const twentyFirst = await limiter.check(key, now);
      const toMidnight = secondsToUtcMidnight(now);
      expect(toMidnight).toBe(12 * 3600 - 10 * 60); // 12:10:00 → 24:00:00
      expect(twentyFirst).toMatchObject({ allowed: false, refusedBy: 'daily', remaining: 0, retryAfterSeconds: toMidnight });
      // 30 s after the 20th the bucket is full again (reset 0); a daily refusal leaves it so.
      expect(twentyFirst).toMatchObject({ resetSeconds: 0, burst: { remaining: 5, resetSeconds: 0 } });
      expect(await limiter.check(key, now)).toMatchObject({ allowed: false, refusedBy: 'daily' });

      const nextDay = Date.UTC(2031, 4, 15, 0, 0, 0);
      const d = await limiter.check(key, nextDay);
      expect(d).toMatchObject({ allowed: true, refusedBy: null, remaining: 4 });
      expect(d.daily).toEqual({ remaining: 19, resetSeconds: 86_400 });
    });

    it('a request refused by the bucket does not count toward the day', async () => {
      const key = restricted();
      for (let i = 0; i < 5; i++) await limiter.check(key, T0);
      for (let i = 0; i < 10; i++) expect((await limiter.check(key, T0 + i)).allowed).toBe(false);
      const d = await limiter.check(key, T0 + 30 * SECOND);
      expect(d.allowed).toBe(true);
      expect(d.daily?.remaining).toBe(20 - 6);
    });

    it('treats an unspecified tier as restricted', async () => {
      const key = { ...restricted(), rateTier: RateTier.RATE_TIER_UNSPECIFIED };
      const d = await limiter.check(key, T0);
      expect(d).toMatchObject({ limit: 5, remaining: 4 });
      expect(d.daily).not.toBeNull();
    });
  });

  describe('standard tier', () => {
    it('allows a burst of requestedRate (60), refuses the 61st with retry 1 s', async () => {
      const key = standard(60);
      for (let i = 0; i < 60; i++) {
        const d = await limiter.check(key, T0);
        expect(d.allowed).toBe(true);
        expect(d.remaining).toBe(59 - i);
      }
      const refused = await limiter.check(key, T0);
      expect(refused).toMatchObject({ allowed: false, refusedBy: 'burst', limit: 60, retryAfterSeconds: 1, resetSeconds: 60, daily: null });
      expect((await limiter.check(key, T0 + SECOND)).allowed).toBe(true);
    });

    it('requestedRate 0 means 60 per minute', async () => {
      const key = standard(0);
      const allowed: boolean[] = [];
      for (let i = 0; i < 61; i++) allowed.push((await limiter.check(key, T0)).allowed);
      expect(allowed.filter(Boolean)).toHaveLength(60);
      expect(allowed[60]).toBe(false);
      expect((await limiter.check(key, T0)).limit).toBe(60);
    });

    it('has no daily cap', async () => {
      const key = standard(6000);
      let allowed = 0;
      for (let i = 0; i < 100; i++) if ((await limiter.check(key, T0 + i * SECOND)).allowed) allowed++;
      expect(allowed).toBe(100);
    });
  });

  it('a clock going backwards never adds tokens', async () => {
    const key = restricted();
    for (let i = 0; i < 5; i++) await limiter.check(key, T0);
    // An hour back, then back again: nothing refilled, nothing broken.
    expect(await limiter.check(key, T0 - 3600 * SECOND)).toMatchObject({ allowed: false, remaining: 0 });
    expect(await limiter.check(key, T0 - 7200 * SECOND)).toMatchObject({ allowed: false, remaining: 0 });
    // The bucket's clock stayed at T0: 30 s after it exactly one token is back, not more.
    expect((await limiter.check(key, T0 + 30 * SECOND)).allowed).toBe(true);
    expect((await limiter.check(key, T0 + 30 * SECOND)).allowed).toBe(false);
    // A replica whose clock lags by 10 s does not refill the same interval again.
    expect((await limiter.check(key, T0 + 20 * SECOND)).allowed).toBe(false);
    expect((await limiter.check(key, T0 + 59 * SECOND)).allowed).toBe(false);
    expect((await limiter.check(key, T0 + 60 * SECOND)).allowed).toBe(true);
  });

  it('checks sent together (one Redis call) spend a bucket as checks sent one by one do', async () => {
    const key = restricted();
    const other = restricted();
    // Eight checks of one key and one of another, all in the same turn of the event loop.
    const decisions = await Promise.all([...Array.from({ length: 8 }, () => limiter.check(key, T0)), limiter.check(other, T0)]);
    const mine = decisions.slice(0, 8);
    expect(mine.map((d) => d.allowed)).toEqual([true, true, true, true, true, false, false, false]);
    expect(mine.slice(0, 5).map((d) => d.remaining)).toEqual([4, 3, 2, 1, 0]);
    expect(mine[5]).toMatchObject({ refusedBy: 'burst', retryAfterSeconds: 30 });
    expect(decisions[8]).toMatchObject({ allowed: true, remaining: 4 });
    // Only the five allowed requests counted toward the day: the next one, once the bucket refilled, leaves 14 of 20.
    expect((await limiter.check(key, T0 + 150 * SECOND)).daily).toMatchObject({ remaining: 14 });
  });

  it('two credentials do not share buckets', async () => {
    const a = restricted();
    const b = restricted();
    for (let i = 0; i < 5; i++) await limiter.check(a, T0);
    expect((await limiter.check(a, T0)).allowed).toBe(false);
    expect(await limiter.check(b, T0)).toMatchObject({ allowed: true, remaining: 4 });
  });
});

describe('memory limiter', () => {
  it('stays bounded: past maxEntries it drops buckets that are full and idle, keeps the rest', async () => {
    const limiter = new MemoryRateLimiter({ maxEntries: 10 });
    const idle = Array.from({ length: 8 }, () => standard(60));
    for (const key of idle) await limiter.check(key, T0);
    const counted = restricted(); // holds today's count: must survive
    await limiter.check(counted, T0);
    const busy = standard(60); // its whole burst spent just before: far from full
    for (let i = 0; i < 60; i++) await limiter.check(busy, T0 + 59 * SECOND);
    expect(limiter.size).toBe(10);
    // A minute later the idle standard buckets are full again; a new key triggers the sweep.
    await limiter.check(standard(60), T0 + 60 * SECOND);
    expect(limiter.size).toBe(3);
    // The restricted key kept its daily count (19 left before this request, 18 after).
    expect((await limiter.check(counted, T0 + 61 * SECOND)).daily?.remaining).toBe(18);
  });
});

describe('rate-limit headers', () => {
  it('restricted: limit, remaining, reset, both policies and their state', () => {
    const now = Date.UTC(2031, 4, 14, 23, 0, 0); // an hour to midnight
    const policy = rateLimitPolicy(RateTier.RATE_TIER_RESTRICTED, 0);
    // 3 whole tokens and a third after this request; 3 requests used today.
    const d = decide(policy, { refusedBy: null, tokenUnits: 3 * TOKEN_UNITS + TOKEN_UNITS / 3, usedToday: 3 }, now);
    expect(rateLimitHeaders(d)).toEqual({
      'ratelimit-limit': '5',
      'ratelimit-remaining': '3',
      'ratelimit-reset': '50',
      'ratelimit-policy': '"burst";q=5;w=150, "daily";q=20;w=86400',
      ratelimit: '"burst";r=3;t=50, "daily";r=17;t=3600',
    });
  });

  it('restricted, refused: retry-after, remaining the smaller of bucket and day', () => {
    const now = Date.UTC(2031, 4, 14, 23, 59, 50); // 10 s to midnight
    const policy = rateLimitPolicy(RateTier.RATE_TIER_RESTRICTED, 0);
    const daily = decide(policy, { refusedBy: 'daily', tokenUnits: 5 * TOKEN_UNITS, usedToday: 20 }, now);
    expect(rateLimitHeaders(daily)).toMatchObject({ 'ratelimit-remaining': '0', 'ratelimit-reset': '0', 'retry-after': '10' });
    // Day over in 10 s, but the empty bucket needs 30 s: the later one is the answer.
    const both = decide(policy, { refusedBy: 'daily', tokenUnits: 0, usedToday: 20 }, now);
    expect(both.retryAfterSeconds).toBe(30);
    const burst = decide(policy, { refusedBy: 'burst', tokenUnits: TOKEN_UNITS / 2, usedToday: 7 }, now);
    expect(rateLimitHeaders(burst)).toMatchObject({ ratelimit: '"burst";r=0;t=135, "daily";r=13;t=10', 'retry-after': '15' });
  });

  it('standard: only the burst policy, w = 60 s', () => {
    const policy = rateLimitPolicy(RateTier.RATE_TIER_STANDARD, 120);
    expect(policy).toEqual({ tier: 'standard', bucketSize: 120, refillPerMinute: 120, refillPerSecond: 2, dailyCap: null });
    const d = decide(policy, { refusedBy: null, tokenUnits: 100 * TOKEN_UNITS, usedToday: 0 }, Date.UTC(2031, 0, 1));
    expect(rateLimitHeaders(d)).toEqual({
      'ratelimit-limit': '120',
      'ratelimit-remaining': '100',
      'ratelimit-reset': '10',
      'ratelimit-policy': '"burst";q=120;w=60',
      ratelimit: '"burst";r=100;t=10',
    });
    const refused = decide(policy, { refusedBy: 'burst', tokenUnits: 0, usedToday: 0 }, Date.UTC(2031, 0, 1));
    expect(rateLimitHeaders(refused)['retry-after']).toBe('1');
    expect(rateLimitPolicy(RateTier.RATE_TIER_STANDARD, 0).bucketSize).toBe(60);
  });
});
