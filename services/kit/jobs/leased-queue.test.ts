// The leased queue and its worker on both stores, over a table of the test's own: a job is
// claimed by exactly one of many parallel claimers, an expired lease is taken over, the claim that
// lost it can neither extend, hand back nor end the job (fencing), a job out of attempts is ended
// as abandoned, and the worker keeps a lease alive while it works and hands it back when stopping.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openTestDatabase, storeNames } from '../../../test/helpers/stores.js';
import type { Database } from '../db/database.js';
import { createLogger } from '../logger.js';
import { createLeasedQueue, type LeasedRow, type LeasedTable, type LeasePolicy } from './leased-queue.js';
import { createLeasedWorker } from './leased-worker.js';

interface TestJob extends LeasedRow {
  result: string | null;
  error: string | null;
  ended_note: string | null;
}

const TABLE: LeasedTable = {
  table: 'public.leased_test_jobs',
  waiting: 'waiting',
  abandoned: { status: 'given_up', error: 'workers kept dying' },
  onEnd: "ended_note = 'ended'",
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(storeNames())('leased queue on %s', (store) => {
  let db: Database;
  let close: () => Promise<void>;
  let n = 0;
  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(store));
    await db.exec(`CREATE TABLE public.leased_test_jobs (
      id text PRIMARY KEY, status text NOT NULL DEFAULT 'waiting', attempts integer NOT NULL DEFAULT 0,
      lease_until timestamptz, created_at timestamptz NOT NULL DEFAULT clock_timestamp(), finished_at timestamptz,
      result text, error text, ended_note text)`);
  });
  afterAll(async () => close());
  beforeEach(async () => {
    n++;
    // Each test alone: a tick or an id-less claim must not find another test's jobs.
    await db.query('DELETE FROM public.leased_test_jobs');
  });

  const queue = (policy: Partial<LeasePolicy> = {}) => createLeasedQueue<TestJob>(db, TABLE, { leaseMs: 60_000, maxAttempts: 3, ...policy });
  async function addJobs(count: number): Promise<string[]> {
    const ids = Array.from({ length: count }, (_, i) => `t${n}_${String(i).padStart(2, '0')}`);
    for (const id of ids) await db.query('INSERT INTO public.leased_test_jobs (id) VALUES ($1)', [id]);
    return ids;
  }
  const row = async (id: string) => (await db.query<TestJob>('SELECT * FROM public.leased_test_jobs WHERE id = $1', [id]))[0]!;
  /** Time passes beyond the job's lease (its worker is gone). */
  const expire = (id: string) => db.query(`UPDATE public.leased_test_jobs SET lease_until = now() - interval '1 second' WHERE id = $1`, [id]);

  it('claims a waiting job only once its due condition holds, and a job whose worker died whatever the condition', async () => {
    const [id] = await addJobs(1);
    const due = createLeasedQueue<TestJob>(db, { ...TABLE, due: "result IS DISTINCT FROM 'later'" }, { leaseMs: 60_000, maxAttempts: 3 });
    await db.query(`UPDATE public.leased_test_jobs SET result = 'later' WHERE id = $1`, [id]);
    expect(await due.claim(id)).toBeUndefined();
    await db.query('UPDATE public.leased_test_jobs SET result = NULL WHERE id = $1', [id]);
    expect((await due.claim(id))?.attempts).toBe(1);
    await db.query(`UPDATE public.leased_test_jobs SET result = 'later' WHERE id = $1`, [id]);
    await expire(id!);
    expect((await due.claim(id))?.attempts).toBe(2);
  });

  it('gives every job to exactly one of 20 parallel claimers', async () => {
    const ids = await addJobs(30);
    const q = queue();
    const claimed: string[] = [];
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        for (let job = await q.claim(); job; job = await q.claim()) {
          claimed.push(job.id);
          expect(job).toMatchObject({ status: 'running', attempts: 1 });
        }
      }),
    );
    expect(claimed.sort()).toEqual(ids);
    expect(await q.claim()).toBeUndefined();
  });

  it('takes over a job whose lease ran out, with the next token; a live lease is not taken', async () => {
    const [id] = await addJobs(1);
    const q = queue();
    expect((await q.claim(id))?.attempts).toBe(1);
    expect(await q.claim(id)).toBeUndefined();
    await expire(id!);
    const taken = await q.claim(id);
    expect(taken).toMatchObject({ id, status: 'running', attempts: 2 });
    expect(taken!.lease_until!.getTime()).toBeGreaterThan(Date.now() + 50_000);
  });

  it('refuses the heartbeat, hand-back and end of a claim that was taken over, and accepts the new claim’s', async () => {
    const [id] = await addJobs(1);
    const q = queue();
    await q.claim(id);
    await expire(id!);
    await q.claim(id);
    const leaseOfSecond = (await row(id!)).lease_until!.getTime();

    expect(await q.heartbeat(id!, 1)).toBe(false);
    expect(await q.holds(id!, 1)).toBe(false);
    await q.release(id!, 1);
    expect((await row(id!)).lease_until!.getTime()).toBe(leaseOfSecond);
    expect(await q.finish(id!, 1, { status: 'done', result: 'stale' })).toBeUndefined();
    expect(await row(id!)).toMatchObject({ status: 'running', attempts: 2, result: null });

    expect(await q.holds(id!, 2)).toBe(true);
    expect(await q.heartbeat(id!, 2)).toBe(true);
    expect(await q.finish(id!, 2, { status: 'done', result: 'fresh' })).toMatchObject({ status: 'done', result: 'fresh', lease_until: null, ended_note: 'ended' });
    // Ended: no claim holds it any more, and no claim takes it again.
    expect(await q.heartbeat(id!, 2)).toBe(false);
    expect(await q.claim(id)).toBeUndefined();
  });

  it('ends a job whose worker died on its last attempt as abandoned; one with attempts left is taken over', async () => {
    const [doomed, retried] = await addJobs(2);
    const q = queue({ maxAttempts: 2 });
    for (let i = 0; i < 2; i++) {
      expect(await q.claim(doomed)).toBeDefined();
      await expire(doomed!);
    }
    await q.claim(retried);
    await expire(retried!);

    expect(await q.giveUpAbandoned()).toEqual([doomed]);
    expect(await row(doomed!)).toMatchObject({ status: 'given_up', error: 'workers kept dying', attempts: 2, lease_until: null, ended_note: 'ended' });
    expect(await q.claim(doomed)).toBeUndefined();
    expect(await q.claim(retried)).toMatchObject({ attempts: 2 });
  });

  it('a hand-back makes a held job claimable at once', async () => {
    const [id] = await addJobs(1);
    const q = queue();
    await q.claim(id);
    await q.release(id!, 1);
    expect(await q.claim(id)).toMatchObject({ attempts: 2 });
  });

  it('the worker keeps its lease alive while it works, answers in process, and hands the lease back when stopping', async () => {
    const [quick, slow] = await addJobs(2);
    const q = queue({ leaseMs: 3000 });
    const seen: Array<{ id: string; stopping: boolean }> = [];
    let finishQuick = () => {};
    const quickMayFinish = new Promise<void>((resolve) => (finishQuick = resolve));
    const worker = createLeasedWorker<TestJob, string>({
      queue: q,
      logger: createLogger('silent'),
      capacity: 1,
      async work(job, lease) {
        if (job.id === quick) {
          // Held until the test has seen the first lease run out: only the heartbeats keep it.
          await quickMayFinish;
          await q.finish(job.id, lease.token, { status: 'done', result: 'ok' });
          return 'quick done';
        }
        while (!lease.stopping) await sleep(20);
        seen.push({ id: job.id, stopping: lease.stopping });
        return 'paused';
      },
    });

    const running = await worker.claimAndRun(quick);
    expect(running?.token).toBe(1);
    expect(worker.inProcess(quick!)).toBe(running!.done);
    // Waits, by the store's clock, until the lease first taken has run out.
    const first = (await row(quick!)).lease_until!;
    while (!(await db.query<{ past: boolean }>('SELECT now() > $1::timestamptz AS past', [first]))[0]!.past) await sleep(100);
    expect((await row(quick!)).lease_until!.getTime()).toBeGreaterThan(first.getTime());
    expect(await queue().claim(quick)).toBeUndefined();
    finishQuick();
    expect(await running!.done).toBe('quick done');
    expect(worker.inProcess(quick!)).toBeUndefined();
    expect(await row(quick!)).toMatchObject({ status: 'done', attempts: 1, result: 'ok' });

    // The tick claims the other job; stopping pauses it and hands its lease back.
    await worker.tick();
    expect(worker.inProcess(slow!)).toBeDefined();
    await worker.stop();
    expect(seen).toEqual([{ id: slow, stopping: true }]);
    expect(await worker.claimAndRun(slow)).toBeUndefined();
    expect(await queue().claim(slow)).toMatchObject({ attempts: 2 });
  });

  it('tells the work its lease is lost once another claim took the job over', async () => {
    const [id] = await addJobs(1);
    const q = queue({ leaseMs: 150 });
    let lost = false;
    const worker = createLeasedWorker<TestJob, void>({
      queue: q,
      logger: createLogger('silent'),
      capacity: 1,
      async work(_job, lease) {
        for (let i = 0; i < 100 && !lease.lost; i++) await sleep(20);
        lost = lease.lost;
      },
    });
    const running = await worker.claimAndRun(id);
    // A heartbeat may renew the lease between the two statements: expire again until the takeover.
    let taken;
    for (let i = 0; i < 20 && !taken; i++) {
      await expire(id!);
      taken = await queue().claim(id);
    }
    expect(taken).toMatchObject({ attempts: 2 });
    await running!.done;
    expect(lost).toBe(true);
    await worker.stop();
  });
});
