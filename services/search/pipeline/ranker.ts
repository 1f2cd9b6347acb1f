// The ranking pipeline, one function per phase: embed the query (query-embedding.ts) → retrieve
// candidates per leg (candidate-retrieval.ts: full-text legs and a name / organization leg,
// retrieve.ts; nearest neighbours where pgvector exists, vectors.ts) → fuse (reciprocal rank fusion
// per person, candidate-fusion.ts) → rerank (field-aware features and vector similarity with the
// stored vectors, candidate-scoring.ts; optionally a cross-encoder, cross-encoding.ts) → explain
// (match-explanation.ts). It reads only documents of the requested scope and never widens it.
import type { Database, Queryable } from '../../kit/db/database.js';
import { fuseCandidates } from './candidate-fusion.js';
import { retrieveCandidates } from './candidate-retrieval.js';
import { type ScoreContext, type Scored, scoreCandidates } from './candidate-scoring.js';
import { crossEncode } from './cross-encoding.js';
import { type Embedder, OfflineHashEmbedder, type Reranker, type WeightedText } from './embedders.js';
import { explainMatches } from './match-explanation.js';
import type { DocumentRow, PreparedVectors, RankedMatch, RankRequest, SearchPipeline } from './pipeline.js';
import { degradeQuery, EmbedderFailure, embedQuery } from './query-embedding.js';
import type { LegName } from './retrieve.js';
import { corporaOf } from './bm25.js';
import { correctSpellings } from './spelling.js';
import { contentTokens, stem, tokenize } from './text.js';
import { maxOf } from './top-k.js';
import { type DocumentKey, DocumentVectors } from './vectors.js';
import type { WordNet } from './wordnet.js';

export interface RankerOptions {
  /** The active embedder (default: the offline hashing embedder). */
  embedder?: Embedder;
  /** Used when the active embedder fails (default: the offline hashing embedder). */
  fallbackEmbedder?: Embedder;
  /** An optional cross-encoder over the best candidates. */
  reranker?: Reranker | null;
  /** Query expansion; null turns it off. */
  wordnet?: WordNet | null;
  /** Rows each retrieval leg returns at most (default 200). */
  candidatesPerLeg?: number;
  /**
   * Matching rows one tier of the full-text leg reads and ranks at most (default 60,000); the
   * synonyms leg reads half as many, the name leg a fifth (retrieve.ts). Reading a matching row is
   * a random heap read, the cost that grows with the corpus: at 1M public profiles a common word
   * matches 190,000 rows, and 100,000 of them took 1–3 s (docs/SEARCH-RANKING.md "Speed").
   */
  rankWindow?: number;
  /** People the reranking stage scores at most (default 200). */
  maxCandidates?: number;
  /** People sent to the cross-encoder at most (default 50). */
  rerankTop?: number;
  /**
   * The nearest-neighbour leg keeps neighbours at least this similar to the query (cosine; default
   * 0.15 for the offline embedder, whose unrelated texts score about 0, and 0.3 for a dense model).
   */
  minVectorSimilarity?: number;
}

/** The limits of the product's fast path (the benchmark names them). */
export const RANKER_DEFAULTS = { candidatesPerLeg: 200, rankWindow: 60_000, maxCandidates: 200, rerankTop: 50 } as const;

/** The retrieval legs' weights in fusion (candidate-fusion.ts); the vector leg's follows. */
const LEG_WEIGHT: Record<Exclude<LegName, 'vector'>, number> = { 'full-text': 1, synonyms: 0.6, 'name/organization': 1 };
/**
 * The nearest-neighbour leg's weight and floor. A dense model's neighbours weigh as much as a word
 * leg. The offline embedder's weigh little: its near vectors mostly share words the full-text legs
 * already found, or only character n-grams with the query. Measured on the judged set (PGlite,
 * docs/SEARCH-RANKING.md "Vectors"): nDCG@10 0.838 without the leg; with it 0.829 at weight 1 and
 * no floor, 0.834 at 0.25 with the floor 0.15 (kept: three matches found by the leg alone), 0.836
 * at floor 0.25 (none found by the leg alone).
 */
const VECTOR_LEG_WEIGHT = { dense: 1, offline: 0.25 };
const MIN_VECTOR_SIMILARITY = { dense: 0.3, offline: 0.15 };

export class Ranker implements SearchPipeline {
  readonly provider: string;
  private readonly embedder: Embedder;
  private readonly fallback: Embedder;
  private readonly reranker: Reranker | null;
  private readonly wordnet: WordNet | null;
  private readonly perLeg: number;
  private readonly window: number;
  private readonly maxCandidates: number;
  private readonly rerankTop: number;
  private readonly trigramByDb = new WeakMap<Queryable, Promise<boolean>>();
  /** The active embedder's stored vectors and the nearest-neighbour leg over them. */
  readonly vectors: DocumentVectors;
  private readonly legWeight: Record<LegName, number>;
  private readonly minVectorSimilarity: number;

