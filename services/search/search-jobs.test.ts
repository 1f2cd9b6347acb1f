// The search worker against the real store (both engines): a job whose worker died is taken over
// and its dead claim fenced off, a job that keeps losing its worker fails after its last attempt,
// a pipeline failure fails the job uncharged, finished jobs expire, and a job run in this process
// is answered by its worker.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, storeNames } from '../../test/helpers/stores.js';
import type { Database } from '../kit/db/database.js';
import { createLogger } from '../kit/logger.js';
import { createSearchPipeline } from './pipeline/index.js';
import type { SearchPipeline } from './pipeline/pipeline.js';
import { createJobRunner } from './search-jobs.js';
import { createSearchCorpusRepository } from './search-corpus.repository.js';
import { createSearchJobQueue, createSearchJobsRepository, type NewJob } from './search-jobs.repository.js';

describe.each(storeNames())('search worker on %s', (store) => {
  let handle: Awaited<ReturnType<typeof openTestDatabase>>;
  beforeAll(async () => {
    handle = await openTestDatabase(store);
    await createSearchCorpusRepository(handle.db).upsertDocuments([
      { community_id: 'c_a', profile_id: 'p_x', user_id: null, name: 'Xena', headline: 'Pond ecologist', bio: null, organization: null,
        location: null, avatar_url: null, enrichment_text: null },
    ]);
  });
  afterAll(async () => handle?.close());

  const job = (id: string): NewJob => ({
    id, credentialId: 'k_1', caller: {}, query: 'pond ecologist', scope: 'community', namedCommunityId: 'c_a', communityIds: ['c_a'],
    includePublic: false, reachIds: ['c_a'], limit: 10, payer: { type: 'user', id: 'u_1' },
  });

  function runner(pipeline: SearchPipeline = createSearchPipeline({ wordnet: false }), maxAttempts = 3, db: Database = handle.db) {
    const charged: string[] = [];
    const r = createJobRunner({
      db, pipeline, logger: createLogger('silent'), leaseMs: 60_000, maxAttempts,
      charge: async (j) => void charged.push(j.id),
    });
    return { r, charged };
  }
  /** Time passes beyond the job's lease (its worker is gone). */
  const expire = (id: string) =>
    handle.db.query(`UPDATE search.search_jobs SET lease_until = now() - interval '1 second' WHERE id = $1`, [id]);

  it('a job whose worker died (lease expired) is taken over by the next claim and completed; the dead claim cannot store', async () => {
    const repo = createSearchJobsRepository(handle.db);
    await repo.insert(job('srch_dead'));
    const dead = await createSearchJobQueue(handle.db, { leaseMs: 60_000, maxAttempts: 3 }).claim('srch_dead'); // this worker "dies": it never heartbeats or finishes
    expect(dead).toMatchObject({ status: 'running', attempts: 1 });
    const { r, charged } = runner();
    expect(await r.claimAndRun('srch_dead')).toBeUndefined(); // the lease still holds
    await expire('srch_dead');
    const done = await r.claimAndRun('srch_dead');
    expect(done).toMatchObject({ status: 'complete', attempts: 2 });
    expect(done!.matches!.map((m) => m.profileId)).toEqual(['p_x']);
    expect(charged).toEqual(['srch_dead']);
    // The first worker wakes up: its claim is fenced off.
    expect(await createSearchJobQueue(handle.db, { leaseMs: 60_000, maxAttempts: 3 }).finish('srch_dead', 1, { status: 'complete', matches: '[]' })).toBeUndefined();
    expect((await repo.find('srch_dead'))!.matches).toHaveLength(1);
  });

  it('a job run in this process is answered by its worker, not by reading its row, also when the tick claimed it first', async () => {
    const repo = createSearchJobsRepository(handle.db);
    // Every statement the runner sends, to see that none reads a job's row back.
    const statements: string[] = [];
    const watched: Database = Object.create(handle.db, {
      query: { value: (sql: string, params?: readonly unknown[]) => (statements.push(sql), handle.db.query(sql, params)) },
    });
    const { r } = runner(undefined, 3, watched);
    await repo.insert(job('srch_here'));
    const here = await r.runHere('srch_here');
    expect(await here!.done).toMatchObject({ id: 'srch_here', status: 'complete', attempts: 1 });

    await repo.insert(job('srch_ticked'));
    await r.tick();
    const ticked = await r.runHere('srch_ticked');
    expect(await ticked!.done).toMatchObject({ id: 'srch_ticked', status: 'complete', attempts: 1 });
    expect(statements.filter((sql) => /SELECT \* FROM search\.search_jobs WHERE id/.test(sql))).toEqual([]);

    // Held by another process: nothing to wait for here.
    await repo.insert(job('srch_elsewhere'));
    await createSearchJobQueue(handle.db, { leaseMs: 60_000, maxAttempts: 3 }).claim('srch_elsewhere');
    expect(await r.runHere('srch_elsewhere')).toBeUndefined();
    await r.stop();
  });

  it('a job that keeps losing its worker fails after the last attempt, and is not charged', async () => {
    const repo = createSearchJobsRepository(handle.db);
    await repo.insert(job('srch_doomed'));
    const queue = createSearchJobQueue(handle.db, { leaseMs: 60_000, maxAttempts: 2 });
    for (let i = 0; i < 2; i++) {
      expect(await queue.claim('srch_doomed')).toBeDefined();
      await expire('srch_doomed');
    }
    const { r, charged } = runner(undefined, 2);
    await r.tick();
    expect(await repo.find('srch_doomed')).toMatchObject({ status: 'failed', attempts: 2 });
    expect(charged).toEqual([]);
  });

  it('a pipeline failure fails the job, uncharged; a finished job expires an hour later', async () => {
    const repo = createSearchJobsRepository(handle.db);
    await repo.insert(job('srch_fail'));
    const { r, charged } = runner({ provider: 'broken', rank: async () => Promise.reject(new Error('provider down')), storeVectors: async () => 0, prepareVectors: async () => ({ model: 'broken', byKey: new Map() }) });
    expect(await r.claimAndRun('srch_fail')).toMatchObject({ status: 'failed' });
    expect(charged).toEqual([]);
    const row = (await repo.find('srch_fail'))!;
    expect(row.expires_at!.getTime() - row.finished_at!.getTime()).toBe(3_600_000);
    expect(await repo.findForCredential('srch_fail', 'k_1')).toBeDefined();
    expect(await repo.findForCredential('srch_fail', 'k_other')).toBeUndefined();
    await handle.db.query(`UPDATE search.search_jobs SET expires_at = now() - interval '1 second' WHERE id = 'srch_fail'`);
    expect(await repo.findForCredential('srch_fail', 'k_1')).toBeUndefined();
    // Kept while its search.failed event waits in the outbox (this runner relays none), purged once it is gone.
    const waiting = await handle.db.query<{ type: string }>(`SELECT type FROM search.event_outbox WHERE subject_id = 'srch_fail'`);
    expect(waiting).toEqual([{ type: 'search.failed' }]);
    await r.tick();
    expect(await repo.find('srch_fail')).toBeDefined();
    await handle.db.query(`DELETE FROM search.event_outbox WHERE subject_id = 'srch_fail'`);
    await r.tick();
    expect(await repo.find('srch_fail')).toBeUndefined();
  });
});
