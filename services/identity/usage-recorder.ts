// Counts authenticated requests per credential (a key, or an OAuth grant) without a database write per request: counts gather in
// memory and are added to the stored daily totals once a second (and at shutdown). Reads add the
// counts not yet flushed, so a process sees its own requests at once; other replicas' counts
// appear within one flush interval.
import { utcDay } from '../kit/utc-day.js';

export interface UsageCount {
  credentialId: string;
  day: string;
  requests: number;
  lastUsedAt: Date;
}

/** Where counts land (usage-store.ts): all of one flush in one call. */
export interface UsageStore {
  addUsage(counts: UsageCount[]): Promise<void>;
}

type Pending = UsageCount;

export function createUsageRecorder(store: UsageStore, onError: (error: unknown) => void, intervalMs = 1000) {
  let pending = new Map<string, Pending>();
  // Counts being written right now stay visible to reads until their write lands.
  const inFlight = new Map<string, Pending>();
  let flushing: Promise<void> = Promise.resolve();

  async function flush(): Promise<void> {
    const batch = pending;
    pending = new Map();
    if (batch.size === 0) return;
    for (const [slot, p] of batch) inFlight.set(slot, p);
    try {
      await store.addUsage([...batch.values()]);
    } catch (error) {
      // Put the counts back so the next flush retries them.
      for (const p of batch.values()) record(p.credentialId, p.lastUsedAt, p.requests);
      onError(error);
    } finally {
      for (const slot of batch.keys()) inFlight.delete(slot);
    }
  }

  function record(credentialId: string, at = new Date(), requests = 1): void {
    const day = utcDay(at);
    const slot = `${credentialId}|${day}`;
    const entry = pending.get(slot);
    if (entry) {
      entry.requests += requests;
      if (at > entry.lastUsedAt) entry.lastUsedAt = at;
    } else {
      pending.set(slot, { credentialId, day, requests, lastUsedAt: at });
    }
  }

  const timer = setInterval(() => {
    flushing = flushing.then(flush);
  }, intervalMs);
  timer.unref();

  return {
    record,
    /** Counts recorded here and not yet flushed. */
    unflushed(credentialId: string, day: string): number {
      const slot = `${credentialId}|${day}`;
      return (pending.get(slot)?.requests ?? 0) + (inFlight.get(slot)?.requests ?? 0);
    },
    async stop(): Promise<void> {
      clearInterval(timer);
      flushing = flushing.then(flush);
      await flushing;
    },
  };
}

export type UsageRecorder = ReturnType<typeof createUsageRecorder>;
