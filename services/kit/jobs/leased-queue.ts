// A job queue kept in a table of the caller's, worked under leases: search jobs and enrichment runs
// (docs/SEARCH.md, docs/ENRICHMENT.md); the worker loop over it is leased-worker.ts. A job is
// claimable while waiting, or while running with an expired lease (its worker died: crash,
// deploy). A claim bumps `attempts`, which is that claim's fencing token: heartbeats, hand-backs
// and the job's end are written only `WHERE attempts = <token>`, so a worker that lost its lease
// can never overwrite the work of the claim that took over.
//
// The table needs the columns `id` and `error` (text), `status` (text; 'running' while a claim
// holds the job), `attempts` (integer), `lease_until`, `created_at` and `finished_at`
// (timestamptz). Claims use `FOR UPDATE SKIP LOCKED`, which both stores (PostgreSQL and PGlite)
// run: two claimers never wait on each other and never take the same job.
import type { Queryable } from '../db/database.js';

/** The columns every leased job row has. */
export interface LeasedRow {
  id: string;
  status: string;
  attempts: number;
  lease_until: Date | null;
  created_at: Date;
  finished_at: Date | null;
}

/** Which table the queue works, and what its statuses and extra columns are. */
export interface LeasedTable {
  /** Schema-qualified table name, e.g. `search.search_jobs`. */
  table: string;
  /** The status of a job accepted but not yet claimed. */
  waiting: string;
  /** The status a job ends in when its workers kept dying, and the error it records. */
  abandoned: { status: string; error: string };
  /** Extra assignments of a claim (SQL, unqualified columns), e.g. `started_at = coalesce(started_at, now())`. */
  onClaim?: string;
  /** Extra assignments when a job ends, however it ends, e.g. an expiry. */
  onEnd?: string;
  /**
   * The event a job's end records (docs/WEBHOOKS.md): written to this outbox table in the same
   * statement as the end, so an end is never without its event nor recorded twice (the end is
   * fenced by its claim). `type` is an SQL expression over the ended row's columns naming the event
   * type, null for an end that records none.
   */
  events?: { outbox: string; type: string };
  /** An SQL condition a waiting job must also meet to be claimable, e.g. a retry's `next_attempt_at <= now()`. */
  due?: string;
  /** The order claims take claimable jobs in (an indexed column; default `created_at`): with `due`, the column it tests. */
  order?: string;
}

export interface LeasePolicy {
  /** How long a claim holds the job without a heartbeat. */
  leaseMs: number;
  /** Claims a job may have; a job whose last claim's worker died is ended as abandoned. */
  maxAttempts: number;
}

const RUNNING = 'running';
const COLUMN = /^[a-z_][a-z0-9_]*$/;

/**
 * SQL true while the claim `token` still holds job `id` (both SQL expressions, e.g. `$1`, `$2`):
 * for writes of a claim to rows of other tables (a run's items), fenced like the job's own.
 */
export function leaseHeld(table: LeasedTable, id: string, token: string): string {
  return `EXISTS (SELECT 1 FROM ${table.table} held WHERE held.id = ${id} AND held.attempts = ${token} AND held.status = '${RUNNING}')`;
}

