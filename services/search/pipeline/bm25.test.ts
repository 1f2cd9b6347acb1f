// BM25 as the search uses it: statistics of the corpora searched (summed over several), the query
// analysed by the store, and the ranking a long query gets — rare words weigh more than common
// ones, and a document need not hold every word — on every store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, storeNames } from '../../../test/helpers/stores.js';
import { memberDocument } from '../../../test/helpers/search-documents.js';
import type { Database } from '../../kit/db/database.js';
import { createSearchCorpusRepository, type IndexedDocument } from '../search-corpus.repository.js';
import { idf, queryStats } from './bm25.js';
import { createSearchPipeline } from './index.js';

const doc = (community_id: string, profile_id: string, bio: string, headline = 'Researcher'): IndexedDocument =>
  memberDocument(community_id, profile_id, { headline, bio });

describe.each(storeNames())('BM25 on %s', (store) => {
  let handle: Awaited<ReturnType<typeof openTestDatabase>>;
  let db: Database;
  const pipeline = createSearchPipeline({ env: {}, wordnet: false });

  beforeAll(async () => {
    handle = await openTestDatabase(store);
    db = handle.db;
    const repo = createSearchCorpusRepository(db);
    // c1: "graph" is in every document; c2: in one of four; public: in none.
    await repo.upsertDocuments([
      ...Array.from({ length: 4 }, (_, i) => doc('c1', `a${i}`, `Graph algorithms and graph theory, part ${i}.`)),
      doc('c2', 'b0', 'Graph neural networks.'),
      ...Array.from({ length: 3 }, (_, i) => doc('c2', `b${i + 1}`, `Protein folding, study ${i}.`)),
      doc('', 'p0', 'Protein design.'),
    ]);
    // The ranking corpus: many documents about learning and data, one about the rare words.
    await repo.upsertDocuments([
      ...Array.from({ length: 30 }, (_, i) => doc('c3', `m${i}`, 'Machine learning from data: learning methods, learning systems and data analysis.')),
      doc('c3', 'rare', 'Zebrafish fin regeneration by learning.'),
      doc('c3', 'none', 'Medieval poetry.'),
    ]);
  });
  afterAll(async () => handle?.close());

  it('reads document frequencies of the corpora searched, summed over several', async () => {
    const one = await queryStats(db, 'graphs', ['c1']);
    expect(one.docs).toBe(4);
    expect(one.terms).toEqual([{ term: 'graph', df: 4, idf: idf(4, 4) }]);
    const other = await queryStats(db, 'graphs', ['c2']);
    expect(other.terms).toEqual([{ term: 'graph', df: 1, idf: idf(4, 1) }]);
    const all = await queryStats(db, 'graphs', ['c1', 'c2', '']);
    expect(all.docs).toBe(9);
    expect(all.terms).toEqual([{ term: 'graph', df: 5, idf: idf(9, 5) }]);
    // The same word is rarer, so weighs more, where fewer documents hold it.
    expect(other.terms[0]!.idf).toBeGreaterThan(one.terms[0]!.idf);
    // Stemmed and stop-worded by the store; words no searched document holds are left out.
    expect((await queryStats(db, 'the Proteins of graphs', ['']))).toMatchObject({ docs: 1, terms: [{ term: 'protein', df: 1 }] });
  });

  it('ranks the document with the rare words first, though others hold more of the common ones', async () => {
    const matches = await pipeline.rank(db, {
      query: 'zebrafish regeneration with machine learning methods for data analysis',
      communityIds: ['c3'],
      includePublic: false,
      limit: 5,
    });
    expect(matches[0]?.profileId).toBe('rare');
    expect(matches.map((m) => m.profileId)).not.toContain('none');
    expect(matches).toHaveLength(5);
  });
});
