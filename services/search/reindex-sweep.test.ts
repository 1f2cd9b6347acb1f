// The re-index mark and sweep at the SQL level (search-corpus.repository.ts, migration 004): a prune
// deletes exactly the documents written before its run began and not since — whoever wrote them
// since, the run or any other path — and keeps enrichment text the run did not send. On PostgreSQL,
// a write still in flight when the sweep runs is waited for and kept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, storeNames } from '../../test/helpers/stores.js';
import { memberDocument } from '../../test/helpers/search-documents.js';
import type { Database } from '../kit/db/database.js';
import { createSearchCorpusRepository, type IndexedDocument } from './search-corpus.repository.js';

const doc = (community_id: string, profile_id: string, enrichment_text: string | null = null): IndexedDocument =>
  memberDocument(community_id, profile_id, { enrichment_text });

describe.each(storeNames())('search re-index sweep on %s', (store) => {
  let handle: Awaited<ReturnType<typeof openTestDatabase>>;
  let db: Database;

  beforeAll(async () => {
    handle = await openTestDatabase(store);
    db = handle.db;
  });
  afterAll(async () => handle?.close());

  const keys = async () =>
    (await db.query<{ k: string }>(`SELECT community_id || '/' || profile_id AS k FROM search.documents ORDER BY 1`)).map((r) => r.k);
  const enrichmentOf = async (community: string, profile: string) =>
    (await db.query<{ t: string | null }>('SELECT enrichment_text AS t FROM search.documents WHERE community_id = $1 AND profile_id = $2', [community, profile]))[0]?.t;

  it('deletes what neither the run nor any other write touched since it began, and keeps enrichment text', async () => {
    const repo = createSearchCorpusRepository(db);
    await db.query('DELETE FROM search.documents');
    // Before the run: a member, a member with enrichment text, a person who left, a stale public document.
    await repo.upsertDocuments([doc('c1', 'p_member'), doc('c1', 'p_enriched', 'zebrafish genetics'), doc('c1', 'p_left'), doc('', 'p_private')]);

    const run = await repo.beginReindexRun();
    // The run's batch: the members (no enrichment text: "keep what you hold").
    await repo.upsertDocuments([doc('c1', 'p_member'), doc('c1', 'p_enriched')]);
    // A member added while the run goes on, by the ordinary path, after the run read that batch.
    await repo.upsertDocuments([doc('c2', 'p_new')]);

    const removed = await db.transaction(async (tx) => {
      const txRepo = createSearchCorpusRepository(tx);
      expect((await txRepo.lockReindexRun(run, 'update'))?.pruned_at).toBeNull();
      return txRepo.pruneReindexRun(run);
    });
    expect(removed).toBe(2);
    expect(await keys()).toEqual(['c1/p_enriched', 'c1/p_member', 'c2/p_new']);
    expect(await enrichmentOf('c1', 'p_enriched')).toBe('zebrafish genetics');
    const recorded = await repo.lockReindexRun(run, 'share');
    expect(recorded?.pruned_at).toBeInstanceOf(Date);
    expect(recorded?.removed).toBe(2);
  });

  it('stamps runs in order: a later run sweeps what an earlier one wrote and it did not', async () => {
    const repo = createSearchCorpusRepository(db);
    await db.query('DELETE FROM search.documents');
    const first = await repo.beginReindexRun();
    await repo.upsertDocuments([doc('c1', 'p_a'), doc('c1', 'p_b')]);
    const second = await repo.beginReindexRun();
    expect(second).toBeGreaterThan(first);
    await repo.upsertDocuments([doc('c1', 'p_a')]);
    const removed = await db.transaction(async (tx) => {
      const txRepo = createSearchCorpusRepository(tx);
      await txRepo.lockReindexRun(second, 'update');
      return txRepo.pruneReindexRun(second);
    });
    expect(removed).toBe(1);
    expect(await keys()).toEqual(['c1/p_a']);
  });

  if (store === 'postgres') {
    it('waits for a write in flight during the sweep and keeps its document', async () => {
      const repo = createSearchCorpusRepository(db);
      await db.query('DELETE FROM search.documents');
      await repo.upsertDocuments([doc('c1', 'p_busy'), doc('c1', 'p_gone')]);
      const run = await repo.beginReindexRun();

      // An ordinary write of p_busy after the run began, held open (uncommitted) while the sweep starts.
      let commit!: () => void;
      const held = new Promise<void>((resolve) => (commit = resolve));
      let written!: () => void;
      const wrote = new Promise<void>((resolve) => (written = resolve));
      const writer = db.transaction(async (tx) => {
        await createSearchCorpusRepository(tx).upsertDocuments([doc('c1', 'p_busy', 'fresh text')]);
        written();
        await held;
      });
      await wrote;
      const sweep = db.transaction(async (tx) => {
        const txRepo = createSearchCorpusRepository(tx);
        await txRepo.lockReindexRun(run, 'update');
        return txRepo.pruneReindexRun(run);
      });
      // The sweep blocks on p_busy's row lock until the writer commits, then re-checks the row.
      await new Promise((r) => setTimeout(r, 200));
      commit();
      await writer;
      expect(await sweep).toBe(1);
      expect(await keys()).toEqual(['c1/p_busy']);
      expect(await enrichmentOf('c1', 'p_busy')).toBe('fresh text');
    });
  }
});