export function createLeasedQueue<Row extends LeasedRow>(db: Queryable, spec: LeasedTable, policy: LeasePolicy) {
  const t = spec.table;
  const ended = `lease_until = NULL, finished_at = now()${spec.onEnd ? `, ${spec.onEnd}` : ''}`;
  /** The ending UPDATE (… RETURNING *), with the insert of its events into the outbox when the table records events. */
  const withEvents = (update: string) =>
    spec.events
      ? `WITH ended AS (${update}),
              recorded AS (INSERT INTO ${spec.events.outbox} (id, type, subject_id, created_at)
                           SELECT 'evt_' || replace(gen_random_uuid()::text, '-', ''), e.type, e.id, e.finished_at
                             FROM (SELECT ended.*, (${spec.events.type}) AS type FROM ended) e
                            WHERE e.type IS NOT NULL)
         SELECT * FROM ended`
      : update;

  return {
    policy,

    /**
     * Claims one job (this one when `id` is given, else the oldest claimable) for a lease; the row
     * comes back with `attempts` as this claim's token. Undefined when there is none, when another
     * claim holds it, or when it is out of attempts.
     */
    async claim(id?: string): Promise<Row | undefined> {
      const rows = await db.query<Row>(
        `UPDATE ${t} j
            SET status = '${RUNNING}', attempts = j.attempts + 1, lease_until = now() + ($1::int * interval '1 millisecond')
                ${spec.onClaim ? `, ${spec.onClaim}` : ''}
          WHERE j.id = (
                SELECT id FROM ${t}
                 WHERE ((status = $4${spec.due ? ` AND (${spec.due})` : ''}) OR (status = '${RUNNING}' AND lease_until < now()))
                   AND attempts < $2 AND ($3::text IS NULL OR id = $3::text)
                 ORDER BY ${spec.order ?? 'created_at'}
                 LIMIT 1
                   FOR UPDATE SKIP LOCKED)
        RETURNING j.*`,
        [policy.leaseMs, policy.maxAttempts, id ?? null, spec.waiting],
      );
      return rows[0];
    },

    /** Extends the lease of this claim; false when the claim was lost (taken over, or the job ended). */
    async heartbeat(id: string, token: number): Promise<boolean> {
      const rows = await db.query(
        `UPDATE ${t} SET lease_until = now() + ($3::int * interval '1 millisecond')
          WHERE id = $1 AND attempts = $2 AND status = '${RUNNING}' RETURNING id`,
        [id, token, policy.leaseMs],
      );
      return rows.length === 1;
    },

    /** Whether this claim still holds the job. */
    async holds(id: string, token: number): Promise<boolean> {
      return (await db.query(`SELECT 1 WHERE ${leaseHeld(spec, '$1', '$2')}`, [id, token])).length === 1;
    },

    /** Hands the lease of this claim back (a stopping process): the job is claimable at once. */
    async release(id: string, token: number): Promise<void> {
      // Already past (not now(): the next statement's now() may be the same instant, and a claim needs it past).
      await db.query(
        `UPDATE ${t} SET lease_until = now() - interval '1 millisecond' WHERE id = $1 AND attempts = $2 AND status = '${RUNNING}'`,
        [id, token],
      );
    },

    /**
     * Ends the job for this claim with these column values (`status` among them; values are
     * parameters, JSON passed as a string). Undefined when the claim was lost: nothing is written.
     */
    async finish(id: string, token: number, values: { status: string } & Record<string, unknown>): Promise<Row | undefined> {
      const columns = Object.keys(values);
      for (const c of columns) if (!COLUMN.test(c)) throw new Error(`not a column name: ${c}`);
      const rows = await db.query<Row>(
        withEvents(`UPDATE ${t} SET ${columns.map((c, i) => `${c} = $${i + 3}`).join(', ')}, ${ended}
          WHERE id = $1 AND attempts = $2 AND status = '${RUNNING}' RETURNING *`),
        [id, token, ...columns.map((c) => values[c])],
      );
      return rows[0];
    },

    /** Running jobs whose worker died on their last allowed attempt: ended as abandoned. Returns their ids. */
    async giveUpAbandoned(): Promise<string[]> {
      const rows = await db.query<{ id: string }>(
        withEvents(`UPDATE ${t} SET status = $2, error = $3, ${ended}
          WHERE status = '${RUNNING}' AND lease_until < now() AND attempts >= $1
        RETURNING *`),
        [policy.maxAttempts, spec.abandoned.status, spec.abandoned.error],
      );
      return rows.map((r) => r.id);
    },

    /** Jobs waiting for a worker or being worked on (the queue depth, all processes). */
    async countOpen(): Promise<number> {
      const rows = await db.query<{ n: number }>(`SELECT count(*)::int8 AS n FROM ${t} WHERE status IN ($1, '${RUNNING}')`, [spec.waiting]);
      return Number(rows[0]?.n ?? 0);
    },
  };
}

export type LeasedQueue<Row extends LeasedRow> = ReturnType<typeof createLeasedQueue<Row>>;
