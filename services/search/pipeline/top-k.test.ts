// Any number of candidates: the helpers never spread values into a call (Math.max(...300k) throws
// RangeError: Maximum call stack size exceeded), and the ranker scores 300k candidates — an
// exhaustive pass over a big corpus — without throwing and in bounded memory.
import { describe, expect, it } from 'vitest';
import type { Queryable } from '../../kit/db/database.js';
import type { Embedder } from './embedders.js';
import { createSearchPipeline } from './index.js';
import { maxOf, minMaxNormalise, TopK } from './top-k.js';

const MANY = 300_000;

describe('helpers over any number of values', () => {
  const values = Array.from({ length: MANY }, (_, i) => Math.sin(i) * 1000);

  it('finds the largest of 300k values, and answers `empty` for none', () => {
    expect(() => Math.max(...values)).toThrow(RangeError); // what they replace
    expect(maxOf(values, 0)).toBe(values.reduce((a, b) => (b > a ? b : a)));
    expect(maxOf([], 1)).toBe(1);
  });

  it('normalises 300k values onto 0..1', () => {
    const normalised = minMaxNormalise(values);
    expect(normalised).toHaveLength(MANY);
    expect(maxOf(normalised, NaN)).toBe(1);
    expect(-maxOf(normalised.map((v) => -v), NaN)).toBe(0);
    expect(minMaxNormalise([3, 3])).toEqual([0.5, 0.5]);
  });

  it('keeps the best k of 300k, best first', () => {
    const top = new TopK<number>(5, (a, b) => b - a);
    for (const v of values) top.offer(v);
    expect(top.sorted()).toEqual([...values].sort((a, b) => b - a).slice(0, 5));
  });
});

describe('the ranker over 300k candidates', () => {
  // The legs and the hydration answered from memory: 300k people, each one document.
  const db: Queryable = {
    async query<R>(sql: string, params?: readonly unknown[]): Promise<R[]> {
      if (sql.includes('pg_extension')) return [{ ok: false }] as R[];
      // The BM25 statistics: one term, in one document of a thousand.
      if (sql.includes('search.corpus_stats')) return [{ term: 'cardiologist', df: MANY / 1000, docs: MANY, length: MANY * 5 }] as R[];
      // The spelling check (spelling.ts): every query word is in the corpus, nothing to correct.
      if (sql.includes('search.term_stats')) return [];
      if (sql.startsWith('WITH')) {
        // The name leg finds nobody; the full-text legs find everyone.
        if (sql.includes('name_tsv')) return [];
        return Array.from({ length: MANY }, (_, i) => ({ community_id: 'c1', profile_id: `p${i}` })) as R[];
      }
      const ids = params![2] as string[];
      return ids.map((id) => ({
        community_id: 'c1',
        profile_id: id,
        user_id: null,
        name: `Person ${id}`,
        headline: Number(id.slice(1)) % 1000 === 0 ? 'Cardiologist' : 'Engineer',
        bio: null,
        organization: null,
        location: null,
        avatar_url: null,
        enrichment_text: null,
        bm25: Number(id.slice(1)) % 1000 === 0 ? 3 : 0,
      })) as R[];
    },
    async exec() {},
  };
  // A constant vector: this test is about counts, not about similarity.
  const flat: Embedder = { name: 'flat', embed: async (texts) => texts.map(() => [1, 0]) };

  it('scores every candidate without overflowing the stack, and keeps the best', async () => {
    const pipeline = createSearchPipeline({
      env: {},
      embedder: flat,
      reranker: null,
      wordnet: false,
      candidatesPerLeg: MANY,
      maxCandidates: MANY,
      rankWindow: MANY,
    });
    const matches = await pipeline.rank(db, { query: 'cardiologist', communityIds: ['c1'], includePublic: false, limit: 10 });
    expect(matches).toHaveLength(10);
    // Only every thousandth person is a cardiologist: they cover the query and come first.
    for (const m of matches) expect(m.headline).toBe('Cardiologist');
    expect(matches.map((m) => m.score)).toEqual([...matches.map((m) => m.score)].sort((a, b) => b - a));
  }, 120_000);
});
