// The search corpus past one PostgreSQL (docs/SEARCH.md, "Past one PostgreSQL"): search.documents
// partitioned by hash of profile id by deploy/postgres/search-partitions.sql, one half on the test
// database's server (the coordinator) and one half on a second server this test starts (a foreign
// partition through postgres_fdw). The search pipeline — the code the service runs — ranks the same
// top 20 over it as over the same corpus on one server, because the BM25 statistics it reads are
// the whole corpus's, kept on the coordinator. Needs the PostgreSQL server binaries (initdb,
// pg_ctl) and, as root, a `postgres` OS user (test/helpers/second-postgres.ts): without them it fails
// and says so.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../services/kit/db/database.js';
import { migrate, migrationsDir } from '../../services/kit/db/migrations.js';
import { repoRoot } from '../../services/kit/paths.js';
import { openPostgres } from '../../services/kit/db/postgres-database.js';
import { corporaOf, queryStats } from '../../services/search/pipeline/bm25.js';
import { createSearchPipeline } from '../../services/search/pipeline/index.js';
import { createSearchCorpusRepository } from '../../services/search/search-corpus.repository.js';
import { generateCorpus, insertCorpus, judgedQueries } from '../search-quality/corpus.js';
import { runPsqlScript, type SecondPostgres, startSecondPostgres } from '../helpers/second-postgres.js';
import { memberDocument } from '../helpers/search-documents.js';
import { openTestDatabase } from '../helpers/stores.js';

type Store = { db: Database; url?: string; close(): Promise<void> };

const CORPUS = 3000;
const PUBLIC = { communityIds: [], includePublic: true };
const SHARD_DB = 'search_shard';

/** The BM25 statistics as stored: every corpus row and every term row, in key order. */
async function statistics(db: Database) {
  return {
    corpora: await db.query(`SELECT community_id, docs::int AS docs, total_length::int AS total_length FROM search.corpus_stats ORDER BY community_id`),
    terms: await db.query(`SELECT community_id, term, df::int AS df FROM search.term_stats ORDER BY community_id, term COLLATE "C"`),
  };
}

/** The same statistics counted again from the documents themselves (every partition of them). */
async function recount(db: Database) {
  return {
    corpora: await db.query(
      `SELECT community_id, count(*)::int AS docs, sum(doc_length)::int AS total_length FROM search.documents GROUP BY community_id ORDER BY community_id`,
    ),
    terms: await db.query(
      `SELECT d.community_id, t.term, count(*)::int AS df FROM search.documents d, unnest(tsvector_to_array(d.search_tsv)) AS t(term)
        GROUP BY d.community_id, t.term ORDER BY d.community_id, t.term COLLATE "C"`,
    ),
  };
}