  constructor(options: RankerOptions = {}) {
    this.fallback = options.fallbackEmbedder ?? new OfflineHashEmbedder();
    this.embedder = options.embedder ?? this.fallback;
    this.reranker = options.reranker ?? null;
    this.wordnet = options.wordnet ?? null;
    this.perLeg = options.candidatesPerLeg ?? RANKER_DEFAULTS.candidatesPerLeg;
    this.window = options.rankWindow ?? RANKER_DEFAULTS.rankWindow;
    this.maxCandidates = options.maxCandidates ?? RANKER_DEFAULTS.maxCandidates;
    this.rerankTop = options.rerankTop ?? RANKER_DEFAULTS.rerankTop;
    this.provider = this.embedder.name;
    this.vectors = new DocumentVectors(this.embedder);
    const kind = this.embedder instanceof OfflineHashEmbedder ? 'offline' : 'dense';
    this.legWeight = { ...LEG_WEIGHT, vector: VECTOR_LEG_WEIGHT[kind] };
    this.minVectorSimilarity = options.minVectorSimilarity ?? MIN_VECTOR_SIMILARITY[kind];
  }

  storeVectors(db: Database, keys?: readonly DocumentKey[]): Promise<number> {
    return this.vectors.store(db, keys);
  }

  prepareVectors(db: Database, docs: readonly DocumentRow[]): Promise<PreparedVectors> {
    return this.vectors.prepare(db, docs);
  }

  /** Whether pg_trgm is installed in this database (asked once per database handle). */
  private hasTrigram(db: Queryable): Promise<boolean> {
    let known = this.trigramByDb.get(db);
    if (!known) {
      known = db
        .query<{ ok: boolean }>(`SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') AS ok`)
        .then((rows) => rows[0]?.ok === true)
        .catch(() => false);
      this.trigramByDb.set(db, known);
    }
    return known;
  }

  async rank(db: Queryable, request: RankRequest): Promise<RankedMatch[]> {
    const query = request.query.trim();
    const communityIds = [...new Set(request.communityIds.filter((id) => id !== ''))];
    const limit = Math.max(0, Math.floor(request.limit));
    if (limit === 0 || query.length === 0 || (communityIds.length === 0 && !request.includePublic)) return [];

    const words = [...new Set(contentTokens(query))];
    const originalWords = words.length > 0 ? words : [...new Set(tokenize(query))];
    if (originalWords.length === 0) return [];
    const expansions = this.wordnet ? this.wordnet.expand(query) : [];
    // The query with its expansions, weighted lower.
    const queryParts: WeightedText[] = [{ text: query, weight: 1 }, ...expansions.map((e) => ({ text: e.term, weight: e.weight * 0.6 }))];

    const scope = { communityIds, includePublic: request.includePublic };
    // Misspelled words are looked up in the searched corpora's own vocabulary (spelling.ts); a word
    // WordNet knows is no misspelling, only absent from the corpora (correcting such words cost
    // 0.035 nDCG@10 on the generated suite's topical queries).
    const unknown = words.filter((w) => !this.wordnet?.isWord(w));
    const [first, corrections] = await Promise.all([
      embedQuery(this.embedder, this.fallback, queryParts),
      correctSpellings(db, unknown, corporaOf(scope)),
    ]);
    let embedding = first;
    const corrected = corrections.map((c) => c.lexeme);
    const { legs, stats } = await retrieveCandidates(db, { scope, query, words: originalWords, expansions, corrected }, {
      trigram: () => this.hasTrigram(db),
      // Stored vectors are the active embedder's: a query embedded by the fallback has no neighbours among them.
      nearest: () =>
        embedding.embedder === this.embedder
          ? this.vectors.nearest(db, scope, embedding.vector, this.perLeg, this.minVectorSimilarity)
          : Promise.resolve([]),
      perLeg: this.perLeg,
      window: this.window,
    });

    const fused = fuseCandidates(legs, this.legWeight, this.maxCandidates);
    if (fused.length === 0) return [];

    // Hydrate, embed and score a chunk of candidates at a time, keeping the best.
    const context: ScoreContext = {
      query,
      scope: [communityIds, request.includePublic],
      // A loop, never Math.max(...spread): see top-k.ts.
      maxRrf: maxOf(fused.map(([, entry]) => entry.score), 1),
      stats,
      queryStems: originalWords.map(stem),
      wordOf: new Map(originalWords.map((w) => [stem(w), w])),
      expansions,
      corrections: new Map(corrections.map((c) => [stem(c.word), c.lexeme])),
      places: null,
      keep: Math.max(limit, this.reranker ? this.rerankTop : 0),
    };
    let scored: Scored[];
    try {
      scored = await scoreCandidates(db, fused, embedding, context);
    } catch (error) {
      if (!(error instanceof EmbedderFailure)) throw error;
      embedding = await degradeQuery(embedding.embedder, this.fallback, queryParts, error);
      scored = await scoreCandidates(db, fused, embedding, context).catch((failed: unknown) => {
        throw failed instanceof EmbedderFailure ? failed.failure : failed;
      });
    }

    const rerankNote = this.reranker && scored.length > 0 ? await crossEncode(this.reranker, query, scored, this.rerankTop) : null;

    return explainMatches(scored, limit, {
      communityIds,
      query,
      queryWords: [...context.wordOf.values()],
      degraded: embedding.degraded,
      rerankNote,
    });
  }
}
