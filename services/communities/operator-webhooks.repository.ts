// SQL of the operator's reads of webhooks (operator-webhooks.ts): every owner's endpoints, or one
// owner's, and the whole event log, newest first ((created_at, id) descending) after a keyset
// position. No secret is ever selected.
import type { Queryable } from '../kit/db/database.js';

/** created_at to the microsecond, as a list cursor carries it. */
const CREATED_KEY = `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_key`;

export interface Position {
  at: string;
  id: string;
}

export interface OwnedEndpointRow {
  id: string;
  owner_type: 'user' | 'organization';
  owner_id: string;
  url: string;
  events: string[];
  description: string | null;
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  created_at: Date;
  created_key: string;
}

export interface LoggedEventRow {
  id: string;
  payload: unknown;
  credential_id: string | null;
  user_id: string | null;
  community_id: string | null;
  owner_type: string | null;
  owner_id: string | null;
  created_key: string;
}

/** After a keyset position: its time and id are parameters `first` and `first + 1` (the time null: from the start). */
const after = (first: number) => `($${first}::timestamptz IS NULL OR (created_at, id) < ($${first}::timestamptz, $${first + 1}::text))`;

export function createOperatorWebhooksRepository(db: Queryable) {
  return {
    async endpoints(owner: { type: string; id: string } | undefined, from: Position | undefined, limit: number): Promise<OwnedEndpointRow[]> {
      return db.query<OwnedEndpointRow>(
        `SELECT id, owner_type, owner_id, url, events, description, status, disabled_reason, created_at, ${CREATED_KEY}
           FROM communities.webhook_endpoints
          WHERE ($1::text IS NULL OR (owner_type = $1::text AND owner_id = $2::text)) AND ${after(3)}
          ORDER BY created_at DESC, id DESC LIMIT $5`,
        [owner?.type ?? null, owner?.id ?? '', from?.at ?? null, from?.id ?? '', limit],
      );
    },

    async events(type: string | undefined, from: Position | undefined, limit: number): Promise<LoggedEventRow[]> {
      return db.query<LoggedEventRow>(
        `SELECT id, payload, credential_id, user_id, community_id, owner_type, owner_id, ${CREATED_KEY}
           FROM communities.events
          WHERE ($1::text IS NULL OR type = $1::text) AND ${after(2)}
          ORDER BY created_at DESC, id DESC LIMIT $4`,
        [type ?? null, from?.at ?? null, from?.id ?? '', limit],
      );
    },
  };
}
