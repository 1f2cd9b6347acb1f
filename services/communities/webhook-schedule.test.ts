// The retry schedule of webhook deliveries (webhook-schedule.ts): the documented default of about
// three days over ten attempts, each wait within ±20% of its step, and spent after its last step.
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_SCHEDULE, retryDelayMs } from './webhook-schedule.js';

describe('the webhook retry schedule', () => {
  it('waits 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 20 h between ten attempts: about three days', () => {
    expect(DEFAULT_RETRY_SCHEDULE).toEqual([5, 300, 1800, 7200, 18_000, 36_000, 50_400, 72_000, 72_000]);
    const days = DEFAULT_RETRY_SCHEDULE.reduce((a, b) => a + b, 0) / 86_400;
    expect(days).toBeGreaterThan(2.9);
    expect(days).toBeLessThan(3.1);
  });

  it('jitters each wait within ±20% of its step', () => {
    expect(retryDelayMs(1, DEFAULT_RETRY_SCHEDULE, () => 0)).toBe(4000);
    expect(retryDelayMs(1, DEFAULT_RETRY_SCHEDULE, () => 1)).toBe(6000);
    expect(retryDelayMs(2, DEFAULT_RETRY_SCHEDULE, () => 0.5)).toBe(300_000);
    for (let i = 0; i < 100; i++) {
      const ms = retryDelayMs(9, DEFAULT_RETRY_SCHEDULE)!;
      expect(ms).toBeGreaterThanOrEqual(72_000_000 * 0.8);
      expect(ms).toBeLessThanOrEqual(72_000_000 * 1.2);
    }
  });

  it('is spent after its last step, and follows a schedule given instead', () => {
    expect(retryDelayMs(10)).toBeUndefined();
    expect(retryDelayMs(2, [1, 2, 4], () => 0.5)).toBe(2000);
    expect(retryDelayMs(4, [1, 2, 4])).toBeUndefined();
  });
});
