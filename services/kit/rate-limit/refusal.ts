// The words of a rate-limit refusal, the same on every surface (REST 429, MCP tool error).
import type { RateLimitDecision } from './limiter.js';

/** The message of a 429: which limit, and when to retry. */
export function refusalMessage(decision: RateLimitDecision): string {
  const retry = decision.retryAfterSeconds ?? 1;
  const { policy } = decision;
  if (decision.refusedBy === 'daily') {
    return `daily limit of ${policy.dailyCap} requests reached (it resets at 00:00 UTC); retry in ${retry} s`;
  }
  return (
    `rate limit exceeded: burst of ${policy.bucketSize} requests used up ` +
    `(refilling ${policy.refillPerMinute} per minute); retry in ${retry} s`
  );
}
