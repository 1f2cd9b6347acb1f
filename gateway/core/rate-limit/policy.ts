// Rate-limit policies per key tier, and how a decision is written as HTTP headers.
//
// Restricted (also any tier we do not recognise): a token bucket of 5 refilling 2 per minute, and
// at most 20 requests per UTC day. Standard: the per-minute rate asked for at mint (0 → 60), with a
// bucket as big as that rate, and no daily cap.
//
// Headers: the older draft's RateLimit-Limit / -Remaining / -Reset (token-bucket meaning: limit =
// bucket size, remaining = whole tokens left, reset = seconds until the bucket is full again), plus
// the current draft-ietf-httpapi-ratelimit-headers structured fields RateLimit-Policy and RateLimit,
// and Retry-After on a refusal.
import { RateTier } from '../../../proto/gen/expertnet/common/v1/common.js';
import type { RateLimitDecision } from './limiter.js';

/** The per-minute rate of a standard key that asked for none (requestedRate 0). */
export const DEFAULT_REQUESTED_RATE = 60;

export const RESTRICTED_BUCKET_SIZE = 5;
export const RESTRICTED_REFILL_PER_MINUTE = 2;
export const RESTRICTED_DAILY_CAP = 20;

export interface RateLimitPolicy {
  tier: 'restricted' | 'standard';
  /** Bucket size: the largest burst, and RateLimit-Limit. */
  bucketSize: number;
  /** Tokens added per minute (a whole number, so the limiters can count in integers). */
  refillPerMinute: number;
  /** The same rate per second (refillPerMinute / 60), for display and arithmetic outside the limiters. */
  refillPerSecond: number;
  /** Requests allowed per UTC day, or null for none. */
  dailyCap: number | null;
}

/** The policy of a tier. Anything but RATE_TIER_STANDARD is restricted: restricted is the default. */
export function rateLimitPolicy(rateTier: RateTier, requestedRate: number): RateLimitPolicy {
  if (rateTier === RateTier.RATE_TIER_STANDARD) {
    const rate = Number.isFinite(requestedRate) && requestedRate >= 1 ? Math.floor(requestedRate) : DEFAULT_REQUESTED_RATE;
    return { tier: 'standard', bucketSize: rate, refillPerMinute: rate, refillPerSecond: rate / 60, dailyCap: null };
  }
  return {
    tier: 'restricted',
    bucketSize: RESTRICTED_BUCKET_SIZE,
    refillPerMinute: RESTRICTED_REFILL_PER_MINUTE,
    refillPerSecond: RESTRICTED_REFILL_PER_MINUTE / 60,
    dailyCap: RESTRICTED_DAILY_CAP,
  };
}

/** Seconds to refill the whole bucket from empty: the `w` of the "burst" policy (restricted: 150). */
export function burstWindowSeconds(policy: RateLimitPolicy): number {
  return Math.ceil((policy.bucketSize * 60) / policy.refillPerMinute);
}

/** The RateLimit-Policy field value, e.g. `"burst";q=5;w=150, "daily";q=20;w=86400`. */
export function rateLimitPolicyHeader(policy: RateLimitPolicy): string {
  const items = [`"burst";q=${policy.bucketSize};w=${burstWindowSeconds(policy)}`];
  if (policy.dailyCap !== null) items.push(`"daily";q=${policy.dailyCap};w=86400`);
  return items.join(', ');
}

/** The RateLimit field value, e.g. `"burst";r=3;t=40, "daily";r=17;t=30000`. */
export function rateLimitStateHeader(decision: RateLimitDecision): string {
  const items = [`"burst";r=${decision.burst.remaining};t=${decision.burst.resetSeconds}`];
  if (decision.daily) items.push(`"daily";r=${decision.daily.remaining};t=${decision.daily.resetSeconds}`);
  return items.join(', ');
}

/**
 * Every rate-limit header of a decision, with lowercase names: ratelimit-limit, ratelimit-remaining,
 * ratelimit-reset, ratelimit-policy, ratelimit, and retry-after when the request is refused.
 */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  const headers: Record<string, string> = {
    'ratelimit-limit': String(decision.limit),
    'ratelimit-remaining': String(decision.remaining),
    'ratelimit-reset': String(decision.resetSeconds),
    'ratelimit-policy': rateLimitPolicyHeader(decision.policy),
    ratelimit: rateLimitStateHeader(decision),
  };
  if (!decision.allowed && decision.retryAfterSeconds !== null) headers['retry-after'] = String(decision.retryAfterSeconds);
  return headers;
}
