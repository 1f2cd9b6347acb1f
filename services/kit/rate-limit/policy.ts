// Rate-limit policies per key tier.
//
// Restricted (also any tier we do not recognise): a token bucket of 5 refilling 2 per minute, and
// at most 20 requests per UTC day. Standard: the per-minute rate asked for at mint (0 → 60), with a
// bucket as big as that rate, and no daily cap.
import { RateTier } from '../../../proto/gen/expertnet/common/v1/common.js';

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
