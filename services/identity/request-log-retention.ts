// How long the request log keeps a request: 7 days, and at most the newest 10,000 per user. A
// sweep once a minute deletes rows older than that and trims the users whose rows were written
// since the last sweep (so a user may briefly hold a minute's requests more); reads never reach
// past 7 days in between (request-log.ts). A failed sweep is logged and tried again next time.
import type { RequestLogRepository } from './request-log.repository.js';

export const REQUEST_LOG_DAYS = 7;
export const REQUEST_LOG_PER_USER = 10_000;
const SWEEP_INTERVAL_MS = 60_000;
const DAY_MS = 86_400_000;

/** The oldest moment the log still shows at `now`. */
export function requestLogSince(now = new Date()): Date {
  return new Date(now.getTime() - REQUEST_LOG_DAYS * DAY_MS);
}

export function createRequestLogRetention(log: RequestLogRepository, onError: (error: unknown) => void, intervalMs = SWEEP_INTERVAL_MS) {
  let touched = new Set<string>();
  let running: Promise<void> = Promise.resolve();

  async function sweep(now: Date, keep: number): Promise<void> {
    const users = [...touched];
    touched = new Set();
    try {
      await log.deleteOlderThan(requestLogSince(now));
      await log.keepNewest(users, keep);
    } catch (error) {
      for (const user of users) touched.add(user);
      onError(error);
    }
  }

  // One sweep at a time: a slow one is never overtaken by the next.
  const queue = (now = new Date(), keep = REQUEST_LOG_PER_USER) => (running = running.then(() => sweep(now, keep)));
  const timer = setInterval(() => void queue(), intervalMs);
  timer.unref();

  return {
    /** Users whose rows were just written: trimmed at the next sweep. */
    touch(userIds: Iterable<string>): void {
      for (const user of userIds) touched.add(user);
    },
    /** Sweeps now (the timer's sweep; tests give the moment and the bound). */
    sweep: queue,
    async stop(): Promise<void> {
      clearInterval(timer);
      await running;
    },
  };
}

export type RequestLogRetention = ReturnType<typeof createRequestLogRetention>;
