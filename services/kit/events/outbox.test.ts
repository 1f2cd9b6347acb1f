// A leased queue's events and their relay on both stores (docs/WEBHOOKS.md): a job's end writes its
// event to the outbox in the same statement, once, however many times and by whichever claims the
// end is attempted; an end that names no event writes none; a job ended as abandoned records its
// event too; and the relay moves each row, keeps what it could not send, and sends again.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../../proto/gen/expertnet/communities/v1/communities_service.js';
import { openTestDatabase, storeNames } from '../../../test/helpers/stores.js';
import type { Database } from '../db/database.js';
import { createLeasedQueue, type LeasedRow, type LeasedTable } from '../jobs/leased-queue.js';
import { createLogger } from '../logger.js';
import { createOutboxRelay, type OutboxRow } from './outbox.js';

const TABLE: LeasedTable = {
  table: 'public.outbox_test_jobs',
  waiting: 'waiting',
  abandoned: { status: 'given_up', error: 'workers kept dying' },
  events: { outbox: 'public.outbox_test_events', type: `CASE status WHEN 'done' THEN 'job.done' WHEN 'given_up' THEN 'job.given_up' END` },
};

describe.each(storeNames())('event outbox on %s', (store) => {
  let db: Database;
  let close: () => Promise<void>;
  let n = 0;
  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(store));
    await db.exec(`CREATE TABLE public.outbox_test_jobs (
      id text PRIMARY KEY, status text NOT NULL DEFAULT 'waiting', attempts integer NOT NULL DEFAULT 0,
      lease_until timestamptz, created_at timestamptz NOT NULL DEFAULT clock_timestamp(), finished_at timestamptz, error text);
      CREATE TABLE public.outbox_test_events (id text PRIMARY KEY, type text NOT NULL, subject_id text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`);
  });
  afterAll(async () => close());
  beforeEach(async () => {
    n++;
    await db.exec('DELETE FROM public.outbox_test_jobs; DELETE FROM public.outbox_test_events');
  });

  const queue = () => createLeasedQueue<LeasedRow>(db, TABLE, { leaseMs: 60_000, maxAttempts: 2 });
  const addJob = async () => {
    const id = `j${n}`;
    await db.query('INSERT INTO public.outbox_test_jobs (id) VALUES ($1)', [id]);
    return id;
  };
  const outbox = () => db.query<OutboxRow>('SELECT * FROM public.outbox_test_events ORDER BY created_at');

  it('records one event for an end attempted ten times at once by its claim, and none by a claim that lost the job', async () => {
    const id = await addJob();
    const q = queue();
    const first = (await q.claim(id))!;
    await db.query(`UPDATE public.outbox_test_jobs SET lease_until = now() - interval '1 second' WHERE id = $1`, [id]);
    const second = (await q.claim(id))!;
    const ends = await Promise.all([
      ...Array.from({ length: 10 }, () => q.finish(id, second.attempts, { status: 'done' })),
      q.finish(id, first.attempts, { status: 'done' }),
    ]);
    expect(ends.filter(Boolean)).toHaveLength(1);
    const rows = await outbox();
    expect(rows.map((r) => [r.type, r.subject_id])).toEqual([['job.done', id]]);
    expect(rows[0]!.id).toMatch(/^evt_[0-9a-f]{32}$/);
    // The event's time is the end's.
    const [job] = await db.query<LeasedRow>('SELECT * FROM public.outbox_test_jobs WHERE id = $1', [id]);
    expect(rows[0]!.created_at.getTime()).toBe(job!.finished_at!.getTime());
  });

  it('records none for an end the table names no event for, and one for a job ended as abandoned', async () => {
    const quiet = await addJob();
    const q = queue();
    await q.finish(quiet, (await q.claim(quiet))!.attempts, { status: 'cancelled' });
    expect(await outbox()).toEqual([]);
    const dying = `${quiet}_dying`;
    await db.query('INSERT INTO public.outbox_test_jobs (id, attempts) VALUES ($1, 1)', [dying]);
    await q.claim(dying);
    await db.query(`UPDATE public.outbox_test_jobs SET lease_until = now() - interval '1 second' WHERE id = $1`, [dying]);
    expect(await Promise.all([q.giveUpAbandoned(), q.giveUpAbandoned()])).toEqual(expect.arrayContaining([[dying], []]));
    expect((await outbox()).map((r) => [r.type, r.subject_id])).toEqual([['job.given_up', dying]]);
  });

  it('relays every row once the log has it, and keeps and sends again what a failed send left', async () => {
    const q = queue();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const id = `j${n}_${i}`;
      await db.query('INSERT INTO public.outbox_test_jobs (id) VALUES ($1)', [id]);
      await q.finish(id, (await q.claim(id))!.attempts, { status: 'done' });
      ids.push(id);
    }
    const log = new Map<string, RecordedEvent>();
    let failNext = true;
    const relay = createOutboxRelay({
      db,
      table: 'public.outbox_test_events',
      logger: createLogger('silent'),
      batch: 2,
      build: async (rows) => rows.map((r) => ({ event: { id: r.id, type: r.type, createdAt: r.created_at.toISOString() }, credentialId: r.subject_id, userId: '', communityId: '' })),
      async send(events) {
        // The log records an id once; the first send is lost after the log had it (a crash before the delete).
        for (const e of events) if (!log.has(e.event!.id)) log.set(e.event!.id, e);
        if (failNext) {
          failNext = false;
          throw new Error('the answer was lost');
        }
      },
    });
    await relay.relay();
    expect(await relay.pending()).toBe(3);
    await Promise.all([relay.relay(), relay.relay()]);
    expect(await relay.pending()).toBe(0);
    expect([...log.values()].map((e) => e.credentialId).sort()).toEqual(ids);
  });
});
