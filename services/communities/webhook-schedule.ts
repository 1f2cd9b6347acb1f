// When a webhook delivery is tried again (docs/WEBHOOKS.md "Delivery"): after each failed attempt
// the next waits the schedule's next step, each ±20% at random (jitter, so the retries of many
// deliveries that failed together do not arrive together). The default runs about three days over
// ten attempts; WEBHOOK_RETRY_SCHEDULE (seconds, comma-separated) replaces it, shorter in tests.

/** Seconds between attempts: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 20 h (about 3 days in all). */
export const DEFAULT_RETRY_SCHEDULE = [5, 300, 1800, 7200, 18_000, 36_000, 50_400, 72_000, 72_000];
export const JITTER = 0.2;

/**
 * Milliseconds to wait after the failed attempt that makes `failed` failures of this run of the
 * schedule (1 for the first); undefined when the schedule is spent: the delivery has failed.
 */
export function retryDelayMs(failed: number, schedule: readonly number[] = DEFAULT_RETRY_SCHEDULE, random: () => number = Math.random): number | undefined {
  const seconds = schedule[failed - 1];
  if (seconds === undefined) return undefined;
  return Math.round(seconds * 1000 * (1 - JITTER + 2 * JITTER * random()));
}
