// The rate limiter of the edge: one check per authenticated request, keyed by credential. Two
// backends share the arithmetic here: memory (one process) and Redis (many gateway replicas).
//
// Integer arithmetic. Tokens are counted in units of 1/60000 of a token (TOKEN_UNITS per token)
// and time in whole milliseconds, so a bucket refilling R tokens per minute gains exactly R units
// per millisecond. Every quantity is then an integer far below 2^53 (a 6000/min bucket holds
// 360,000,000 units), exact in JavaScript numbers and in Redis Lua's doubles alike: no rounding
// drift, and both backends compute the very same state.
import type { RateTier } from '../../../proto/gen/expertnet/common/v1/common.js';
import type { RateLimitPolicy } from './policy.js';

/** Units per token: with it, R tokens per minute is R units per millisecond. */
export const TOKEN_UNITS = 60_000;

const DAY_MS = 86_400_000;

export interface RateLimitKey {
  credentialId: string;
  rateTier: RateTier;
  requestedRate: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  /** Which limit refused the request: the token bucket or the daily cap; null when allowed. */
  refusedBy: 'burst' | 'daily' | null;
  /** Bucket size (RateLimit-Limit). */
  limit: number;
  /** Whole requests left after this one: whole tokens, and for a daily cap the smaller of both. */
  remaining: number;
  /** Seconds until the bucket is full again (ceil; 0 when full). */
  resetSeconds: number;
  /** Seconds until the next request would be allowed (ceil, ≥ 1) when refused; null when allowed. */
  retryAfterSeconds: number | null;
  policy: RateLimitPolicy;
  /** The bucket alone: whole tokens left and seconds to full. */
  burst: { remaining: number; resetSeconds: number };
  /** The daily cap, when the policy has one: requests left today and seconds to 00:00 UTC. */
  daily: { remaining: number; resetSeconds: number } | null;
}

export interface RateLimiter {
  /** Counts one request of this key at nowMs (default: now) and says whether it may proceed. */
  check(key: RateLimitKey, nowMs?: number): Promise<RateLimitDecision>;
  /**
   * The same for a caller identity answered from its cache with `stamp`: counted only while the
   * credential's published stamp still equals it; 'stale' (nothing counted) when it does not.
   */
  checkStamped(key: RateLimitKey, stamp: string, nowMs?: number): Promise<RateLimitDecision | 'stale'>;
}

/** What a backend reports after its (atomic) step: the bucket and the day's count after it. */
export interface BucketOutcome {
  refusedBy: 'burst' | 'daily' | null;
  /** Tokens in the bucket after the step, in TOKEN_UNITS. */
  tokenUnits: number;
  /** Requests counted today after the step (0 when there is no daily cap). */
  usedToday: number;
}

/** The bucket's capacity in units. */
export function capacityUnits(policy: RateLimitPolicy): number {
  return policy.bucketSize * TOKEN_UNITS;
}

/** Whole seconds (ceil, ≥ 1) from nowMs to the next 00:00 UTC. */
export function secondsToUtcMidnight(nowMs: number): number {
  const next = (Math.floor(nowMs / DAY_MS) + 1) * DAY_MS;
  return Math.max(1, Math.ceil((next - nowMs) / 1000));
}

/** ceil(a / b) for non-negative integers a and positive integers b. */
function ceilDiv(a: number, b: number): number {
  return Math.floor((a + b - 1) / b);
}

/** Builds the decision from a backend's outcome (both backends share it). */
export function decide(policy: RateLimitPolicy, outcome: BucketOutcome, nowMs: number): RateLimitDecision {
  const capacity = capacityUnits(policy);
  const unitsPerSecond = policy.refillPerMinute * 1000;
  const tokenUnits = Math.min(capacity, Math.max(0, outcome.tokenUnits));
  const burst = {
    remaining: Math.floor(tokenUnits / TOKEN_UNITS),
    resetSeconds: ceilDiv(capacity - tokenUnits, unitsPerSecond),
  };
  // Seconds until the bucket holds one whole token (0 when it does).
  const burstWait = tokenUnits >= TOKEN_UNITS ? 0 : Math.max(1, ceilDiv(TOKEN_UNITS - tokenUnits, unitsPerSecond));
  const daily =
    policy.dailyCap === null
      ? null
      : { remaining: Math.max(0, policy.dailyCap - outcome.usedToday), resetSeconds: secondsToUtcMidnight(nowMs) };

  let retryAfterSeconds: number | null = null;
  if (outcome.refusedBy === 'burst') retryAfterSeconds = burstWait;
  // After midnight the bucket must still hold a token: wait for whichever comes later.
  else if (outcome.refusedBy === 'daily') retryAfterSeconds = Math.max(daily?.resetSeconds ?? 1, burstWait);

  return {
    allowed: outcome.refusedBy === null,
    refusedBy: outcome.refusedBy,
    limit: policy.bucketSize,
    remaining: daily ? Math.min(burst.remaining, daily.remaining) : burst.remaining,
    resetSeconds: burst.resetSeconds,
    retryAfterSeconds,
    policy,
    burst,
    daily,
  };
}
