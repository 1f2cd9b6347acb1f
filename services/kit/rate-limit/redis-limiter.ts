// The Redis rate limiter, shared by every gateway replica. One Lua script does a request's whole
// step atomically — refill the bucket, check the daily cap, check the bucket, consume — so parallel
// requests on any number of replicas never spend the same token twice. The steps of the requests
// of one turn of the event loop go in one call of the script, one after another.
//
// Keys (each carries the hash tag {credentialId}: a credential's keys share a Redis Cluster slot;
// a call of several credentials' steps needs one Redis, as connectRedis makes):
//   <prefix>{<credentialId>}:b             hash { t: tokens in TOKEN_UNITS, ts: bucket clock in ms }
//                                          PEXPIRE = time to refill completely + 60 s: an absent
//                                          bucket is a full one.
//   <prefix>{<credentialId>}:d:YYYY-MM-DD  the UTC day's count of allowed requests (restricted
//                                          tier only), EXPIRE 2 days.
//
// The clock is the caller's (nowMs), not Redis TIME, so tests can drive it. Replicas' clocks may
// differ a little: the bucket keeps its own clock `ts` = the latest time seen, and a check whose
// now is behind it refills nothing (never a negative refill, never the same interval twice).
// Arithmetic is in integers (see limiter.ts): Lua numbers are doubles, exact far beyond the values
// used here (tokens ≤ 3.6e8 units, elapsed capped at capacity ms, timestamps ~1.8e12 ms).
import type { Redis } from 'ioredis';
import { stampKey } from '../credential-stamps.js';
import { batchedRead } from '../batched-read.js';
import { BucketRateLimiter } from './bucket-limiter.js';
import { utcDay } from '../utc-day.js';
import { capacityUnits, TOKEN_UNITS, type BucketOutcome } from './limiter.js';
import type { RateLimitPolicy } from './policy.js';

const COMMAND = 'expertnetRateLimitV3';
const DAY_KEY_TTL_SECONDS = 2 * 86_400;
const BUCKET_TTL_MARGIN_MS = 60_000;
/** Arguments of one step in ARGV (after ARGV[1], the step count). */
const STEP_ARGS = 8;

/**
 * Steps of several requests in one script call, one after another, each as if alone: a step of a
 * credential sees the buckets the steps before it left. ARGV[1] is the number of steps n; step i
 * (1-based) has KEYS[3i-2] bucket hash, KEYS[3i-1] day counter, KEYS[3i] the credential's stamp, and
 * 8 arguments from ARGV[2 + 8(i-1)]: now (ms), capacity (units), rate (units per ms), token (units),
 * daily cap (0 = none), day-key TTL (s), bucket TTL margin (ms), the cached caller's stamp ('' = read
 * live). Returns 3 numbers per step: refused (0 none, 1 burst, 2 daily, 3 stale stamp: nothing
 * counted), tokens after (units), used today after.
 */
const LUA = `
local function step(bucket, day, stampKey, a)
  if ARGV[a + 7] ~= '' and redis.call('GET', stampKey) ~= ARGV[a + 7] then return 3, 0, 0 end
  local now = tonumber(ARGV[a])
  local capacity = tonumber(ARGV[a + 1])
  local rate = tonumber(ARGV[a + 2])
  local token = tonumber(ARGV[a + 3])
  local cap = tonumber(ARGV[a + 4])
  local dayTtl = tonumber(ARGV[a + 5])
  local margin = tonumber(ARGV[a + 6])

  local state = redis.call('HMGET', bucket, 't', 'ts')
  local tokens = tonumber(state[1])
  local ts = tonumber(state[2])
  if tokens == nil or ts == nil then
    tokens = capacity
    ts = now
  end
  if tokens > capacity then tokens = capacity end
  if tokens < 0 then tokens = 0 end
  if now > ts then
    local elapsed = now - ts
    if elapsed > capacity then elapsed = capacity end
    tokens = tokens + elapsed * rate
    if tokens > capacity then tokens = capacity end
    ts = now
  end

  local used = 0
  if cap > 0 then
    used = tonumber(redis.call('GET', day) or '0')
    if used >= cap then return 2, tokens, used end
  end
  if tokens < token then return 1, tokens, used end

  tokens = tokens - token
  redis.call('HSET', bucket, 't', string.format('%d', tokens), 'ts', string.format('%d', ts))
  redis.call('PEXPIRE', bucket, math.floor((capacity - tokens + rate - 1) / rate) + margin)
  if cap > 0 then
    used = redis.call('INCR', day)
    if used == 1 then redis.call('EXPIRE', day, dayTtl) end
  end
  return 0, tokens, used
end

local out = {}
for i = 1, tonumber(ARGV[1]) do
  local refused, tokens, used = step(KEYS[3 * i - 2], KEYS[3 * i - 1], KEYS[3 * i], 2 + ${STEP_ARGS} * (i - 1))
  out[3 * i - 2] = refused
  out[3 * i - 1] = tokens
  out[3 * i] = used
end
return out
`;

