// What both limiters share: a request is one step of its credential's token bucket (in memory, or
// one Redis script), under the policy of its tier, turned into the same decision and headers.
import { decide, type BucketOutcome, type RateLimitDecision, type RateLimiter, type RateLimitKey } from './limiter.js';
import { rateLimitPolicy, type RateLimitPolicy } from './policy.js';

export abstract class BucketRateLimiter implements RateLimiter {
  async check(key: RateLimitKey, nowMs: number = Date.now()): Promise<RateLimitDecision> {
    const decision = await this.decide(key, nowMs, undefined);
    if (decision === 'stale') throw new Error('a check without a stamp is never stale');
    return decision;
  }

  checkStamped(key: RateLimitKey, stamp: string, nowMs: number = Date.now()): Promise<RateLimitDecision | 'stale'> {
    return this.decide(key, nowMs, stamp);
  }

  private async decide(key: RateLimitKey, nowMs: number, stamp: string | undefined): Promise<RateLimitDecision | 'stale'> {
    const now = Math.floor(nowMs);
    const policy = rateLimitPolicy(key.rateTier, key.requestedRate);
    const outcome = await this.step(key.credentialId, policy, now, stamp);
    return outcome === 'stale' ? outcome : decide(policy, outcome, now);
  }

  /**
   * Takes one token of the credential's bucket at `now` (ms), or says which limit refused it. With
   * a stamp, first checks that the credential's published stamp still equals it, else takes
   * nothing and answers 'stale'.
   */
  protected abstract step(
    credentialId: string,
    policy: RateLimitPolicy,
    now: number,
    stamp: string | undefined,
  ): BucketOutcome | 'stale' | Promise<BucketOutcome | 'stale'>;
}
