// SQL of webhook deliveries (communities.webhook_deliveries, migration 012; docs/WEBHOOKS.md
// "Delivery"): the fan-out of a recorded event to the endpoints that may receive it, and the
// delivery log as an endpoint's owner reads it — fenced to the owner, and to the events the caller
// may see now (the event log's own condition, VISIBLE), test deliveries aside.
import type { Queryable } from '../kit/db/database.js';
import { audienceParams, VISIBLE, type EventAudiences, type NewEventRow } from './event-log.repository.js';
import type { EndpointOwner } from './webhook-endpoints.repository.js';

/** The synthetic event type of a test delivery. */
export const TEST_EVENT_TYPE = 'webhook.test';

export interface AttemptRow {
  attempt: number;
  at: Date | string;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  response_excerpt: string;
}

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: string;
  attempts: number;
  retries: number;
  next_attempt_at: Date;
  lease_until: Date | null;
  error: string | null;
  created_at: Date;
  finished_at: Date | null;
}

export interface LoggedDelivery extends DeliveryRow {
  created_key: string;
  tried: number;
  last_attempt: AttemptRow | null;
}

/**
 * Endpoints that could plausibly see the event (narrowed cheaply; the delivery-time check decides):
 * a search's to the owner of the credential that started it, a self run's to its person, a
 * community's to the owning organization, or to a user who owns it, belongs to it, or may manage
 * its organization (identity knows which organizations a user manages, so every organization's
 * community passes here).
 */
const MAY_SEE = `CASE split_part($2, '.', 1)
  WHEN 'search' THEN w.owner_type = $3 AND w.owner_id = $4
  WHEN 'self_enrichment_run' THEN w.owner_type = 'user' AND w.owner_id = $5
  ELSE EXISTS (SELECT 1 FROM communities.communities c WHERE c.id = $6 AND (
         (c.owner_type = 'organization' AND (w.owner_type = 'user' OR c.owner_id = w.owner_id))
      OR (w.owner_type = 'user' AND c.owner_type = 'user' AND c.owner_id = w.owner_id)
      OR (w.owner_type = 'user' AND EXISTS (SELECT 1 FROM communities.memberships m JOIN communities.profiles p ON p.id = m.profile_id
                                             WHERE m.community_id = c.id AND p.user_id = w.owner_id))))
END`;

const CREATED_KEY = `to_char(d.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_key`;
const LOGGED = `d.*, ${CREATED_KEY},
  (SELECT count(*)::int FROM communities.webhook_delivery_attempts a WHERE a.delivery_id = d.id) AS tried,
  (SELECT row_to_json(l) FROM (SELECT attempt, at, status_code, latency_ms, error, response_excerpt
                                 FROM communities.webhook_delivery_attempts a WHERE a.delivery_id = d.id
                                ORDER BY attempt DESC LIMIT 1) l) AS last_attempt`;
/**
 * The owner's endpoint ($5, $6, $7) and a delivery the reader may see ($1–$4: the event log's
 * audiences; $8: the owner's own searches too, whichever key ran them).
 */
const SHOWN = `FROM communities.webhook_deliveries d
  JOIN communities.webhook_endpoints w ON w.id = d.endpoint_id
  LEFT JOIN communities.events ev ON ev.id = d.event_id
 WHERE w.owner_type = $5 AND w.owner_id = $6 AND d.endpoint_id = $7
   AND (d.event_type = '${TEST_EVENT_TYPE}' OR ${VISIBLE}
        OR ($8::boolean AND split_part(ev.type, '.', 1) = 'search' AND ev.owner_type = w.owner_type AND ev.owner_id = w.owner_id))`;

/** What a reader of the log holds: the event log's audiences, and whether the owner's own searches count. */
export type DeliveryReader = EventAudiences & { wholeOwner: boolean };

export function createWebhookDeliveriesRepository(db: Queryable) {
  return {
    /** One delivery per enabled endpoint subscribed to the event's type that may see it; run in the event's transaction. */
    async fanOut(e: NewEventRow): Promise<void> {
      await db.query(
        `INSERT INTO communities.webhook_deliveries (id, endpoint_id, event_id, event_type)
         SELECT 'wdl_' || substr(replace(gen_random_uuid()::text, '-', ''), 1, 16), w.id, $1, $2
           FROM communities.webhook_endpoints w
          WHERE w.status = 'enabled' AND $2 = ANY(w.events) AND ${MAY_SEE}
         ON CONFLICT (endpoint_id, event_id) DO NOTHING`,
        [e.id, e.type, e.ownerType, e.ownerId, e.userId, e.communityId],
      );
    },

    /** The log's page: newest first ((created_at, id) descending) after the position. */
    async page(owner: EndpointOwner, endpointId: string, reader: DeliveryReader, after: { at: string; id: string } | undefined, limit: number): Promise<LoggedDelivery[]> {
      return db.query<LoggedDelivery>(
        `SELECT ${LOGGED} ${SHOWN}
            AND ($9::timestamptz IS NULL OR (d.created_at, d.id) < ($9::timestamptz, $10::text))
          ORDER BY d.created_at DESC, d.id DESC LIMIT $11`,
        [...audienceParams(reader), owner.type, owner.id, endpointId, reader.wholeOwner, after?.at ?? null, after?.id ?? '', limit],
      );
    },

    async find(owner: EndpointOwner, endpointId: string, reader: DeliveryReader, id: string): Promise<LoggedDelivery | undefined> {
      const rows = await db.query<LoggedDelivery>(`SELECT ${LOGGED} ${SHOWN} AND d.id = $9`, [...audienceParams(reader), owner.type, owner.id, endpointId, reader.wholeOwner, id]);
      return rows[0];
    },

    async attempts(deliveryId: string): Promise<AttemptRow[]> {
      return db.query<AttemptRow>(
        'SELECT attempt, at, status_code, latency_ms, error, response_excerpt FROM communities.webhook_delivery_attempts WHERE delivery_id = $1 ORDER BY attempt',
        [deliveryId],
      );
    },

    /** Due now, with a fresh run of the retry schedule; a delivery being attempted right now is left to that attempt. */
    async requeue(id: string): Promise<void> {
      await db.query(
        `UPDATE communities.webhook_deliveries SET status = 'pending', retries = 0, next_attempt_at = now(), error = NULL, finished_at = NULL
          WHERE id = $1 AND status <> 'running'`,
        [id],
      );
    },

    async insertTest(id: string, endpointId: string, eventId: string): Promise<void> {
      await db.query(`INSERT INTO communities.webhook_deliveries (id, endpoint_id, event_id, event_type) VALUES ($1, $2, $3, '${TEST_EVENT_TYPE}')`, [id, endpointId, eventId]);
    },
  };
}
