// SQL of index follow-ups (migration 005): the search indexing a bulk add owes for each person it
// placed, kept until done.
import type { Queryable } from '../kit/db/database.js';

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

    async fail(communityId: string, profileIds: string[], error: string): Promise<void> {
      await db.query(
        `UPDATE communities.index_followups SET attempts = attempts + 1, last_error = $3
          WHERE community_id = $1 AND profile_id = ANY($2::text[])`,
        [communityId, profileIds, error.slice(0, 500)],
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

    /** Follow-ups at least `olderThanMs` old (the inline attempt had its chance; as dueTasks), oldest first. */
    async due(olderThanMs: number, limit: number): Promise<IndexFollowupRow[]> {
      return db.query<IndexFollowupRow>(
        `SELECT community_id, profile_id, attempts FROM communities.index_followups
          WHERE created_at <= now() - make_interval(secs => $1::double precision / 1000)
          ORDER BY created_at, community_id, profile_id LIMIT $2`,
        [olderThanMs, limit],
      );
    },
  };
}
