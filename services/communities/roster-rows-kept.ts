// Roster rows kept by the process between reads, each with the fingerprint of the rows it was read
// as. A roster read always asks the store, in its own statement, for the fingerprint of the rows it
// would read now — every row's profile id and the row versions (`xmin`) of its profile and
// membership, so any change to a row, and any row added to or gone from the page, changes it — and
// the store builds the rows only when that differs from the kept one's (community.repository.ts).
// Building a page's rows as JSON, and decoding and converting them here, was most of a roster
// read (`npm run bench`). Nothing is trusted without the store's word: what a request sees is
// what its own read of the store says, on every replica, the moment after any write.
//
// Kept rows of an erased profile are never answered again (the fingerprint changed) and are dropped
// within KEPT_FOR_MS + SWEEP_EVERY_MS even if their page is never read again.
import { createBoundedMap } from '../kit/bounded-map.js';

const KEPT_FOR_MS = 60_000;
const SWEEP_EVERY_MS = 30_000;
const MAX_ENTRIES = 10_000;
/** Bytes of text at most, roughly (UTF-16 code units of the rows' text fields). */
const MAX_TEXT = 64 * 1024 * 1024;

/** A page's rows (the repository's roster rows) and the fingerprint they were read as. */
export interface KeptRows<Row extends object> {
  fingerprint: string;
  rows: Row[];
}

/** A roster read's place: the community, and the member or the page (cursor and size). */
export interface RosterPlace {
  communityId: string;
  profileId?: string;
  after?: { joinedAt: string; profileId: string };
  limit?: number;
}

export function placeKey(place: RosterPlace): string {
  return JSON.stringify([place.communityId, place.profileId ?? null, place.after?.joinedAt ?? null, place.after?.profileId ?? null, place.limit ?? null]);
}

function textSize(rows: object[]): number {
  let size = 0;
  for (const row of rows) {
    for (const value of Object.values(row)) if (typeof value === 'string') size += value.length;
    size += 256;
  }
  return size;
}

export function createKeptRosterRows<Row extends object>(now: () => number = Date.now) {
  const kept = createBoundedMap<string, KeptRows<Row> & { at: number }>(MAX_ENTRIES, MAX_TEXT, (entry) => textSize(entry.rows));
  const fresh = (entry: { at: number } | undefined) => entry !== undefined && now() - entry.at < KEPT_FOR_MS;
  const sweep = setInterval(() => {
    for (const key of kept.keys()) if (!fresh(kept.get(key))) kept.delete(key);
  }, SWEEP_EVERY_MS);
  sweep.unref();

  return {
    /** The rows kept for a place, if kept less than KEPT_FOR_MS ago. */
    get(key: string): KeptRows<Row> | undefined {
      const entry = kept.get(key);
      return fresh(entry) ? entry : undefined;
    },
    set(key: string, rows: KeptRows<Row>): void {
      kept.set(key, { ...rows, at: now() });
    },
    get size(): number {
      return kept.size;
    },
  };
}

export type KeptRosterRows<Row extends object> = ReturnType<typeof createKeptRosterRows<Row>>;
