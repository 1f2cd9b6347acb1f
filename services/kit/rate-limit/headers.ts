// How a rate-limit decision is written as HTTP headers: the older draft's RateLimit-Limit /
// -Remaining / -Reset (token-bucket meaning: limit = bucket size, remaining = whole tokens left,
// reset = seconds until the bucket is full again), plus the current
// draft-ietf-httpapi-ratelimit-headers structured fields RateLimit-Policy and RateLimit, and
// Retry-After on a refusal.
import type { RateLimitDecision } from './limiter.js';
import type { RateLimitPolicy } from './policy.js';

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
