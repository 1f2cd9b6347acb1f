// The usage chart's arithmetic and words: the y axis ends on a round number at or above the busiest
// day, bars stand in proportion to it, and the summary a screen reader hears names the total, the
// busiest day and today.
import { describe, expect, it } from 'vitest';
import { axisTop, chartSummary, usageChart } from './usage-chart.js';

const days = (counts: number[]) => counts.map((requests, i) => ({ day: `2026-11-${String(i + 1).padStart(2, '0')}`, requests }));

function barHeights(svg: string): number[] {
  return [...svg.matchAll(/<rect class="bar"[^>]* height="([\d.]+)"/g)].map((m) => Number(m[1]));
}

describe('usage chart', () => {
  it('ends the axis on 1, 2 or 5 times a power of ten at or above the busiest day', () => {
    expect([0, 1, 2, 3, 5, 7, 14, 20, 120, 999].map(axisTop)).toEqual([1, 1, 2, 5, 5, 10, 20, 20, 200, 1000]);
  });

  it('draws each day as a bar in proportion, with a tooltip, and today apart', () => {
    const svg = usageChart('c', 'key svc_live_x', days([0, 5, 10])).text;
    const heights = barHeights(svg);
    expect(heights[0]).toBe(0);
    expect(heights[2]).toBeCloseTo(heights[1]! * 2);
    expect(svg).toContain('<title>2026-11-02: 5 requests</title>');
    expect(svg.match(/<g class="day today">/g)).toHaveLength(1);
    expect(svg).toContain('<title id="c-title">Requests per day, key svc_live_x</title>');
  });

  it('sums the chart up in words, and says so when nothing was requested', () => {
    expect(chartSummary(days([0, 5, 1]))).toBe(
      '3 UTC days from 2026-11-01 to 2026-11-03: 6 requests in all. The busiest day was 2026-11-02 with 5 requests. Today: 1 request.');
    expect(chartSummary(days([0, 0]))).toBe('2 UTC days from 2026-11-01 to 2026-11-02: 0 requests in all. Today: 0 requests.');
    expect(barHeights(usageChart('z', 'k', days([0, 0])).text)).toEqual([0, 0]);
  });
});
