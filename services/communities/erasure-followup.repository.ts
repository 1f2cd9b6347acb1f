// SQL of erasure follow-ups (migration 004): the second search and enrichment erase an erasure owes
// after the membership's removal, kept until done.
import type { Queryable } from '../kit/db/database.js';
import { DUE_NOW, DUE_ORDER, nextAttempt } from './followup-backoff.js';

export interface ErasureFollowupRow {
  community_id: string;
  profile_id: string;
  attempts: number;
}

export function createErasureFollowupRepository(db: Queryable) {
  return {
    /** Recorded in the membership's removal transaction; a second erasure of the same pair keeps one row. */
    async add(communityId: string, profileId: string): Promise<void> {
      await db.query(
        `INSERT INTO communities.erasure_followups (community_id, profile_id) VALUES ($1, $2)
         ON CONFLICT (community_id, profile_id) DO NOTHING`,
        [communityId, profileId],
      );
    },

    async remove(communityId: string, profileId: string): Promise<void> {
      await db.query('DELETE FROM communities.erasure_followups WHERE community_id = $1 AND profile_id = $2', [communityId, profileId]);
    },

    /** Counts a failed attempt; `backOff` (a refusal, not an outage: followup-backoff.ts) sets when the next may be. */
    async fail(communityId: string, profileId: string, error: string, backOff = true): Promise<void> {
      await db.query(
        `UPDATE communities.erasure_followups
            SET attempts = attempts + 1, last_error = $3, next_attempt_at = ${nextAttempt('$4')}
          WHERE community_id = $1 AND profile_id = $2`,
        [communityId, profileId, error.slice(0, 500), backOff],
      );
    },

    /** Follow-ups at least `olderThanMs` old (the inline attempt had its chance) and past their backoff, soonest due first. */
    async due(olderThanMs: number, limit: number): Promise<ErasureFollowupRow[]> {
      return db.query<ErasureFollowupRow>(
        `SELECT community_id, profile_id, attempts FROM communities.erasure_followups
          WHERE ${DUE_NOW} ORDER BY ${DUE_ORDER} LIMIT $2`,
        [olderThanMs, limit],
      );
    },
  };
}
