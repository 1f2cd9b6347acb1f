// SQL for the run lists (run-listing.ts): a keyset page of runs, newest first (their counts are
// the runs repository's countsOf).
import type { Queryable } from '../kit/db/database.js';
import type { RunRow } from './runs.repository.js';

/** A run with its created_at to the microsecond, as a list cursor carries it. */
export type ListedRunRow = RunRow & { created_key: string };

/** Whose runs a list shows: one community's, or one user's self-enrichment runs. */
export type RunOwner = { communityId: string } | { userId: string };

const CREATED_KEY = `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_key`;

export function createRunListRepository(db: Queryable) {
  return {
    /** Runs of the owner, newest first ((created_at, id) descending), after the position given. */
    async page(owner: RunOwner, after: { at: string; id: string } | undefined, limit: number): Promise<ListedRunRow[]> {
      const [filter, value] = 'communityId' in owner ? [`kind = 'community' AND community_id = $1`, owner.communityId] : [`kind = 'self' AND user_id = $1`, owner.userId];
      const sql = `SELECT *, ${CREATED_KEY} FROM enrichment.runs WHERE ${filter}`;
      return after
        ? db.query<ListedRunRow>(`${sql} AND (created_at, id) < ($2::timestamptz, $3::text) ORDER BY created_at DESC, id DESC LIMIT $4`, [value, after.at, after.id, limit])
        : db.query<ListedRunRow>(`${sql} ORDER BY created_at DESC, id DESC LIMIT $2`, [value, limit]);
    },
  };
}