describe('search corpus partitioned across two PostgreSQL servers', () => {
  const profiles = generateCorpus(CORPUS, 20261207);
  // The judged queries (names, organizations, places, topics) and two misspelled ones, which read
  // the vocabulary in the statistics tables.
  const queries = [...judgedQueries(profiles).map((q) => q.query), 'cardiolgist in Lisbon', 'nephrologst'];
  const pipeline = createSearchPipeline({ env: {}, reranker: null });
  let second: SecondPostgres | undefined;
  let coordinator: Store | undefined;
  let single: Store | undefined;
  let shard: Database | undefined;

  beforeAll(async () => {
    [coordinator, single] = await Promise.all([openTestDatabase('postgres', { migrated: false }), openTestDatabase('postgres', { migrated: false })]);
    const locale = (await coordinator.db.query<{ lc_ctype: string }>('SHOW lc_ctype'))[0]!.lc_ctype;
    second = await startSecondPostgres({ locale });
    await second.createDatabase(SHARD_DB);
    shard = openPostgres(second.urlOf(SHARD_DB), { max: 2 });
    // Each database's search schema, as the search service migrates its own.
    for (const db of [coordinator.db, single.db, shard]) await migrate(db, 'search', migrationsDir('search'));

    // Half the corpus is written before the split and moves with it; the other half is written
    // through the partitioned table.
    const half = CORPUS / 2;
    await insertCorpus(coordinator.db, profiles.slice(0, half), '');
    await runPsqlScript(coordinator.url!, readFileSync(join(repoRoot, 'deploy/postgres/search-partitions.sql'), 'utf8'), {
      shard_host: second.socketDir,
      shard_port: String(second.port),
      shard_dbname: SHARD_DB,
      shard_user: 'postgres',
      shard_password: 'not-asked-for',
    });
    await insertCorpus(coordinator.db, profiles.slice(half), '');
    await insertCorpus(single.db, profiles, '');
  }, 180_000);

  afterAll(async () => {
    await shard?.close();
    await Promise.all([coordinator?.close(), single?.close()]);
    await second?.stop();
  });

  it('splits the corpus for real: both halves hold documents, one of them on the second server', async () => {
    const halves = await coordinator!.db.query<{ half: string; kind: string; n: number }>(
      `SELECT c.relname AS half, c.relkind::text AS kind, count(*)::int AS n
         FROM search.documents d JOIN pg_class c ON c.oid = d.tableoid GROUP BY c.relname, c.relkind ORDER BY c.relname`,
    );
    expect(halves.map((h) => [h.half, h.kind])).toEqual([['documents_p0', 'r'], ['documents_p1', 'f']]);
    expect(halves.every((h) => h.n > CORPUS / 4)).toBe(true);
    expect(halves[0]!.n + halves[1]!.n).toBe(CORPUS);
    // The foreign half's rows are on the second server, not here.
    const [onShard] = await shard!.query<{ n: number }>(`SELECT count(*)::int AS n FROM search.documents`);
    expect(onShard!.n).toBe(halves[1]!.n);
    const [local] = await coordinator!.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM search.documents_p0`);
    expect(local!.n).toBe(halves[0]!.n);
    // The parent has the migrations' indexes, the primary key aside (each half keeps its own).
    const indexes = (db: Database) =>
      db.query<{ name: string }>(`SELECT indexname AS name FROM pg_indexes WHERE schemaname = 'search' AND tablename = 'documents' ORDER BY 1`);
    const oneServer = (await indexes(single!.db)).filter((i) => i.name !== 'documents_pkey');
    expect(await indexes(coordinator!.db)).toEqual(oneServer);
  });

  it('keeps the BM25 statistics of the whole corpus on the coordinator, as one server keeps them', async () => {
    const kept = await statistics(coordinator!.db);
    expect(kept.corpora).toEqual([{ community_id: '', docs: CORPUS, total_length: expect.any(Number) }]);
    expect(kept).toEqual(await statistics(single!.db));
    expect(kept).toEqual(await recount(coordinator!.db));
    // The shard's own tables count only its half: the pipeline never reads them.
    const [own] = await shard!.query<{ docs: number }>(`SELECT docs::int AS docs FROM search.corpus_stats WHERE community_id = ''`);
    expect(own!.docs).toBeLessThan(CORPUS);
    // What a search reads of them: the same document frequencies and average length.
    const words = 'cardiologist arrhythmia echocardiography lisbon';
    const [split, whole] = await Promise.all([coordinator!.db, single!.db].map((db) => queryStats(db, words, corporaOf(PUBLIC))));
    expect(split).toEqual(whole);
    expect(split!.docs).toBe(CORPUS);
  });

  it('ranks the same top 20, with the same scores, as the same corpus on one server', async () => {
    let found = 0;
    for (const query of queries) {
      const request = { query, ...PUBLIC, limit: 20 };
      const [split, whole] = await Promise.all([pipeline.rank(coordinator!.db, request), pipeline.rank(single!.db, request)]);
      expect(split.map((m) => m.profileId), query).toEqual(whole.map((m) => m.profileId));
      expect(split.map((m) => m.score), query).toEqual(whole.map((m) => m.score));
      expect(split.map((m) => m.explanation), query).toEqual(whole.map((m) => m.explanation));
      found += split.length;
    }
    // Most queries find a full page: the comparison is over real rankings, not empty ones.
    expect(found).toBeGreaterThan(queries.length * 15);
  });

  it('keeps the statistics exact as documents of either half are removed and changed', async () => {
    const [local, foreign] = await Promise.all(
      ['documents_p0', 'documents_p1'].map((half) => coordinator!.db.query<{ profile_id: string }>(`SELECT profile_id FROM search.${half} ORDER BY profile_id LIMIT 6`)),
    );
    // Five documents of each half removed, the sixth's text changed.
    const gone = [...local!.slice(0, 5), ...foreign!.slice(0, 5)].map((r) => r.profile_id);
    const changed = [local![5]!.profile_id, foreign![5]!.profile_id];
    for (const db of [coordinator!.db, single!.db]) {
      // Removed by the service's own write (a profile no longer public), under its corpus lock.
      await db.transaction(async (tx) => {
        for (const id of gone) expect(await createSearchCorpusRepository(tx).removePublicDocument(id)).toBe(1);
      });
      const updated = await db.query(`UPDATE search.documents SET bio = 'Paediatric cardiologist and kidney transplant surgeon' WHERE profile_id = ANY($1::text[]) RETURNING 1`, [changed]);
      expect(updated).toHaveLength(2);
    }
    const kept = await statistics(coordinator!.db);
    expect(kept.corpora[0]).toMatchObject({ docs: CORPUS - gone.length });
    expect(kept).toEqual(await recount(coordinator!.db));
    expect(kept).toEqual(await statistics(single!.db));
    const request = { query: 'paediatric kidney transplant', ...PUBLIC, limit: 20 };
    const [split, whole] = await Promise.all([pipeline.rank(coordinator!.db, request), pipeline.rank(single!.db, request)]);
    expect(split.map((m) => m.profileId)).toEqual(whole.map((m) => m.profileId));
    expect(split.slice(0, 2).map((m) => m.profileId).sort()).toEqual(changed.sort());
    expect(split.some((m) => gone.includes(m.profileId))).toBe(false);
  });

  it('refuses the indexing write whole on the split table, writing nothing (docs/SEARCH.md, "Not done yet")', async () => {
    const db = coordinator!.db;
    const before = await statistics(db);
    const write = db.transaction((tx) => createSearchCorpusRepository(tx).upsertDocuments([memberDocument('', 'p-new', { headline: 'Cardiologist' })]));
    await expect(write).rejects.toThrow(/no unique or exclusion constraint matching the ON CONFLICT specification/);
    expect(await db.query(`SELECT 1 FROM search.documents WHERE profile_id = 'p-new'`)).toEqual([]);
    expect(await statistics(db)).toEqual(before);
  });
});
