// The BM25 statistics (migration 007) stay exact: after inserts, updates (changed text, unchanged
// text, enrichment, stored vectors), erasures, a re-index sweep, concurrent writers and a truncate,
// search.corpus_stats and search.term_stats equal a recount of search.documents, on every store.
// And the two per-document figures BM25 reads are right: doc_length (lexeme occurrences) and
// search.term_frequency (occurrences of one lexeme, read through ts_rank), against unnest(); and
// what the row trigger derives from the text (migration 010) always equals the text's analysis.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, storeNames } from '../../test/helpers/stores.js';
import { memberDocument } from '../../test/helpers/search-documents.js';
import type { Database } from '../kit/db/database.js';
import { createSearchCorpusRepository, type IndexedDocument } from './search-corpus.repository.js';

const doc = (community_id: string, profile_id: string, bio: string, more: Partial<IndexedDocument> = {}): IndexedDocument =>
  memberDocument(community_id, profile_id, { headline: 'Research scientist', bio, ...more });

const RECOUNT = `
  SELECT 'corpus' AS kind, community_id, '' AS term, count(*)::bigint AS a, sum(doc_length)::bigint AS b
    FROM search.documents GROUP BY community_id
  UNION ALL
  SELECT 'term', d.community_id, t.term, count(*)::bigint, 0::bigint
    FROM search.documents d, unnest(tsvector_to_array(d.search_tsv)) AS t(term) GROUP BY d.community_id, t.term`;
const STORED = `
  SELECT 'corpus' AS kind, community_id, '' AS term, docs AS a, total_length AS b FROM search.corpus_stats
  UNION ALL
  SELECT 'term', community_id, term, df, 0::bigint FROM search.term_stats`;

