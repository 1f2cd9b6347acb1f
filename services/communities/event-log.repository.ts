// SQL for the event log (communities.events; docs/WEBHOOKS.md): recording an event once, and the
// events a caller may see, newest first, after a keyset position. What "may see" means is
// event-log.ts's; here it arrives as the audiences the caller holds.
import type { Queryable } from '../kit/db/database.js';
import type { EventType } from '../kit/event-types.js';

export interface EventRow {
  id: string;
  type: EventType;
  payload: unknown;
  /** created_at to the microsecond, as a list cursor carries it. */
  created_key: string;
}

export interface NewEventRow {
  id: string;
  type: EventType;
  createdAt: string;
  credentialId: string | null;
  userId: string | null;
  communityId: string | null;
  /** A search event: the owner of the credential that started it (its webhook endpoints receive it). */
  ownerType: string | null;
  ownerId: string | null;
  payload: unknown;
}

/**
 * What the caller holds, per kind of resource; null where the caller may see none of that kind
 * (the scope is missing, or there is no user behind the credential).
 */
export interface EventAudiences {
  credentialId: string | null;
  userId: string | null;
  /** Communities in read reach whose enrichment runs are readable (enrich:read). */
  runCommunities: string[] | null;
  /** Communities in read reach whose rosters are readable (profile:read). */
  rosterCommunities: string[] | null;
}

const CREATED_KEY = `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_key`;

/** The audience condition ($1–$4) every read applies (the delivery log too: webhook-deliveries.repository.ts). */
export const VISIBLE = `(
     (split_part(type, '.', 1) = 'search' AND credential_id = $1::text)
  OR (split_part(type, '.', 1) = 'self_enrichment_run' AND user_id = $2::text)
  OR (split_part(type, '.', 1) = 'enrichment_run' AND community_id = ANY($3::text[]))
  OR (split_part(type, '.', 1) = 'member' AND community_id = ANY($4::text[])))`;

export function audienceParams(a: EventAudiences): unknown[] {
  return [a.credentialId, a.userId, a.runCommunities ?? [], a.rosterCommunities ?? []];
}

export function createEventLogRepository(db: Queryable) {
  return {
    /** Records the events not recorded before (by id); returns those that were new. */
    async insert(events: NewEventRow[]): Promise<NewEventRow[]> {
      const recorded: NewEventRow[] = [];
      for (const e of events) {
        const rows = await db.query(
          `INSERT INTO communities.events (id, type, created_at, credential_id, user_id, community_id, owner_type, owner_id, payload)
           VALUES ($1, $2, $3::timestamptz, $4, $5, $6, $7, $8, $9::jsonb)
           ON CONFLICT (id) DO NOTHING RETURNING id`,
          [e.id, e.type, e.createdAt, e.credentialId, e.userId, e.communityId, e.ownerType, e.ownerId, JSON.stringify(e.payload)],
        );
        if (rows.length === 1) recorded.push(e);
      }
      return recorded;
    },

    /** The visible events, newest first ((created_at, id) descending), of one type or all, after the position. */
    async page(audiences: EventAudiences, type: EventType | undefined, after: { at: string; id: string } | undefined, limit: number): Promise<EventRow[]> {
      return db.query<EventRow>(
        `SELECT id, type, payload, ${CREATED_KEY} FROM communities.events
          WHERE ${VISIBLE}
            AND ($5::text IS NULL OR type = $5::text)
            AND ($6::timestamptz IS NULL OR (created_at, id) < ($6::timestamptz, $7::text))
          ORDER BY created_at DESC, id DESC
          LIMIT $8`,
        [...audienceParams(audiences), type ?? null, after?.at ?? null, after?.id ?? '', limit],
      );
    },

    /** One event, when visible. */
    async find(audiences: EventAudiences, id: string): Promise<EventRow | undefined> {
      const rows = await db.query<EventRow>(
        `SELECT id, type, payload, ${CREATED_KEY} FROM communities.events WHERE id = $5 AND ${VISIBLE}`,
        [...audienceParams(audiences), id],
      );
      return rows[0];
    },
  };
}
