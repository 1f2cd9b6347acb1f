// Where batched request counts land: one statement adds every credential's counts to its daily
// totals and one moves every last_used_at forward, however many credentials were active — the
// flush costs two round trips, not two per credential.
import type { Queryable } from '../kit/db/database.js';
import type { UsageCount, UsageStore } from './usage-recorder.js';

/** The tables of one credential kind. Constants of this service, never input. */
export interface UsageTables {
  daily: 'identity.key_usage_daily' | 'identity.grant_usage_daily' | 'identity.service_account_usage_daily';
  idColumn: 'key_id' | 'grant_id' | 'service_account_id';
  credentials: 'identity.api_keys' | 'identity.oauth_grants' | 'identity.service_accounts';
}

export const KEY_USAGE: UsageTables = { daily: 'identity.key_usage_daily', idColumn: 'key_id', credentials: 'identity.api_keys' };
export const GRANT_USAGE: UsageTables = { daily: 'identity.grant_usage_daily', idColumn: 'grant_id', credentials: 'identity.oauth_grants' };
export const SERVICE_ACCOUNT_USAGE: UsageTables = {
  daily: 'identity.service_account_usage_daily', idColumn: 'service_account_id', credentials: 'identity.service_accounts',
};

/** Stored request counts of one credential for a UTC day and its month. */
export async function storedUsage(db: Queryable, t: UsageTables, id: string, day: string): Promise<{ today: number; month: number }> {
  const rows = await db.query<{ today: number; month: number }>(
    `SELECT coalesce(sum(requests) FILTER (WHERE day = $2::date), 0)::int8 AS today,
            coalesce(sum(requests), 0)::int8 AS month
       FROM ${t.daily}
      WHERE ${t.idColumn} = $1 AND day >= date_trunc('month', $2::date) AND day <= $2::date`,
    [id, day],
  );
  return rows[0] ?? { today: 0, month: 0 };
}

export function createUsageStore(db: Queryable, t: UsageTables): UsageStore {
  return {
    async addUsage(counts: UsageCount[]): Promise<void> {
      if (counts.length === 0) return;
      const ids = counts.map((c) => c.credentialId);
      await db.query(
        `INSERT INTO ${t.daily} (${t.idColumn}, day, requests)
         SELECT * FROM unnest($1::text[], $2::date[], $3::int8[])
         ON CONFLICT (${t.idColumn}, day) DO UPDATE SET requests = ${t.daily}.requests + EXCLUDED.requests`,
        [ids, counts.map((c) => c.day), counts.map((c) => c.requests)],
      );
      await db.query(
        `UPDATE ${t.credentials} c SET last_used_at = greatest(coalesce(c.last_used_at, u.at), u.at)
           FROM (SELECT id, max(at) AS at FROM unnest($1::text[], $2::timestamptz[]) AS x(id, at) GROUP BY id) u
          WHERE c.id = u.id`,
        [ids, counts.map((c) => c.lastUsedAt)],
      );
    },
  };
}