describe.each(storeNames())('BM25 term statistics on %s', (store) => {
  let handle: Awaited<ReturnType<typeof openTestDatabase>>;
  let db: Database;

  beforeAll(async () => {
    handle = await openTestDatabase(store);
    db = handle.db;
  });
  afterAll(async () => handle?.close());

  /** Rows where the kept statistics and a recount differ (none when exact). */
  const drift = () =>
    db.query(`(SELECT * FROM (${RECOUNT}) r EXCEPT SELECT * FROM (${STORED}) s) UNION ALL (SELECT * FROM (${STORED}) s EXCEPT SELECT * FROM (${RECOUNT}) r)`);
  const stored = async () => (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM (${STORED}) s`))[0]!.n;
  const df = async (community: string, term: string) =>
    Number((await db.query<{ df: string }>('SELECT df FROM search.term_stats WHERE community_id = $1 AND term = $2', [community, term]))[0]?.df ?? 0);

  it('match a recount after inserts, updates, erasures, a re-index sweep and a truncate', async () => {
    const repo = createSearchCorpusRepository(db);
    await db.query('TRUNCATE search.documents');
    expect(await stored()).toBe(0);

    await repo.upsertDocuments([
      doc('c1', 'p1', 'Cardiology and heart surgery; heart failure trials.'),
      doc('c1', 'p2', 'Kidney transplants and renal care.'),
      doc('c2', 'p1', 'Heart surgery.'),
      doc('', 'p3', 'Zebrafish genetics and heart regeneration.', { organization: 'Sanger Institute', location: 'Hinxton' }),
    ]);
    expect(await drift()).toEqual([]);
    expect(await df('c1', 'heart')).toBe(1);
    expect(await df('c1', 'kidney')).toBe(1);

    // Changed text, unchanged text (stats untouched), enrichment kept and then changed.
    await repo.upsertDocuments([
      doc('c1', 'p1', 'Kidney disease.'),
      doc('c1', 'p2', 'Kidney transplants and renal care.', { enrichment_text: 'nephrology' }),
      doc('c2', 'p1', 'Heart surgery.'),
    ]);
    expect(await drift()).toEqual([]);
    expect(await df('c1', 'heart')).toBe(0);
    expect(await df('c1', 'kidney')).toBe(2);
    await repo.upsertDocuments([doc('c1', 'p2', 'Kidney transplants and renal care.')]);
    expect(await df('c1', 'nephrolog')).toBe(1);

    // A direct edit, and a write that touches no text (a stored vector).
    await db.query(`UPDATE search.documents SET enrichment_text = 'dialysis' WHERE profile_id = 'p2'`);
    await db.query(`UPDATE search.documents SET embedding = '{0.5,0.5}', embedding_model = 'test' WHERE community_id = 'c2'`);
    expect(await drift()).toEqual([]);
    expect(await df('c1', 'nephrolog')).toBe(0);

    // Erasures: one member, one public document; a corpus left empty has no row.
    await db.query(`DELETE FROM search.documents WHERE community_id = 'c2' AND profile_id = 'p1'`);
    await repo.removePublicDocument('p3');
    expect(await drift()).toEqual([]);
    expect(await db.query(`SELECT 1 FROM search.corpus_stats WHERE community_id IN ('c2', '')`)).toEqual([]);

    // A re-index run that rewrites p1 with new text and sweeps p2.
    const run = await repo.beginReindexRun();
    await repo.upsertDocuments([doc('c1', 'p1', 'Heart and lung imaging.'), doc('c3', 'p9', 'Lung imaging.')]);
    await repo.pruneReindexRun(run);
    expect(await drift()).toEqual([]);
    expect(await df('c1', 'kidney')).toBe(0);
    expect(await df('c1', 'lung')).toBe(1);

    await db.query('TRUNCATE search.documents');
    expect(await stored()).toBe(0);
  });

  it('derive search_tsv, name_tsv and doc_length from the text through every kind of write, and nothing else sets them', async () => {
    const repo = createSearchCorpusRepository(db);
    await db.query('TRUNCATE search.documents');
    // The text's analysis, written out here as migrations 003 and 007 defined it.
    const mismatched = () =>
      db.query<{ profile_id: string }>(
        `SELECT profile_id FROM search.documents
          WHERE search_tsv IS DISTINCT FROM
                  setweight(to_tsvector('english', coalesce(name, '') || ' ' || coalesce(headline, '')), 'A') ||
                  setweight(to_tsvector('english', coalesce(organization, '') || ' ' || coalesce(location, '')), 'B') ||
                  setweight(to_tsvector('english', coalesce(bio, '') || ' ' || coalesce(enrichment_text, '')), 'C')
             OR name_tsv IS DISTINCT FROM to_tsvector('simple', coalesce(name, '') || ' ' || coalesce(organization, ''))
             OR doc_length IS DISTINCT FROM (SELECT coalesce(sum(coalesce(cardinality(u.positions), 1)), 0)::int FROM unnest(search_tsv) u)`,
      );
    await repo.upsertDocuments([
      doc('c1', 'p1', 'Glacier mass balance.', { name: 'Ada Glacier', organization: 'Polar Institute', location: 'Tromsø' }),
      doc('c1', 'p2', 'Sea ice.'),
    ]);
    expect(await mismatched()).toEqual([]);
    const p1 = `SELECT search_tsv::text AS tsv, name_tsv::text AS names, doc_length FROM search.documents WHERE profile_id = 'p1'`;
    const inserted = (await db.query(p1))[0];

    // Text changed by an index call and by direct edits of each kind of field.
    await repo.upsertDocuments([doc('c1', 'p1', 'Ice sheet modelling.', { name: 'Ada Glacier', enrichment_text: 'firn' })]);
    await db.query(`UPDATE search.documents SET name = 'Ada Moraine', organization = 'Alpine Lab' WHERE profile_id = 'p1'`);
    await db.query(`UPDATE search.documents SET headline = 'Glaciologist', location = NULL, bio = NULL WHERE profile_id = 'p2'`);
    expect(await mismatched()).toEqual([]);
    expect((await db.query(p1))[0]).not.toEqual(inserted);
    expect(await db.query(`SELECT 1 FROM search.documents WHERE name_tsv @@ 'moraine'::tsquery AND search_tsv @@ 'glacier'::tsquery`)).toEqual([]);

    // A write that leaves the text alone cannot set what is derived from it.
    const before = (await db.query(p1))[0];
    await db.query(`UPDATE search.documents SET search_tsv = 'bogus'::tsvector, name_tsv = ''::tsvector, doc_length = 999, touched_run = 7 WHERE profile_id = 'p1'`);
    expect((await db.query(p1))[0]).toEqual(before);
    expect(await mismatched()).toEqual([]);
    expect(await drift()).toEqual([]);
  });

  it('stay exact under concurrent writers of the same corpus and terms', async () => {
    const repo = createSearchCorpusRepository(db);
    await db.query('TRUNCATE search.documents');
    const batch = (from: number) =>
      Array.from({ length: 40 }, (_, i) => doc(i % 2 === 0 ? 'c1' : 'c2', `p${from + i}`, `heart surgery ${from + i} kidney lung${i % 5}`));
    await Promise.all([0, 100, 200, 300].map((from) => db.transaction((tx) => createSearchCorpusRepository(tx).upsertDocuments(batch(from)))));
    await Promise.all([
      db.query(`DELETE FROM search.documents WHERE profile_id IN ('p0', 'p101', 'p202')`),
      repo.upsertDocuments(batch(300).map((d) => ({ ...d, bio: 'lung only' }))),
    ]);
    expect(await drift()).toEqual([]);
    expect(await df('c1', 'heart')).toBe(60 - 2);
  });

  it('never deadlock when concurrent upserts insert and update documents of the same corpora beside erasures', async () => {
    const words = ['heart', 'kidney', 'lung', 'liver', 'brain', 'bone', 'skin', 'blood', 'nerve', 'muscle', 'retina', 'spine'];
    const bio = (i: number, round: number) => Array.from({ length: 6 }, (_, k) => words[(i * 7 + k * 5 + round) % words.length]).join(' ');
    const id = (i: number) => `p${String(i).padStart(4, '0')}`;
    const corpus = (i: number) => (i % 3 === 0 ? 'c1' : i % 3 === 1 ? 'c2' : '');
    const failures: string[] = [];
    for (let round = 0; round < 12; round++) {
      await db.query('TRUNCATE search.documents');
      await createSearchCorpusRepository(db).upsertDocuments(Array.from({ length: 300 }, (_, i) => doc(corpus(i), id(i), bio(i, 0))));
      // Each writer: every other document one it updates (new text), the rest new ones; all corpora.
      const batch = (w: number) =>
        Array.from({ length: 90 }, (_, j) => (j % 2 === 0 ? doc(corpus(w * 90 + j), id(w * 90 + j), bio(j, round + 1)) : doc(corpus(j), id(1000 + w * 90 + j), bio(j, round + 2))));
      const writes = [
        ...[0, 1, 2].map((w) => db.transaction((tx) => createSearchCorpusRepository(tx).upsertDocuments(batch(w)))),
        db.transaction((tx) => createSearchCorpusRepository(tx).eraseCommunityDocument('c1', id(297))),
        db.transaction((tx) => createSearchCorpusRepository(tx).removePublicDocument(id(299))),
      ];
      for (const result of await Promise.allSettled(writes)) if (result.status === 'rejected') failures.push(String(result.reason));
    }
    expect(failures).toEqual([]);
    expect(await drift()).toEqual([]);
  });

  it('store each document length and term frequency as a recount of its tsvector gives them', async () => {
    const repo = createSearchCorpusRepository(db);
    await db.query('TRUNCATE search.documents');
    const heart = Array.from({ length: 40 }, () => 'heart').join(' ');
    await repo.upsertDocuments([
      doc('c1', 'p1', `heart ${heart} valves valve surgery`, { name: 'Heart Heart', organization: 'Heart Institute' }),
      doc('c1', 'p2', 'no match here at all'),
      doc('', 'p3', Array.from({ length: 300 }, () => 'heart').join(' ')),
    ]);
    const rows = await db.query<{ lexeme: string; counted: number; read: number }>(
      `SELECT u.lexeme, cardinality(u.positions) AS counted, search.term_frequency(d.search_tsv, quote_literal(u.lexeme)::tsquery)::int AS read
         FROM search.documents d, unnest(d.search_tsv) AS u`,
    );
    expect(rows.length).toBeGreaterThan(10);
    for (const row of rows) expect({ lexeme: row.lexeme, read: row.read }).toEqual({ lexeme: row.lexeme, read: row.counted });
    expect(rows.some((r) => r.counted >= 40)).toBe(true);
    const absent = await db.query<{ tf: number }>(`SELECT search.term_frequency(search_tsv, 'heart'::tsquery) AS tf FROM search.documents WHERE profile_id = 'p2'`);
    expect(Number(absent[0]!.tf)).toBe(0);
    const lengths = await db.query<{ stored: number; counted: number }>(
      `SELECT doc_length AS stored, (SELECT sum(cardinality(u.positions))::int FROM unnest(search_tsv) u) AS counted FROM search.documents`,
    );
    for (const l of lengths) expect(l.stored).toBe(l.counted);
  });
});
