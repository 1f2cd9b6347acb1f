// What both limiters share: a request is one step of its credential's token bucket (in memory, or
// one Redis script), under the policy of its tier, turned into the same decision and headers.
import { decide, type BucketOutcome, type RateLimitDecision, type RateLimiter, type RateLimitKey } from './limiter.js';
import { rateLimitPolicy, type RateLimitPolicy } from './policy.js';

export abstract class BucketRateLimiter implements RateLimiter {
  async check(key: RateLimitKey, nowMs: number = Date.now()): Promise<RateLimitDecision> {
    const now = Math.floor(nowMs);
    const policy = rateLimitPolicy(key.rateTier, key.requestedRate);
    return decide(policy, await this.step(key.credentialId, policy, now), now);
  }

  /** Takes one token of the credential's bucket at `now` (ms), or says which limit refused it. */
  protected abstract step(credentialId: string, policy: RateLimitPolicy, now: number): BucketOutcome | Promise<BucketOutcome>;
}
