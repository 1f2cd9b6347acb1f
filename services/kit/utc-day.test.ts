import { describe, expect, it } from 'vitest';
import { utcDay } from './utc-day.js';

describe('utcDay', () => {
  it('names the UTC day of an instant, at both ends of the day, for Dates and milliseconds alike', () => {
    const now = Date.now();
    const today = new Date(now).toISOString().slice(0, 10);
    const start = Date.parse(`${today}T00:00:00.000Z`);
    expect(utcDay(now)).toBe(today);
    expect(utcDay(new Date(start))).toBe(today);
    expect(utcDay(start + 86_400_000 - 1)).toBe(today);
    expect(utcDay(start - 1)).toBe(new Date(start - 1).toISOString().slice(0, 10));
    expect(utcDay(start + 86_400_000)).toBe(new Date(start + 86_400_000).toISOString().slice(0, 10));
    expect(utcDay(now)).toBe(today);
  });

  it('answers days far from now as well, without changing the day it keeps', () => {
    expect(utcDay(Date.parse('2020-02-29T23:59:59.999Z'))).toBe('2020-02-29');
    expect(utcDay(new Date('1999-12-31T00:00:00Z'))).toBe('1999-12-31');
    expect(utcDay(Date.now())).toBe(new Date().toISOString().slice(0, 10));
  });
});
