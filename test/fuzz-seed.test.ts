// The fuzz suites' seed: a new one each UTC day, one for every run of that day, and FUZZ_SEED to replay.
import { describe, expect, it } from 'vitest';
import { fuzzSeed } from './helpers/fuzz-checks.js';

describe('the fuzz seed', () => {
  it('is the UTC day as yyyymmdd, the same all day and another the next', () => {
    expect(fuzzSeed({}, new Date('2026-12-07T00:00:00Z'))).toBe(20261207);
    expect(fuzzSeed({}, new Date('2026-12-07T23:59:59Z'))).toBe(20261207);
    expect(fuzzSeed({}, new Date('2026-12-08T00:00:00Z'))).toBe(20261208);
    // The day is UTC's, wherever the machine is: 23:30 in New York on the 7th is the 8th.
    expect(fuzzSeed({}, new Date('2026-12-07T23:30:00-05:00'))).toBe(20261208);
  });

  it('is FUZZ_SEED when set, to replay a failure', () => {
    expect(fuzzSeed({ FUZZ_SEED: '42' }, new Date('2026-12-07T12:00:00Z'))).toBe(42);
  });
});
