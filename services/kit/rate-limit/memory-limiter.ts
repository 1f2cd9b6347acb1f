// The in-process rate limiter: correct for ONE process only (without REDIS_URL each replica would
// keep its own buckets). The same integer arithmetic as the Redis script (see limiter.ts).
//
// Memory stays bounded: an absent bucket means a full one, so once the map grows past maxEntries
// a sweep drops every bucket that has refilled completely while idle (and holds no count for
// today's daily cap, which would otherwise be forgotten).
import type { MemoryCredentialStamps } from '../credential-stamps.js';
import { BucketRateLimiter } from './bucket-limiter.js';
import { utcDay } from '../utc-day.js';
import { capacityUnits, TOKEN_UNITS, type BucketOutcome } from './limiter.js';
import type { RateLimitPolicy } from './policy.js';

interface BucketState {
  /** Tokens in TOKEN_UNITS, as of ts. */
  tokenUnits: number;
  /** The bucket's clock (ms): the latest time it was refilled to; it never goes backwards. */
  ts: number;
  /** Capacity and rate as of the last check, for the sweep. */
  capacity: number;
  rate: number;
  /** The UTC day of usedToday, or '' when not counting. */
  day: string;
  usedToday: number;
}

export interface MemoryRateLimiterOptions {
  /** A sweep of full, idle buckets runs when the map grows past this (default 100,000). */
  maxEntries?: number;
  /** The stamps identity publishes in this process; without them every stamped check is stale. */
  stamps?: MemoryCredentialStamps;
}

/** Refills a bucket up to nowMs. A clock that went backwards refills nothing. */
function refill(state: BucketState, nowMs: number): void {
  if (nowMs <= state.ts) return;
  // Capping the elapsed time at `capacity` ms (enough to fill, as rate ≥ 1 unit/ms) keeps the
  // product small and exact.
  const elapsed = Math.min(nowMs - state.ts, state.capacity);
  state.tokenUnits = Math.min(state.capacity, state.tokenUnits + elapsed * state.rate);
  state.ts = nowMs;
}

export class MemoryRateLimiter extends BucketRateLimiter {
  private readonly buckets = new Map<string, BucketState>();
  private readonly maxEntries: number;
  private sweepAt: number;
  private readonly stamps: MemoryCredentialStamps | undefined;

  constructor(options: MemoryRateLimiterOptions = {}) {
    super();
    this.maxEntries = options.maxEntries ?? 100_000;
    this.sweepAt = this.maxEntries;
    this.stamps = options.stamps;
  }

  /** Buckets held (for tests and metrics). */
  get size(): number {
    return this.buckets.size;
  }

  protected step(credentialId: string, policy: RateLimitPolicy, now: number, stamp: string | undefined): BucketOutcome | 'stale' {
    if (stamp !== undefined && this.stamps?.current(credentialId) !== stamp) return 'stale';
    const capacity = capacityUnits(policy);
    const rate = policy.refillPerMinute;
    let state = this.buckets.get(credentialId);
    if (!state) {
      if (this.buckets.size >= this.sweepAt) this.sweep(now);
      state = { tokenUnits: capacity, ts: now, capacity, rate, day: '', usedToday: 0 };
      this.buckets.set(credentialId, state);
    }
    state.capacity = capacity;
    state.rate = rate;
    state.tokenUnits = Math.min(state.tokenUnits, capacity);
    refill(state, now);

    const today = utcDay(now);
    if (policy.dailyCap !== null && state.day !== today) {
      state.day = today;
      state.usedToday = 0;
    }
    if (policy.dailyCap !== null && state.usedToday >= policy.dailyCap) {
      return { refusedBy: 'daily', tokenUnits: state.tokenUnits, usedToday: state.usedToday };
    }
    if (state.tokenUnits < TOKEN_UNITS) {
      return { refusedBy: 'burst', tokenUnits: state.tokenUnits, usedToday: state.usedToday };
    }
    state.tokenUnits -= TOKEN_UNITS;
    if (policy.dailyCap !== null) state.usedToday += 1;
    return { refusedBy: null, tokenUnits: state.tokenUnits, usedToday: state.usedToday };
  }

  /** Drops buckets that are full at `now` and hold no count for today. */
  private sweep(now: number): void {
    const today = utcDay(now);
    for (const [id, state] of this.buckets) {
      refill(state, now);
      if (state.tokenUnits >= state.capacity && (state.day !== today || state.usedToday === 0)) this.buckets.delete(id);
    }
    // If most buckets are busy, the next sweep waits until the map has doubled (amortised O(1)).
    this.sweepAt = Math.max(this.maxEntries, this.buckets.size * 2);
  }
}
