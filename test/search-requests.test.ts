// Natural-language requests over the demo data set (deploy/admin/demo-data.ts), through the real
// pipeline on a migrated embedded store with the demo corpus indexed and its vectors stored: each
// request's expected person must appear within its top k, and the set as a whole must stay above
// the MRR and nDCG@10 floors measured when the suite was written (docs/SEARCH-RANKING.md,
// "Requests in a searcher's words").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../services/kit/db/database.js';
import { createSearchPipeline } from '../services/search/pipeline/index.js';
import { openTestDatabase } from './helpers/stores.js';
import { DEMO_COMMUNITIES as COMMUNITIES, demoProfiles, indexDemo as index, REQUESTS } from './search-requests/requests.js';

// Measured when written (offline embedder, PGlite): MRR 0.950, nDCG@10 0.807, every expected person
// within its k (docs/SEARCH-RANKING.md). The floors leave room for two requests slipping one place.
const FLOOR = { mrr: 0.9, ndcg10: 0.75 };

/** nDCG@k with binary relevance: ideal = all expected people first. */
function ndcg(ranked: readonly string[], relevant: ReadonlySet<string>, k: number): number {
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => (dcg += relevant.has(id) ? 1 / Math.log2(i + 2) : 0));
  let ideal = 0;
  for (let i = 0; i < Math.min(k, relevant.size); i++) ideal += 1 / Math.log2(i + 2);
  return ideal > 0 ? dcg / ideal : 0;
}

describe('requests in a searcher’s words over the demo data', () => {
  let store: { db: Database; close(): Promise<void> };
  const pipeline = createSearchPipeline({ env: {} });
  const profiles = demoProfiles();

  beforeAll(async () => {
    store = await openTestDatabase('pglite');
    const indexed = await index(store.db);
    expect(await pipeline.storeVectors(store.db)).toBe(indexed);
  }, 300_000);
  afterAll(async () => store?.close());

  it('judges every request against at least one demo profile', () => {
    expect(REQUESTS.length).toBeGreaterThanOrEqual(15);
    for (const r of REQUESTS) expect([...profiles.values()].filter(r.expected).length, r.query).toBeGreaterThan(0);
  });

  it('puts an expected person near the top of every request, and holds the MRR and nDCG@10 floors', async () => {
    const rows: { query: string; rank: number; within: number; ndcg: number; top: string }[] = [];
    for (const r of REQUESTS) {
      const matches = await pipeline.rank(store.db, { query: r.query, communityIds: COMMUNITIES, includePublic: false, limit: 20 });
      const ranked = matches.map((m) => m.profileId);
      const relevant = new Set([...profiles.values()].filter(r.expected).map((p) => p.id));
      const at = ranked.findIndex((id) => relevant.has(id));
      if (process.env.SEARCH_REQUESTS_VERBOSE) {
        for (const m of matches.slice(0, 3)) console.log(`${r.query} → ${m.profileId} ${m.score.toFixed(3)}${m.weakMatch ? ' weak' : ''}: ${m.explanation}`);
      }
      rows.push({
        query: r.query,
        rank: at < 0 ? Infinity : at + 1,
        within: r.within,
        ndcg: ndcg(ranked, relevant, 10),
        top: matches.slice(0, 3).map((m) => `${m.profileId} ${m.name} (${m.score.toFixed(3)}${m.weakMatch ? ', weak' : ''})`).join('; '),
      });
    }
    const mrr = rows.reduce((s, r) => s + 1 / r.rank, 0) / rows.length;
    const ndcg10 = rows.reduce((s, r) => s + r.ndcg, 0) / rows.length;
    console.log(
      `requests over the demo data: MRR ${mrr.toFixed(3)}, nDCG@10 ${ndcg10.toFixed(3)}\n` +
        rows.map((r) => `${String(r.rank).padStart(3)} (≤${r.within}) ${r.ndcg.toFixed(2)} ${r.query} → ${r.top}`).join('\n'),
    );
    for (const r of rows) expect(r.rank, r.query).toBeLessThanOrEqual(r.within);
    expect(mrr).toBeGreaterThanOrEqual(FLOOR.mrr);
    expect(ndcg10).toBeGreaterThanOrEqual(FLOOR.ndcg10);
  });
});