/** numberOfKeys first (the script's keys vary with the number of steps), then KEYS, then ARGV. */
type RateLimitCommand = (numberOfKeys: number, ...keysAndArgs: (string | number)[]) => Promise<number[]>;

interface StepAsk {
  credentialId: string;
  policy: RateLimitPolicy;
  now: number;
  stamp: string | undefined;
}

export interface RedisRateLimiterOptions {
  /** Key prefix (default `rl:`). */
  prefix?: string;
}

export class RedisRateLimiter extends BucketRateLimiter {
  private readonly prefix: string;
  private readonly command: RateLimitCommand;
  private readonly steps: (ask: StepAsk) => Promise<BucketOutcome | 'stale'>;

  /** The connection is the caller's: this limiter never closes it. */
  constructor(redis: Redis, options: RedisRateLimiterOptions = {}) {
    super();
    this.prefix = options.prefix ?? 'rl:';
    redis.defineCommand(COMMAND, { lua: LUA });
    const command = (redis as unknown as Record<string, RateLimitCommand>)[COMMAND];
    if (!command) throw new Error('ioredis did not define the rate-limit command');
    this.command = command.bind(redis);
    // The requests of one turn of the event loop take their steps in one script call: one command
    // for ioredis to build and parse and for Redis to run, where each request cost one of each.
    this.steps = batchedRead((asks) => this.stepAll(asks));
  }

  /** The keys of a credential on a UTC day. */
  keys(credentialId: string, nowMs: number): { bucket: string; day: string } {
    const base = `${this.prefix}{${credentialId}}`;
    return { bucket: `${base}:b`, day: `${base}:d:${utcDay(nowMs)}` };
  }

  protected step(credentialId: string, policy: RateLimitPolicy, now: number, stamp: string | undefined): Promise<BucketOutcome | 'stale'> {
    return this.steps({ credentialId, policy, now, stamp });
  }

  private async stepAll(asks: readonly StepAsk[]): Promise<Array<BucketOutcome | 'stale'>> {
    const keys: string[] = [];
    const args: (string | number)[] = [asks.length];
    for (const { credentialId, policy, now, stamp } of asks) {
      const { bucket, day } = this.keys(credentialId, now);
      keys.push(bucket, day, stampKey(this.prefix, credentialId));
      args.push(now, capacityUnits(policy), policy.refillPerMinute, TOKEN_UNITS, policy.dailyCap ?? 0, DAY_KEY_TTL_SECONDS, BUCKET_TTL_MARGIN_MS, stamp ?? '');
    }
    const out = await this.command(keys.length, ...keys, ...args);
    return asks.map((_, i) => {
      const refused = out[3 * i];
      if (refused === 3) return 'stale';
      const refusedBy = refused === 1 ? 'burst' : refused === 2 ? 'daily' : null;
      return { refusedBy, tokenUnits: Number(out[3 * i + 1]), usedToday: Number(out[3 * i + 2]) };
    });
  }
}
