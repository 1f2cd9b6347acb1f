// SQL of the request log (migrations/008_request_log.sql): a batch of finished requests written in
// one statement, a user's page read newest first, answers counted by status class, and the
// retention sweep. Nothing else.
import type { Queryable } from '../kit/db/database.js';

export interface RequestLogInput {
  credentialId: string;
  credentialKind: 'api_key' | 'oauth';
  at: Date;
  surface: string;
  method: string;
  path: string;
  tool: string;
  status: number;
  latencyMs: number;
  requestId: string;
}

export interface RequestLogRow {
  id: string;
  credential_id: string;
  credential_kind: 'api_key' | 'oauth';
  at: Date;
  surface: string;
  method: string;
  path: string;
  tool: string;
  status: number;
  latency_ms: number;
  request_id: string;
  credential_name: string;
  credential_label: string;
}

export interface RequestLogFilter {
  userId: string;
  /** Nothing older is read, swept or not. */
  since: Date;
  credentialId: string;
  /** 0: any. */
  statusClass: number;
  requestId: string;
  /** The last row of the previous page. */
  after?: { at: Date; id: string };
}

export interface AnswerCountRow {
  credential_id: string;
  status_class: number;
  requests: number;
}

export function createRequestLogRepository(db: Queryable) {
  return {
    /**
     * Writes the requests whose credential is known, each under the credential's user (a key's
     * minting user, a grant's user), and returns those users; the others are left out.
     */
    async insert(rows: RequestLogInput[]): Promise<string[]> {
      if (rows.length === 0) return [];
      const written = await db.query<{ user_id: string }>(
        `INSERT INTO identity.request_log (user_id, credential_id, credential_kind, at, surface, method, path, tool, status, latency_ms, request_id)
         SELECT coalesce(k.minted_by_user_id, g.user_id), x.credential_id, x.kind, x.at, x.surface, x.method, x.path, x.tool, x.status, x.latency_ms, x.request_id
           FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int[], $9::float8[], $10::text[])
                AS x(credential_id, kind, at, surface, method, path, tool, status, latency_ms, request_id)
           LEFT JOIN identity.api_keys k ON x.kind = 'api_key' AND k.id = x.credential_id
           LEFT JOIN identity.oauth_grants g ON x.kind = 'oauth' AND g.id = x.credential_id
          WHERE coalesce(k.minted_by_user_id, g.user_id) IS NOT NULL
         RETURNING user_id`,
        [
          rows.map((r) => r.credentialId), rows.map((r) => r.credentialKind), rows.map((r) => r.at), rows.map((r) => r.surface),
          rows.map((r) => r.method), rows.map((r) => r.path), rows.map((r) => r.tool), rows.map((r) => r.status),
          rows.map((r) => r.latencyMs), rows.map((r) => r.requestId),
        ],
      );
      return written.map((w) => w.user_id);
    },

    /** One page (`limit` rows) of a user's requests, newest first, with what their credential is called. */
    async list(f: RequestLogFilter, limit: number): Promise<RequestLogRow[]> {
      return db.query<RequestLogRow>(
        `SELECT r.id::text AS id, r.credential_id, r.credential_kind, r.at, r.surface, r.method, r.path, r.tool, r.status, r.latency_ms, r.request_id,
                coalesce(k.name, '') AS credential_name, coalesce(k.display_prefix, g.client_id, '') AS credential_label
           FROM identity.request_log r
           LEFT JOIN identity.api_keys k ON r.credential_kind = 'api_key' AND k.id = r.credential_id
           LEFT JOIN identity.oauth_grants g ON r.credential_kind = 'oauth' AND g.id = r.credential_id
          WHERE r.user_id = $1 AND r.at >= $2
            AND ($3 = '' OR r.credential_id = $3)
            AND ($4::int = 0 OR r.status / 100 = $4::int)
            AND ($5 = '' OR r.request_id = $5)
            AND ($6::timestamptz IS NULL OR (r.at, r.id) < ($6::timestamptz, $7::int8))
          ORDER BY r.at DESC, r.id DESC LIMIT $8`,
        [f.userId, f.since, f.credentialId, f.statusClass, f.requestId, f.after?.at ?? null, f.after?.id ?? '0', limit],
      );
    },

    /** A user's answers since `since`, per credential and status class. */
    async answerCounts(userId: string, since: Date): Promise<AnswerCountRow[]> {
      return db.query<AnswerCountRow>(
        `SELECT credential_id, status / 100 AS status_class, count(*)::int8 AS requests
           FROM identity.request_log WHERE user_id = $1 AND at >= $2 GROUP BY 1, 2 ORDER BY 1, 2`,
        [userId, since],
      );
    },

    /**
     * Deletes rows older than `before`, `batch` at a time, oldest first: each statement is short
     * (a backlog after an outage, or the first sweep of a large log, never holds one long delete
     * against the writes of the moment). Returns how many went.
     */
    async deleteOlderThan(before: Date, batch = 5_000): Promise<number> {
      let deleted = 0;
      for (;;) {
        const [gone] = await db.query<{ n: number }>(
          `WITH gone AS (
             DELETE FROM identity.request_log WHERE id IN (
               SELECT id FROM identity.request_log WHERE at < $1 ORDER BY at LIMIT $2)
             RETURNING 1)
           SELECT count(*)::int AS n FROM gone`,
          [before, batch],
        );
        deleted += gone!.n;
        if (gone!.n < batch) return deleted;
      }
    },

    /** Deletes the rows of each user past their newest `keep`. */
    async keepNewest(userIds: string[], keep: number): Promise<void> {
      if (userIds.length === 0) return;
      await db.query(
        `DELETE FROM identity.request_log r USING (
           SELECT u.user_id, c.at, c.id FROM unnest($1::text[]) AS u(user_id)
            CROSS JOIN LATERAL (SELECT at, id FROM identity.request_log WHERE user_id = u.user_id
                                 ORDER BY at DESC, id DESC OFFSET $2 LIMIT 1) c
         ) cut
         WHERE r.user_id = cut.user_id AND (r.at, r.id) <= (cut.at, cut.id)`,
        [userIds, keep],
      );
    },
  };
}

export type RequestLogRepository = ReturnType<typeof createRequestLogRepository>;
