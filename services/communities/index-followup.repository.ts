// SQL of index follow-ups (migration 005): the search indexing a bulk add owes for each person it
// placed, kept until done.
import type { Queryable } from '../kit/db/database.js';
import { DUE_NOW, DUE_ORDER, nextAttempt } from './followup-backoff.js';

export interface IndexFollowupRow {
  community_id: string;
  profile_id: string;
  attempts: number;
}

export function createIndexFollowupRepository(db: Queryable) {
  return {
    /** Recorded in the membership's transaction; a second add of the same pair keeps one row. */
    async add(communityId: string, profileId: string): Promise<void> {
      await db.query(
        `INSERT INTO communities.index_followups (community_id, profile_id) VALUES ($1, $2)
         ON CONFLICT (community_id, profile_id) DO NOTHING`,
        [communityId, profileId],
      );
    },

    async remove(communityId: string, profileIds: string[]): Promise<void> {
      await db.query('DELETE FROM communities.index_followups WHERE community_id = $1 AND profile_id = ANY($2::text[])', [communityId, profileIds]);
    },

    /**
     * The rows of these people as they are now: each with its stamp (its creation time, as text to
     * keep the microseconds), so that `removeAsRead` deletes exactly these rows and not one written
     * again meanwhile (the person erased and added back, say).
     */
    async read(communityId: string, profileIds: string[]): Promise<Array<{ profile_id: string; stamp: string }>> {
      return db.query<{ profile_id: string; stamp: string }>(
        'SELECT profile_id, created_at::text AS stamp FROM communities.index_followups WHERE community_id = $1 AND profile_id = ANY($2::text[])',
        [communityId, profileIds],
      );
    },

    async removeAsRead(communityId: string, rows: Array<{ profile_id: string; stamp: string }>): Promise<void> {
      if (rows.length === 0) return;
      await db.query(
        `DELETE FROM communities.index_followups f USING unnest($2::text[], $3::text[]) AS r(profile_id, stamp)
          WHERE f.community_id = $1 AND f.profile_id = r.profile_id AND f.created_at = r.stamp::timestamptz`,
        [communityId, rows.map((r) => r.profile_id), rows.map((r) => r.stamp)],
      );
    },

    /** Counts a failed attempt; `backOff` (a refusal, not an outage: followup-backoff.ts) sets when the next may be. */
    async fail(communityId: string, profileIds: string[], error: string, backOff = true): Promise<void> {
      await db.query(
        `UPDATE communities.index_followups
            SET attempts = attempts + 1, last_error = $3, next_attempt_at = ${nextAttempt('$4')}
          WHERE community_id = $1 AND profile_id = ANY($2::text[])`,
        [communityId, profileIds, error.slice(0, 500), backOff],
      );
    },

    /** Of these people, the ones who are members of the community now. */
    async members(communityId: string, profileIds: string[]): Promise<string[]> {
      const rows = await db.query<{ profile_id: string }>(
        'SELECT profile_id FROM communities.memberships WHERE community_id = $1 AND profile_id = ANY($2::text[])',
        [communityId, profileIds],
      );
      return rows.map((r) => r.profile_id);
    },

    /** Follow-ups at least `olderThanMs` old (the inline attempt had its chance) and past their backoff, soonest due first. */
    async due(olderThanMs: number, limit: number): Promise<IndexFollowupRow[]> {
      return db.query<IndexFollowupRow>(
        `SELECT community_id, profile_id, attempts FROM communities.index_followups
          WHERE ${DUE_NOW} ORDER BY ${DUE_ORDER} LIMIT $2`,
        [olderThanMs, limit],
      );
    },
  };
}
