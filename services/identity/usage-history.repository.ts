// SQL for the usage screen: the credentials of a user worth showing over a window of UTC days, and
// their stored daily request counts in it. Nothing else.
import type { Queryable } from '../kit/db/database.js';
import type { GrantRow } from './grant.repository.js';
import type { KeyRow } from './key.repository.js';
import type { UsageTables } from './usage-store.js';

export interface DailyCountRow {
  credential_id: string;
  day: string;
  requests: number;
}

export function createUsageHistoryRepository(db: Queryable) {
  return {
    /** Keys the user minted that are live, or were revoked on or after `fromDay`; oldest first. */
    async keysShownSince(userId: string, fromDay: string, limit: number): Promise<KeyRow[]> {
      return db.query<KeyRow>(
        `SELECT * FROM identity.api_keys
          WHERE minted_by_user_id = $1 AND (revoked_at IS NULL OR revoked_at >= $2::date)
          ORDER BY created_at, id LIMIT $3`,
        [userId, fromDay, limit],
      );
    },

    /**
     * The user's OAuth grants used on or after `fromDay`, most recently used first. Only used ones:
     * the local issuer makes a grant per access token, so a user may hold many idle ones.
     */
    async grantsUsedSince(userId: string, fromDay: string, limit: number): Promise<GrantRow[]> {
      return db.query<GrantRow>(
        `SELECT * FROM identity.oauth_grants
          WHERE user_id = $1 AND last_used_at >= $2::date
          ORDER BY last_used_at DESC, id LIMIT $3`,
        [userId, fromDay, limit],
      );
    },

    /** Stored counts of one credential kind's ids, per UTC day from `fromDay` to `toDay`. */
    async dailyCounts(t: UsageTables, ids: string[], fromDay: string, toDay: string): Promise<DailyCountRow[]> {
      if (ids.length === 0) return [];
      return db.query<DailyCountRow>(
        `SELECT ${t.idColumn} AS credential_id, to_char(day, 'YYYY-MM-DD') AS day, requests::int8 AS requests
           FROM ${t.daily} WHERE ${t.idColumn} = ANY($1::text[]) AND day >= $2::date AND day <= $3::date`,
        [ids, fromDay, toDay],
      );
    },
  };
}

export type UsageHistoryRepository = ReturnType<typeof createUsageHistoryRepository>;
