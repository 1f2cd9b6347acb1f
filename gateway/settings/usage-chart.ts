// Requests per day as an inline SVG bar chart, drawn on the server: no script and no inline style
// (the Content-Security-Policy forbids both), only classes the stylesheet colours. Each day is a
// group with a <title>, the tooltip a pointer shows; the chart as a whole is one labelled image
// whose description sums it up, and the same numbers follow as a table for screen readers and
// for reading exact values (usage-view.ts).
import type { DailyRequests } from '../../proto/gen/expertnet/identity/v1/self_service.js';
import { html, type Markup } from './html.js';

const PLOT_HEIGHT = 120;
const TOP = 12;
const LEFT = 44;
const BOTTOM = 22;
/** The width the bars share, whatever the window: 30 days get 18 units each, 90 get 6. */
const BARS_WIDTH = 540;

/** The top of the y axis: the largest count rounded up to 1, 2 or 5 times a power of ten. */
export function axisTop(largest: number): number {
  if (largest <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(largest));
  return [1, 2, 5, 10].map((m) => m * power).find((v) => v >= largest)!;
}

export function requestsText(n: number): string {
  return `${n} request${n === 1 ? '' : 's'}`;
}

/** What the chart shows, in words: the window, the total, the busiest day and today. */
export function chartSummary(days: readonly DailyRequests[]): string {
  const total = days.reduce((sum, d) => sum + d.requests, 0);
  const busiest = days.reduce((best, d) => (d.requests > best.requests ? d : best), days[0]!);
  const today = days[days.length - 1]!;
  const peak = total > 0 ? ` The busiest day was ${busiest.day} with ${requestsText(busiest.requests)}.` : '';
  return `${days.length} UTC days from ${days[0]!.day} to ${today.day}: ${requestsText(total)} in all.${peak} Today: ${requestsText(today.requests)}.`;
}

/** A day under the axis (MM-DD); the first and last are anchored inside the chart so neither is cut. */
function dayLabel(day: string, anchor: 'start' | 'middle' | 'end', x: number, y: number): Markup {
  return html`<text class="axis" x="${x}" y="${y}" text-anchor="${anchor}">${day.slice(5)}</text>`;
}

export function usageChart(id: string, label: string, days: readonly DailyRequests[]): Markup {
  const top = axisTop(Math.max(...days.map((d) => d.requests)));
  const step = Math.max(4, Math.floor(BARS_WIDTH / days.length));
  const bar = Math.max(2, Math.round(step * 2 / 3));
  const width = LEFT + days.length * step + 4;
  const height = TOP + PLOT_HEIGHT + BOTTOM;
  const y = (n: number) => TOP + PLOT_HEIGHT - (n / top) * PLOT_HEIGHT;
  const ticks = [0, top / 2, top].filter((t) => Number.isInteger(t));
  const labelled = new Set([0, Math.floor((days.length - 1) / 2), days.length - 1]);
  return html`<svg class="chart" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="${id}-title ${id}-desc" focusable="false">
    <title id="${id}-title">Requests per day, ${label}</title><desc id="${id}-desc">${chartSummary(days)}</desc>
    ${ticks.map((t) => html`<line class="grid" x1="${LEFT}" x2="${width}" y1="${y(t)}" y2="${y(t)}"></line>
      <text class="axis" x="${LEFT - 6}" y="${y(t) + 4}" text-anchor="end">${t}</text>`)}
    ${days.map((d, i) => {
      const x = LEFT + i * step + (step - bar) / 2;
      const today = i === days.length - 1;
      return html`<g class="day${today ? ' today' : ''}"><title>${d.day}: ${requestsText(d.requests)}</title>
        <rect class="hit" x="${LEFT + i * step}" y="${TOP}" width="${step}" height="${PLOT_HEIGHT}"></rect>
        <rect class="bar" x="${x}" y="${y(d.requests)}" width="${bar}" height="${TOP + PLOT_HEIGHT - y(d.requests)}"></rect>
        ${labelled.has(i) ? dayLabel(d.day, i === 0 ? 'start' : today ? 'end' : 'middle', i === 0 ? x : today ? x + bar : x + bar / 2, height - 6) : ''}</g>`;
    })}
  </svg>`;
}
