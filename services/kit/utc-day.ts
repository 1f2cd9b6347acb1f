// The UTC day of an instant as YYYY-MM-DD, which usage counting and the rate limiter's daily
// quota ask on every request. The string is made once per day, not per call (a Date and its ISO
// text per request were a per cent of the edge's time).
const DAY_MS = 86_400_000;

let dayStart = 0;
let dayEnd = 0;
let dayText = '';

/** `at`: a Date or epoch milliseconds. */
export function utcDay(at: Date | number): string {
  const ms = typeof at === 'number' ? at : at.getTime();
  if (ms >= dayStart && ms < dayEnd) return dayText;
  const start = Math.floor(ms / DAY_MS) * DAY_MS;
  const text = new Date(start).toISOString().slice(0, 10);
  // Kept for the day most calls ask about: now (a call about another day is answered, not kept).
  if (Math.abs(Date.now() - ms) < DAY_MS) {
    dayStart = start;
    dayEnd = start + DAY_MS;
    dayText = text;
  }
  return text;
}
