// A service's event outbox (docs/WEBHOOKS.md): a table in its own schema, written in the same
// statement or transaction as the state change an event describes (kit/jobs/leased-queue.ts
// `events`), and this relay, which moves its rows into the event log the communities service keeps
// (RecordEvents). A row is deleted only after the log has it; the log records an event id once, so
// a relay that crashed after sending, or two replicas sending the same row, still record one event.
//
// The table: `id` (the event id, evt_…), `type`, `subject_id` (the resource), `created_at`.
import type { RecordedEvent } from '../../../proto/gen/expertnet/communities/v1/communities_service.js';
import type { Database } from '../db/database.js';
import type { Logger } from '../logger.js';

export interface OutboxRow {
  id: string;
  type: string;
  subject_id: string;
  created_at: Date;
}

export interface OutboxRelayOptions {
  db: Database;
  /** Schema-qualified outbox table, e.g. `search.event_outbox`. */
  table: string;
  /** The events of these rows, with their resources as their reads show them now, and who may see them. */
  build(rows: OutboxRow[]): Promise<RecordedEvent[]>;
  /** Records the events in the log (idempotent on the event id). */
  send(events: RecordedEvent[]): Promise<void>;
  logger: Logger;
  /** Rows moved at once. */
  batch?: number;
}

export function createOutboxRelay(options: OutboxRelayOptions) {
  const batch = options.batch ?? 50;
  let running: Promise<void> | undefined;
  let again = false;

  async function moveOnce(): Promise<number> {
    const rows = await options.db.query<OutboxRow>(`SELECT * FROM ${options.table} ORDER BY created_at, id LIMIT $1`, [batch]);
    if (rows.length === 0) return 0;
    const events = await options.build(rows);
    if (events.length > 0) await options.send(events);
    await options.db.query(`DELETE FROM ${options.table} WHERE id = ANY($1::text[])`, [rows.map((r) => r.id)]);
    return rows.length;
  }

  async function drain(): Promise<void> {
    do {
      again = false;
      try {
        while ((await moveOnce()) === batch);
      } catch (err) {
        // Left in the outbox: the next drain (the worker's next tick) sends them again.
        options.logger.warn({ err, outbox: options.table }, 'event relay failed; retried at the next tick');
        return;
      }
    } while (again);
  }

  return {
    /**
     * Moves every row now, one drain at a time per process; a call during a drain asks for one
     * more pass. Never throws: what fails stays in the outbox for the next call.
     */
    relay(): Promise<void> {
      if (running) {
        again = true;
        return running;
      }
      running = drain().finally(() => (running = undefined));
      return running;
    },
    /** Rows not relayed yet. */
    async pending(): Promise<number> {
      const rows = await options.db.query<{ n: number }>(`SELECT count(*)::int8 AS n FROM ${options.table}`);
      return Number(rows[0]?.n ?? 0);
    },
  };
}

export type OutboxRelay = ReturnType<typeof createOutboxRelay>;
