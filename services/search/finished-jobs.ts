// Finished searches kept in memory for their polls. A complete job whose charge is recorded never
// changes again until it expires (docs/SEARCH.md: the stored result is the answer, whatever the
// caller's reach does meanwhile; only the tick's purge removes it, at `expires_at`). So a poll of
// one can be answered from here, exact, on every replica, with no store read: the credential fence
// is checked against the kept row as against the stored one, and the row is served only until a
// margin before its expiry, after which the store decides (a replica's clock need not agree with
// the database's to the second).
//
// This is the one place a finished search is kept. It sits in the service, not the edge, because
// every surface asks the service — REST, MCP and direct gRPC callers alike — and the service must
// see each poll anyway to check the fence and the expiry; the edge makes its view of the answer anew.
import { createBoundedMap } from '../kit/bounded-map.js';
import type { JobRow } from './search-jobs.repository.js';

/** How long before `expires_at` a kept job stops being served from memory. */
export const EXPIRY_MARGIN_MS = 30_000;
/** At most this many jobs are kept, holding at most this many characters of matches; the oldest kept goes first. */
export const FINISHED_JOBS_LIMIT = 2_000;
export const FINISHED_JOBS_CHARS = 32 * 1024 * 1024;

export function createFinishedJobs(limit = FINISHED_JOBS_LIMIT, now: () => number = Date.now, charBudget = FINISHED_JOBS_CHARS) {
  const jobs = createBoundedMap<string, { row: JobRow; chars: number }>(limit, charBudget, (kept) => kept.chars);
  const servable = (row: JobRow) => row.expires_at !== null && row.expires_at.getTime() - EXPIRY_MARGIN_MS > now();

  return {
    /** The kept job `id` when `credentialId` started it and it is still servable; else undefined (read the store). */
    find(id: string, credentialId: string): JobRow | undefined {
      const row = jobs.get(id)?.row;
      if (!row) return undefined;
      if (!servable(row)) {
        jobs.delete(id);
        return undefined;
      }
      return row.credential_id === credentialId ? row : undefined;
    },

    /** Keeps `row` if it can no longer change: complete, charged, with its expiry set. */
    keep(row: JobRow): void {
      if (row.status !== 'complete' || !row.charged_at || !servable(row)) return;
      jobs.set(row.id, { row, chars: JSON.stringify(row.matches ?? []).length });
    },

    get size(): number {
      return jobs.size;
    },
  };
}

export type FinishedJobs = ReturnType<typeof createFinishedJobs>;
