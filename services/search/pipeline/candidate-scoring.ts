// The ranker's reranking phase: hydrate the fused candidates a chunk at a time, embed those
// without a stored vector, and score each from its features (fusion, BM25F, term coverage, GloVe
// similarity, name/organization resemblance, a named place), keeping the best.
import type { Queryable } from '../../kit/db/database.js';
import { inStep } from '../../kit/telemetry.js';
import type { QueryStats } from './bm25.js';
import type { Fused } from './candidate-fusion.js';
import { hydrate, type Person, storedVector } from './candidate-hydration.js';
import { cosine, type WeightedText } from './embedders.js';
import { WEAK_EVIDENCE } from './explain.js';
import { type Place, placesIn } from './place.js';
import { EmbedderFailure, type QueryEmbedding } from './query-embedding.js';
import { type Coverage, termCoverage } from './term-coverage.js';
import { wordSimilarity } from './text.js';
import { maxOf, TopK } from './top-k.js';
import { personText } from './vectors.js';
import type { Expansion } from './wordnet.js';

/**
 * A match is weak — flagged, and said so — when less than WEAK_EVIDENCE of the request is found
 * (term coverage with each expansion at its own weight, not held under term-coverage.ts's
 * EXPANSION_CEILING: a synonym is evidence, just below the typed word; places included; a word
 * only in an organization's name weak evidence) and neither name nor organization resembles the
 * request. The explanation's standing reads the same share (explain.ts). Measured on the demo
 * requests (docs/SEARCH-RANKING.md, "Weak matches").
 */
const WEAK_COVERAGE = WEAK_EVIDENCE;

/**
 * Features → score, 0 to 1: the weights sum to 1, and `place` (a person in a place the query
 * names) is added over them and the sum divided by 1 + `place` when the query names a place.
 * `bm25` is the person's BM25F score over the query's terms relative to the best candidate's;
 * `semantic` the GloVe similarity; `coverage` credits what BM25 cannot see (WordNet expansions:
 * "heart doctor" → cardiologist). Chosen on the generated suite, the searcher's-words requests and
 * the real-data dev split together (docs/SEARCH-RANKING.md "Quality"); the dev split's figures
 * moved inside their interval across the blends tried, so the choice favours the simplest that
 * keeps every suite above its floor.
 */
const W = { fusion: 0.15, bm25: 0.45, coverage: 0.05, semantic: 0.2, nameOrg: 0.15, place: 0.15 };

/** People hydrated, embedded and scored at once: memory stays bounded however many candidates. */
const SCORE_CHUNK = 1000;

export interface Scored {
  person: Person;
  /** The person's weighted text (for the cross-encoder). */
  parts: WeightedText[];
  coverage: Coverage;
  nameSim: number;
  orgSim: number;
  semantic: number;
  score: number;
  rerank: number | null;
  /** Little of the request is found (WEAK_COVERAGE): flagged and said so. */
  weak: boolean;
}

/**
 * Best first. A weak match (WEAK_COVERAGE) is flagged and said so, but keeps its place by score:
 * ordering every weak match last cost 0.05–0.08 nDCG@10 on the real-data dev split, where a pasted
 * abstract's relevant authors often hold under a quarter of its words (docs/SEARCH-RANKING.md).
 */
export const byScore = (a: Scored, b: Scored) => b.score - a.score || (a.person.profileId < b.person.profileId ? -1 : 1);

export interface ScoreContext {
  query: string;
  /** Places the query names, found among the candidates' locations (null: not looked for yet). */
  places: Place[] | null;
  /** [community ids, include public]: the scope hydration reads. */
  scope: [string[], boolean];
  maxRrf: number;
  /** The query's BM25 terms and statistics over the scope. */
  stats: QueryStats;
  queryStems: string[];
  wordOf: Map<string, string>;
  expansions: readonly Expansion[];
  /** Misspelled query words' stems → the corpora's lexeme searched instead (spelling.ts). */
  corrections: ReadonlyMap<string, string>;
  /** People kept after scoring (the limit, or the cross-encoder's top when larger). */
  keep: number;
}

/**
 * Hydrates and scores the fused candidates SCORE_CHUNK at a time and keeps the best
 * `context.keep`, so any number of candidates fits in memory. A person with one document in
 * scope whose stored vector is this embedder's is scored with it; the others are embedded here
 * (the fast path's ≤ 200 candidates in one embeddings call). An embedder failure comes out as an
 * EmbedderFailure.
 */
export async function scoreCandidates(db: Queryable, fused: [string, Fused][], query: QueryEmbedding, context: ScoreContext): Promise<Scored[]> {
  const { embedder, vector: queryVector } = query;
  const degraded = query.degraded !== null;
  const top = new TopK<Scored>(context.keep, byScore);
  // BM25F relative to the best candidate's: the first chunk holds the best fused candidates (the
  // fast path's ≤ 200 are one chunk); a later chunk's better score counts as 1.
  let maxBm25 = 0;
  for (let start = 0; start < fused.length; start += SCORE_CHUNK) {
    const people = await hydrate(db, fused.slice(start, start + SCORE_CHUNK), context.scope, context.stats);
    if (people.length === 0) continue;
    // The gazetteer is the first chunk's locations: every candidate in practice (200 ≤ one chunk).
    context.places ??= placesIn(context.query, people.flatMap((p) => p.docs.flatMap((d) => (d.location ? [d.location] : []))));
    if (start === 0) maxBm25 = maxOf(people.map((p) => p.bm25), 0);
    const parts = people.map((p) => personText(p.docs));
    const vectors = people.map((p) => storedVector(p, embedder.name));
    const missing = vectors.flatMap((v, i) => (v ? [] : [i]));
    if (missing.length > 0) {
      let made: number[][];
      try {
        made = await inStep(
          'search.embed',
          { 'search.embedder': embedder.name, 'search.texts': missing.length, ...(degraded ? { 'search.degraded': true } : {}) },
          () => embedder.embed(missing.map((i) => parts[i]!)),
        );
      } catch (error) {
        throw new EmbedderFailure(error);
      }
      missing.forEach((at, i) => (vectors[at] = made[i]!));
    }
    people.forEach((person, i) => {
      const coverage = termCoverage(person, context.queryStems, context.expansions, context.wordOf, context.places ?? [], context.corrections);
      const nameSim = wordSimilarity(context.query, person.display.name);
      const orgSim = person.display.organization ? wordSimilarity(context.query, person.display.organization) : 0;
      const nameOrg = Math.max(nameSim, orgSim);
      const semantic = Math.max(0, cosine(queryVector, vectors[i]!));
      const bm25 = maxBm25 > 0 ? Math.min(1, person.bm25 / maxBm25) : 0;
      // Divided by the weights in play, so the score stays 0 to 1 whether or not a place is named.
      const weights = 1 + (context.places && context.places.length > 0 ? W.place : 0);
      const score =
        (W.fusion * (person.rrf / context.maxRrf) + W.bm25 * bm25 + W.coverage * coverage.score + W.semantic * semantic + W.nameOrg * (nameOrg >= 0.5 ? nameOrg : 0) + W.place * coverage.placeBoost) /
        weights;
      const weak = coverage.evidence < WEAK_COVERAGE && nameOrg < 0.5;
      top.offer({ person, parts: parts[i]!, coverage, nameSim, orgSim, semantic, score, rerank: null, weak });
    });
  }
  return top.sorted();
}
