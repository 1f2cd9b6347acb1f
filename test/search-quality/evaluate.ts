// Ranking metrics and the plain BM25 baseline the pipeline must beat.
import { contentTokens, stem } from '../../services/search/pipeline/text.js';
import type { Profile } from './corpus.js';

/** nDCG@k with exponential gains (2^grade − 1). */
export function ndcgAt(ranked: readonly string[], relevant: ReadonlyMap<string, number>, k: number): number {
  const dcg = ranked.slice(0, k).reduce((sum, id, i) => sum + (2 ** (relevant.get(id) ?? 0) - 1) / Math.log2(i + 2), 0);
  const ideal = [...relevant.values()]
    .sort((a, b) => b - a)
    .slice(0, k)
    .reduce((sum, grade, i) => sum + (2 ** grade - 1) / Math.log2(i + 2), 0);
  return ideal === 0 ? 0 : dcg / ideal;
}

/** recall@k: the share of the relevant (grade ≥ 1) found in the first k. */
export function recallAt(ranked: readonly string[], relevant: ReadonlyMap<string, number>, k: number): number {
  const wanted = [...relevant.entries()].filter(([, g]) => g > 0).map(([id]) => id);
  if (wanted.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return wanted.filter((id) => top.has(id)).length / wanted.length;
}

function fieldsText(p: Profile): string {
  return [p.name, p.headline, p.organization, p.location, p.bio, p.enrichmentText].join(' ');
}

/** Okapi BM25 (k1 1.2, b 0.75) over all fields as one text, with the same tokens and stems. */
export class Bm25 {
  private readonly docs: { id: string; tf: Map<string, number>; length: number }[];
  private readonly df = new Map<string, number>();
  private readonly avgLength: number;

  constructor(
    profiles: readonly Profile[],
    private readonly k1 = 1.2,
    private readonly b = 0.75,
  ) {
    this.docs = profiles.map((p) => {
      const terms = contentTokens(fieldsText(p)).map(stem);
      const tf = new Map<string, number>();
      for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const t of tf.keys()) this.df.set(t, (this.df.get(t) ?? 0) + 1);
      return { id: p.profileId, tf, length: terms.length };
    });
    this.avgLength = this.docs.reduce((s, d) => s + d.length, 0) / Math.max(1, this.docs.length);
  }

  search(query: string, k: number): string[] {
    const terms = [...new Set(contentTokens(query).map(stem))];
    const n = this.docs.length;
    const scored: { id: string; score: number }[] = [];
    for (const d of this.docs) {
      let score = 0;
      for (const t of terms) {
        const f = d.tf.get(t);
        if (!f) continue;
        const df = this.df.get(t) ?? 0;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        score += (idf * f * (this.k1 + 1)) / (f + this.k1 * (1 - this.b + (this.b * d.length) / this.avgLength));
      }
      if (score > 0) scored.push({ id: d.id, score });
    }
    return scored
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
      .slice(0, k)
      .map((s) => s.id);
  }
}
