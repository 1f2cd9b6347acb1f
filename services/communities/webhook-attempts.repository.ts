// SQL of sending a webhook delivery (docs/WEBHOOKS.md "Delivery"): what a claimed delivery needs —
// its endpoint and event — and the record of an attempt's outcome, written only while the claim
// still holds the delivery (the lease's fencing token), in one transaction with the delivery's new
// state and, when the attempt disables the endpoint, the endpoint's.
import type { Queryable } from '../kit/db/database.js';
import { leaseHeld, type LeasedTable } from '../kit/jobs/leased-queue.js';
import type { SendResult } from './webhook-send.js';

export const DELIVERIES: LeasedTable = {
  table: 'communities.webhook_deliveries',
  waiting: 'pending',
  abandoned: { status: 'failed', error: 'abandoned: every worker that took it stopped before it ended' },
  due: 'next_attempt_at <= now()',
  // Soonest due first: a claim reads the due deliveries at the head of the index (migration 013) and
  // never walks past the many that wait for a later retry.
  order: 'next_attempt_at',
};

export interface DeliveryTarget {
  id: string;
  event_id: string;
  event_type: string;
  retries: number;
  created_at: Date;
  endpoint_id: string;
  url: string;
  endpoint_status: string;
  owner_type: 'user' | 'organization';
  owner_id: string;
  secret: string;
  previous_secret: string | null;
  previous_until: Date | null;
  /** The event (null for a test delivery). */
  type: string | null;
  user_id: string | null;
  community_id: string | null;
  event_owner_type: string | null;
  event_owner_id: string | null;
  payload: unknown;
  event_created_at: Date | null;
}

/** A delivery's new state after an attempt, and the endpoint's when the attempt disables it. */
export interface Outcome {
  status: 'pending' | 'succeeded' | 'failed' | 'skipped';
  retries: number;
  nextAttemptAt: Date;
  error: string | null;
  disable?: 'gone' | 'failing';
}

export function createWebhookAttemptsRepository(db: Queryable) {
  return {
    async target(id: string): Promise<DeliveryTarget | undefined> {
      const rows = await db.query<DeliveryTarget>(
        `SELECT d.id, d.event_id, d.event_type, d.retries, d.created_at, d.endpoint_id,
                w.url, w.status AS endpoint_status, w.owner_type, w.owner_id, w.secret, w.previous_secret, w.previous_until,
                ev.type, ev.user_id, ev.community_id, ev.owner_type AS event_owner_type, ev.owner_id AS event_owner_id,
                ev.payload, ev.created_at AS event_created_at
           FROM communities.webhook_deliveries d
           JOIN communities.webhook_endpoints w ON w.id = d.endpoint_id
           LEFT JOIN communities.events ev ON ev.id = d.event_id
          WHERE d.id = $1`,
        [id],
      );
      return rows[0];
    },

    /** Logs the attempt (when one was made) under this claim; false when the claim was lost (nothing written). */
    async record(id: string, token: number, outcome: Outcome, attempt: SendResult | undefined): Promise<boolean> {
      const held = leaseHeld(DELIVERIES, '$1', '$2');
      if (attempt) {
        const logged = await db.query(
          `INSERT INTO communities.webhook_delivery_attempts (delivery_id, attempt, status_code, latency_ms, error, response_excerpt)
           SELECT $1, coalesce((SELECT max(attempt) FROM communities.webhook_delivery_attempts WHERE delivery_id = $1), 0) + 1, $3, $4, $5, $6
            WHERE ${held} RETURNING attempt`,
          [id, token, attempt.statusCode, attempt.latencyMs, attempt.error, attempt.excerpt],
        );
        if (logged.length === 0) return false;
      }
      if (outcome.disable) {
        // A delivery failing its whole schedule disables the endpoint only when nothing succeeded
        // there since this delivery's event: the endpoint failed the whole time.
        await db.query(
          `UPDATE communities.webhook_endpoints w SET status = 'disabled', disabled_reason = $3
            WHERE w.id = (SELECT endpoint_id FROM communities.webhook_deliveries WHERE id = $1) AND w.status = 'enabled' AND ${held}
              AND ($3 = 'gone' OR NOT EXISTS (
                    SELECT 1 FROM communities.webhook_deliveries o JOIN communities.webhook_delivery_attempts a ON a.delivery_id = o.id
                     WHERE o.endpoint_id = w.id AND a.status_code BETWEEN 200 AND 299
                       AND a.at >= (SELECT created_at FROM communities.webhook_deliveries WHERE id = $1)))`,
          [id, token, outcome.disable],
        );
      }
      return true;
    },
  };
}
