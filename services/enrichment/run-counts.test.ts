// A run's counts (its poll's counts and credits) are kept by its items' writes (migration 005), on
// every store: after every kind of write — items inserted, a batch succeeding, charges recorded,
// failures and skips, an erasure across runs, a stopped run's failures — they equal the items' own
// count, also under parallel writers; a deleted run takes its counts with it; and a database
// upgraded with runs already there starts from their items.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDatabaseBefore } from '../../test/helpers/migrations-before.js';
import { openTestDatabase, storeNames } from '../../test/helpers/stores.js';
import type { Database } from '../kit/db/database.js';
import { createRunsRepository, type RunCounts, type RunsRepository } from './runs.repository.js';

/** The counts as the items themselves give them. */
async function countedFromItems(db: Database, runId: string): Promise<RunCounts> {
  const [row] = await db.query<RunCounts>(
    `SELECT count(*)::int8 AS total, count(*) FILTER (WHERE status = 'succeeded')::int8 AS succeeded,
            count(*) FILTER (WHERE status = 'failed')::int8 AS failed, count(*) FILTER (WHERE status = 'skipped')::int8 AS skipped,
            coalesce(sum(credits_charged), 0)::int8 AS credits
       FROM enrichment.run_items WHERE run_id = $1`,
    [runId],
  );
  return row!;
}

describe.each(storeNames())('run counts on %s', (store) => {
  let db: Database;
  let runs: RunsRepository;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(store));
    runs = createRunsRepository(db);
  });
  afterAll(async () => close?.());

  /** A community run of `people` (the first `skipped` skipped from the start), claimed as attempt 1. */
  async function startRun(id: string, communityId: string, people: number, skipped = 0): Promise<string[]> {
    const ids = Array.from({ length: people }, (_, i) => `p${String(i).padStart(3, '0')}`);
    await db.transaction(async (tx) => {
      await createRunsRepository(tx).insert(
        { id, kind: 'community', communityId, credentialId: 'k_1', caller: {}, depth: 'quick', payer: { type: 'user', id: 'u_1' } },
        ids.map((profileId, i) => (i < skipped ? { profileId, skippedBecause: 'already enriched' } : { profileId })),
      );
    });
    await db.query(`UPDATE enrichment.runs SET status = 'running', attempts = 1 WHERE id = $1`, [id]);
    return ids;
  }

  const expectExact = async (runId: string, expected: Partial<RunCounts>) => {
    const counts = await runs.counts(runId);
    expect(counts).toEqual(await countedFromItems(db, runId));
    expect(counts).toMatchObject(expected);
  };

  it('follow every kind of item write and equal the items’ own count after each', async () => {
    const ids = await startRun('run_every', 'c_every', 12, 2);
    await expectExact('run_every', { total: 12, skipped: 2, succeeded: 0, credits: 0 });
    const target = { id: 'run_every', communityId: 'c_every', depth: 'quick' as const };
    await runs.succeedMemberItems(target, 1, ids.slice(2, 7).map((profileId) => ({ profileId, searchText: 't', data: {} })));
    await expectExact('run_every', { succeeded: 5 });
    // A settled group: charges recorded for some, indexing for others, both for the rest.
    await runs.markSettled('run_every', ids.slice(2, 6).map((profileId, i) => ({ profileId, charged: true, credits: 3, indexed: i % 2 === 0 })));
    await expectExact('run_every', { credits: 12 });
    await runs.markSettled('run_every', [{ profileId: ids[6]!, charged: true, credits: 3, indexed: false }, { profileId: ids[3]!, charged: false, credits: null, indexed: true }]);
    await expectExact('run_every', { credits: 15 });
    await runs.markIndexed('run_every', ids.slice(2, 7));
    await expectExact('run_every', { succeeded: 5, credits: 15 });
    expect(await runs.unsettled('run_every', 100)).toEqual([]);
    expect(await runs.settleItem('run_every', 1, ids[7]!, 'failed', 'enrichment failed')).toBe(true);
    expect(await runs.settleItem('run_every', 1, ids[8]!, 'skipped', 'no longer a member')).toBe(true);
    // A write of a claim no longer held changes nothing, counts included.
    expect(await runs.settleItem('run_every', 2, ids[9]!, 'failed', 'stale claim')).toBe(false);
    await expectExact('run_every', { failed: 1, skipped: 3 });
    await runs.failOpenItems(['run_every']);
    await expectExact('run_every', { total: 12, succeeded: 5, failed: 4, skipped: 3, credits: 15 });
  });

  it('follow an erasure that skips a person in two runs at once', async () => {
    await startRun('run_era_a', 'c_era', 3);
    await startRun('run_era_b', 'c_era', 3);
    await db.transaction((tx) => createRunsRepository(tx).eraseMember('c_era', 'p001'));
    await expectExact('run_era_a', { skipped: 1 });
    await expectExact('run_era_b', { skipped: 1 });
  });

  it('stay exact when items of one run are settled in parallel', async () => {
    const ids = await startRun('run_race', 'c_race', 40);
    await Promise.all(ids.map((profileId, i) =>
      i % 2 === 0
        ? runs.settleItem('run_race', 1, profileId, 'failed', 'enrichment failed')
        : runs.succeedMemberItems({ id: 'run_race', communityId: 'c_race', depth: 'quick' }, 1, [{ profileId, searchText: 't', data: {} }])));
    await Promise.all(ids.filter((_, i) => i % 2 === 1).map((profileId) => runs.markSettled('run_race', [{ profileId, charged: true, credits: 2, indexed: false }])));
    await expectExact('run_race', { total: 40, succeeded: 20, failed: 20, credits: 40 });
  });

  it('go with a deleted run', async () => {
    await startRun('run_gone', 'c_gone', 4);
    await runs.remove('run_gone');
    expect(await runs.counts('run_gone')).toEqual({ total: 0, succeeded: 0, failed: 0, skipped: 0, credits: 0 });
    expect(await db.query(`SELECT 1 FROM enrichment.run_counts WHERE run_id = 'run_gone'`)).toEqual([]);
  });
});

describe.each(storeNames())('enrichment migration 005 on %s', (store) => {
  it('starts the counts of runs already there from their items', async () => {
    await withDatabaseBefore(store, 'enrichment', '005_run_counts.sql', async (db, upgradeNow) => {
      await db.query(
        `INSERT INTO enrichment.runs (id, kind, community_id, credential_id, caller, depth) VALUES ('run_old', 'community', 'c_old', 'k_1', '{}', 'quick')`,
      );
      await db.query(
        `INSERT INTO enrichment.run_items (run_id, profile_id, status, credits_charged)
         VALUES ('run_old', 'p1', 'succeeded', 2), ('run_old', 'p2', 'succeeded', 2), ('run_old', 'p3', 'failed', 0), ('run_old', 'p4', 'pending', 0)`,
      );
      expect(await upgradeNow()).toContain('005_run_counts.sql');
      const runs = createRunsRepository(db);
      expect(await runs.counts('run_old')).toEqual({ total: 4, succeeded: 2, failed: 1, skipped: 0, credits: 4 });
      await db.query(`UPDATE enrichment.run_items SET status = 'skipped' WHERE run_id = 'run_old' AND profile_id = 'p4'`);
      expect(await runs.counts('run_old')).toEqual({ total: 4, succeeded: 2, failed: 1, skipped: 1, credits: 4 });
    });
  });
});
