// The Redis rate limiter, shared by every gateway replica. One Lua script per check does the whole
// step atomically — refill the bucket, check the daily cap, check the bucket, consume — so parallel
// requests on any number of replicas never spend the same token twice.
//
// Keys (both carry the hash tag {credentialId}, so they live in one Redis Cluster slot):
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
import { stampKey } from '../../../services/kit/credential-stamps.js';
import { BucketRateLimiter } from './bucket-limiter.js';
import { utcDay } from '../../../services/kit/utc-day.js';
import { capacityUnits, TOKEN_UNITS, type BucketOutcome } from './limiter.js';
import type { RateLimitPolicy } from './policy.js';

const COMMAND = 'expertnetRateLimitV2';
const DAY_KEY_TTL_SECONDS = 2 * 86_400;
const BUCKET_TTL_MARGIN_MS = 60_000;

/**
 * KEYS[1] bucket hash, KEYS[2] day counter, KEYS[3] the credential's stamp.
 * ARGV: now (ms), capacity (units), rate (units per ms), token (units), daily cap (0 = none),
 *       day-key TTL (s), bucket TTL margin (ms), the cached caller's stamp ('' = read live).
 * Returns { refused (0 none, 1 burst, 2 daily, 3 stale stamp: nothing counted), tokens after
 * (units), used today after }.
 */
const LUA = `
if ARGV[8] ~= '' and redis.call('GET', KEYS[3]) ~= ARGV[8] then return {3, 0, 0} end
local now = tonumber(ARGV[1])
local capacity = tonumber(ARGV[2])
local rate = tonumber(ARGV[3])
local token = tonumber(ARGV[4])
local cap = tonumber(ARGV[5])
local dayTtl = tonumber(ARGV[6])
local margin = tonumber(ARGV[7])

local state = redis.call('HMGET', KEYS[1], 't', 'ts')
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
  used = tonumber(redis.call('GET', KEYS[2]) or '0')
  if used >= cap then return {2, tokens, used} end
end
if tokens < token then return {1, tokens, used} end

tokens = tokens - token
redis.call('HSET', KEYS[1], 't', string.format('%d', tokens), 'ts', string.format('%d', ts))
redis.call('PEXPIRE', KEYS[1], math.floor((capacity - tokens + rate - 1) / rate) + margin)
if cap > 0 then
  used = redis.call('INCR', KEYS[2])
  if used == 1 then redis.call('EXPIRE', KEYS[2], dayTtl) end
end
return {0, tokens, used}
`;

type RateLimitCommand = (
  bucketKey: string,
  dayKey: string,
  stampKey: string,
  ...args: (string | number)[]
) => Promise<[number, number, number]>;

export interface RedisRateLimiterOptions {
  /** Key prefix (default `rl:`). */
  prefix?: string;
}

export class RedisRateLimiter extends BucketRateLimiter {
  private readonly prefix: string;
  private readonly command: RateLimitCommand;

  /** The connection is the caller's: this limiter never closes it. */
  constructor(redis: Redis, options: RedisRateLimiterOptions = {}) {
    super();
    this.prefix = options.prefix ?? 'rl:';
    redis.defineCommand(COMMAND, { numberOfKeys: 3, lua: LUA });
    const command = (redis as unknown as Record<string, RateLimitCommand>)[COMMAND];
    if (!command) throw new Error('ioredis did not define the rate-limit command');
    this.command = command.bind(redis);
  }

  /** The keys of a credential on a UTC day. */
  keys(credentialId: string, nowMs: number): { bucket: string; day: string } {
    const base = `${this.prefix}{${credentialId}}`;
    return { bucket: `${base}:b`, day: `${base}:d:${utcDay(nowMs)}` };
  }

  protected async step(credentialId: string, policy: RateLimitPolicy, now: number, stamp: string | undefined): Promise<BucketOutcome | 'stale'> {
    const keys = this.keys(credentialId, now);
    const [refused, tokenUnits, usedToday] = await this.command(
      keys.bucket,
      keys.day,
      stampKey(this.prefix, credentialId),
      now,
      capacityUnits(policy),
      policy.refillPerMinute,
      TOKEN_UNITS,
      policy.dailyCap ?? 0,
      DAY_KEY_TTL_SECONDS,
      BUCKET_TTL_MARGIN_MS,
      stamp ?? '',
    );
    if (refused === 3) return 'stale';
    const refusedBy = refused === 1 ? 'burst' : refused === 2 ? 'daily' : null;
    return { refusedBy, tokenUnits: Number(tokenUnits), usedToday: Number(usedToday) };
  }
}
