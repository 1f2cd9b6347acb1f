// The search quality suite: ≥2,000 generated profiles and a judged query set (test/search-quality/),
// ranked by the pipeline on a migrated embedded store and by a plain BM25 over the same corpus.
// Ranking regressions fail here: the pipeline must match or beat BM25 on nDCG@10 and recall@20,
// and stay above absolute floors set a little below what it measured when they were written.
// (The suite lives beside the pipeline because test/vitest.config.ts only collects test/*.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCorpus, insertCorpus, judgedQueries } from '../../../test/search-quality/corpus.js';
import { Bm25, ndcgAt, recallAt } from '../../../test/search-quality/evaluate.js';
import { openTestDatabase } from '../../../test/helpers/stores.js';
import type { Database } from '../../kit/db/database.js';
import { createSearchPipeline } from './index.js';

// Measured when written (offline embedder, PGlite): nDCG@10 0.833, recall@20 0.295 against BM25's
// 0.704 and 0.278; with stored vectors and the nearest-neighbour leg, 0.834 / 0.295; with the default
// GloVe SIF embedder, the BM25 leg and the place and expansion rules: see docs/SEARCH-RANKING.md
// ("Quality") for the figures the floors sit under.
const FLOOR = { ndcg10: 0.85, recall20: 0.28 };

describe('search quality (generated corpus, judged queries)', () => {
  let store: { db: Database; close(): Promise<void> };
  const profiles = generateCorpus();
  const queries = judgedQueries(profiles);
  const bm25 = new Bm25(profiles);
  const pipeline = createSearchPipeline({ env: {} });

  beforeAll(async () => {
    store = await openTestDatabase('pglite');
    await insertCorpus(store.db, profiles, 'c-quality');
    // Stored as the search service stores them when documents are indexed: PGlite has pgvector,
    // so the nearest-neighbour leg takes part.
    expect(await pipeline.storeVectors(store.db)).toBe(profiles.length);
    // Loading now also keeps the BM25 statistics (migration 007); on a busy shared machine this
    // took over two minutes.
  }, 300_000);
  afterAll(async () => store?.close());

  it('has a corpus and query set big and varied enough to mean something', () => {
    expect(profiles.length).toBeGreaterThanOrEqual(2000);
    expect(new Set(queries.map((q) => q.kind)).size).toBeGreaterThanOrEqual(5);
    expect(queries.filter((q) => q.kind === 'topic').length).toBeGreaterThanOrEqual(20);
  });

  it('ranks better than BM25 and above the floors', async () => {
    const rows: { query: string; kind: string; ndcg: number; recall: number; bNdcg: number; bRecall: number }[] = [];
    for (const q of queries) {
      const matches = await pipeline.rank(store.db, { query: q.query, communityIds: ['c-quality'], includePublic: false, limit: 20 });
      const ranked = matches.map((m) => m.profileId);
      const baseline = bm25.search(q.query, 20);
      rows.push({
        query: q.query,
        kind: q.kind,
        ndcg: ndcgAt(ranked, q.relevant, 10),
        recall: recallAt(ranked, q.relevant, 20),
        bNdcg: ndcgAt(baseline, q.relevant, 10),
        bRecall: recallAt(baseline, q.relevant, 20),
      });
    }
    const mean = (f: (r: (typeof rows)[number]) => number, subset = rows) => subset.reduce((s, r) => s + f(r), 0) / Math.max(1, subset.length);
    const report = [...new Set(rows.map((r) => r.kind))].map((kind) => {
      const subset = rows.filter((r) => r.kind === kind);
      return `${kind.padEnd(20)} n=${String(subset.length).padStart(2)} nDCG@10 ${mean((r) => r.ndcg, subset).toFixed(3)} (bm25 ${mean((r) => r.bNdcg, subset).toFixed(3)})  recall@20 ${mean((r) => r.recall, subset).toFixed(3)} (bm25 ${mean((r) => r.bRecall, subset).toFixed(3)})`;
    });
    const summary = {
      ndcg10: mean((r) => r.ndcg),
      recall20: mean((r) => r.recall),
      bm25Ndcg10: mean((r) => r.bNdcg),
      bm25Recall20: mean((r) => r.bRecall),
    };
    if (process.env.SEARCH_QUALITY_VERBOSE) for (const r of rows) console.log(`${r.ndcg.toFixed(2)} ${r.bNdcg.toFixed(2)} ${r.recall.toFixed(2)} ${r.bRecall.toFixed(2)} ${r.kind} ${r.query}`);
    console.log(`search quality over ${queries.length} queries, ${profiles.length} profiles:\n${report.join('\n')}\nall: ${JSON.stringify(summary)}`);

    expect(summary.ndcg10).toBeGreaterThanOrEqual(summary.bm25Ndcg10);
    expect(summary.recall20).toBeGreaterThanOrEqual(summary.bm25Recall20);
    expect(summary.ndcg10).toBeGreaterThanOrEqual(FLOOR.ndcg10);
    expect(summary.recall20).toBeGreaterThanOrEqual(FLOOR.recall20);
    // Topical queries in other words than the profiles use are where the pipeline earns its keep.
    const topical = rows.filter((r) => r.kind === 'topic');
    expect(mean((r) => r.ndcg, topical)).toBeGreaterThan(mean((r) => r.bNdcg, topical));
    // 71 searches one after another: ≈ 30 s on a quiet 2-core machine, more on a shared one.
  }, 180_000);
});
