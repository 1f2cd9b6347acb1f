// The ranking pipeline: embed the query → retrieve candidates (full-text legs and a name /
// organization leg, retrieve.ts; nearest neighbours where pgvector exists, vectors.ts) → fuse
// (reciprocal rank fusion, per person) → rerank (field-aware features, vector similarity with the
// stored vectors, optionally a cross-encoder) → explain. It reads only documents of the requested
// scope and never widens it.
import { inStep } from '../../kit/telemetry.js';
import type { Database, Queryable } from '../../kit/db/database.js';
import { cosine, type Embedder, OfflineHashEmbedder, type Reranker, type WeightedText } from './embedders.js';
import type { DocumentRow, RankedMatch, RankRequest, SearchPipeline } from './pipeline.js';
import { explain, type FieldName, type TermMatch } from './explain.js';
import { isIn, type Place, placesIn } from './place.js';
import { bm25fSelect, type QueryStats } from './bm25.js';
import { type LegName, type LegRow, retrieveLegs } from './retrieve.js';
import { contentTokens, stem, tokenize, wordSimilarity } from './text.js';
import { maxOf, minMaxNormalise, TopK } from './top-k.js';
import { type DocumentKey, DocumentVectors, personText } from './vectors.js';
import type { Expansion, WordNet } from './wordnet.js';

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
   * Matching rows one tier of the full-text leg reads and ranks at most (default 100,000); the
   * synonyms leg reads half as many, the name leg a fifth (retrieve.ts).
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
export const RANKER_DEFAULTS = { candidatesPerLeg: 200, rankWindow: 100_000, maxCandidates: 200, rerankTop: 50 } as const;

/** A document as hydrated: its fields and its stored vector (null: none, or another embedder's). */
type Doc = DocumentRow & { embedding: number[] | null; embedding_model: string | null; bm25: number };

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
const RRF_K = 60;

const FIELDS = ['name', 'headline', 'organization', 'location', 'bio', 'enrichment_text'] as const satisfies readonly FieldName[];
type Field = (typeof FIELDS)[number];
/** Field weights of the reranker's term coverage, in the spirit of the A/B/C full-text weights. */
const FIELD_WEIGHT: Record<Field, number> = { name: 1, headline: 1, organization: 0.85, location: 0.85, bio: 0.6, enrichment_text: 0.5 };

// ---- places, expansions and weak matches (explain.ts says them to the searcher) ----
/**
 * A place the query names (place.ts) counts as two words of the query, credited in full to a person
 * located there ("epidemiologist in Nairobi" puts Nairobi's epidemiologists first; "climate
 * scientist in Nairobi" a Nairobi climate analyst before climate scientists elsewhere), but only
 * PLACE_ALONE when the person holds none of the query's other words: a place narrows a topic, it is
 * no topic itself (a Nairobi climate analyst stays below a Lyon epidemiologist, and is weak).
 */
const PLACE_WEIGHT = 2;
const PLACE_ALONE = 0.3;
/**
 * The fields an expansion may match. Never a name: a synonym of a topic is not a person. A broader
 * or narrower term never matches a location either ("molecules" → "unit" must not match "United
 * States").
 */
const EXPANSION_FIELDS: Record<Expansion['relation'], readonly Field[]> = {
  synonym: ['headline', 'organization', 'location', 'bio', 'enrichment_text'],
  'related form': ['headline', 'organization', 'location', 'bio', 'enrichment_text'],
  'narrower term': ['headline', 'organization', 'bio', 'enrichment_text'],
  'broader term': ['headline', 'organization', 'bio', 'enrichment_text'],
};
/**
 * An expansion's credit never exceeds 0.9 × the least a typed word earns (enrichment, 0.5): a
 * profile holding the typed words outranks one holding only expansions, in whatever fields. Costs
 * 0.012 nDCG@10 on the judged set (docs/SEARCH-RANKING.md, "Expansions"); scaling the ceiling by
 * the expansion's weight too cost 0.020.
 */
const EXPANSION_CEILING = 0.9 * Math.min(...Object.values(FIELD_WEIGHT));
/**
 * A match is weak — flagged, and said so — when less than this share of the request is found
 * (term coverage with each expansion at its own weight, not held under EXPANSION_CEILING: a
 * synonym is evidence, just below the typed word; places included) and neither name nor
 * organization resembles the request. Measured on the demo requests (docs/SEARCH-RANKING.md,
 * "Weak matches").
 */
const WEAK_COVERAGE = 0.25;

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

interface Person {
  profileId: string;
  docs: Doc[];
  display: Doc;
  rrf: number;
  legs: Set<LegName>;
  fieldStems: Map<Field, Set<string>>;
  /** The best BM25F score of the person's in-scope documents. */
  bm25: number;
}

/** A fused candidate: its reciprocal-rank score, the legs that found it, and per document. */
interface Fused {
  score: number;
  legs: Set<LegName>;
  docScore: Map<string, number>;
}

interface Scored {
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
const byScore = (a: Scored, b: Scored) => b.score - a.score || (a.person.profileId < b.person.profileId ? -1 : 1);

interface ScoreContext {
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
  /** People kept after scoring (the limit, or the cross-encoder's top when larger). */
  keep: number;
}

/** An embedder call failed: the ranker starts over with the fallback embedder. */
class EmbedderFailure extends Error {
  constructor(readonly failure: unknown) {
    super(failure instanceof Error ? failure.message : String(failure));
  }
}

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

  /** The query's vector; an embedder failure comes out as an EmbedderFailure. */
  private async embedQuery(embedder: Embedder, parts: WeightedText[], degraded: boolean): Promise<number[]> {
    try {
      const [vector] = await inStep('search.embed', { 'search.embedder': embedder.name, 'search.texts': 1, ...(degraded ? { 'search.degraded': true } : {}) }, () =>
        embedder.embed([parts]),
      );
      if (!vector) throw new Error('no vector for the query');
      return vector;
    } catch (error) {
      throw new EmbedderFailure(error);
    }
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

    // ---- embed the query (the active embedder, or the offline one when it fails) ----
    let embedder = this.embedder;
    let degraded: string | null = null;
    const degrade = async (failure: EmbedderFailure): Promise<number[]> => {
      if (embedder === this.fallback) throw failure.failure;
      degraded = `the embeddings service failed (${failure.message}), so similarity in meaning was estimated from shared words and spellings`;
      embedder = this.fallback;
      return this.embedQuery(embedder, queryParts, true).catch((failed: unknown) => {
        throw failed instanceof EmbedderFailure ? failed.failure : failed;
      });
    };
    let queryVector = await this.embedQuery(embedder, queryParts, false).catch((error: unknown) => {
      if (error instanceof EmbedderFailure) return degrade(error);
      throw error;
    });

    // ---- retrieve (retrieve.ts: tiered and bounded legs; vectors.ts: nearest neighbours; concurrently) ----
    const scope = { communityIds, includePublic: request.includePublic };
    const { legs, stats } = await inStep('search.retrieve', { 'search.expansions': expansions.length }, async (span) => {
      const [{ legs: found, stats }, nearest] = await Promise.all([
        this.hasTrigram(db).then((trigram) =>
          retrieveLegs(db, { scope, query, words: originalWords, expansions, trigram }, { perLeg: this.perLeg, window: this.window }),
        ),
        // Stored vectors are the active embedder's: a query embedded by the fallback has no neighbours among them.
        embedder === this.embedder ? this.vectors.nearest(db, scope, queryVector, this.perLeg, this.minVectorSimilarity) : Promise.resolve([]),
      ]);
      found.set('name/organization', byNameSimilarity(query, found.get('name/organization') ?? [], this.perLeg));
      if (nearest.length > 0) found.set('vector', nearest);
      let candidates = 0;
      for (const rows of found.values()) candidates += rows.length;
      span.setAttribute('search.candidates', candidates);
      return { legs: found, stats };
    });

    // ---- fuse: reciprocal rank fusion per person ----
    const rrf = new Map<string, Fused>();
    for (const [leg, rows] of legs) {
      const seen = new Set<string>();
      let rank = 0;
      for (const row of rows) {
        const entry = rrf.get(row.profile_id) ?? { score: 0, legs: new Set<LegName>(), docScore: new Map<string, number>() };
        rrf.set(row.profile_id, entry);
        const docKey = row.community_id;
        if (!seen.has(row.profile_id)) {
          rank++;
          seen.add(row.profile_id);
          entry.score += this.legWeight[leg] / (RRF_K + rank);
          entry.legs.add(leg);
        }
        entry.docScore.set(docKey, (entry.docScore.get(docKey) ?? 0) + this.legWeight[leg] / (RRF_K + rank));
      }
    }
    const fused = [...rrf.entries()].sort((a, b) => b[1].score - a[1].score || (a[0] < b[0] ? -1 : 1)).slice(0, this.maxCandidates);
    if (fused.length === 0) return [];

    // ---- hydrate, embed and rerank a chunk of candidates at a time, keeping the best ----
    const context: ScoreContext = {
      query,
      scope: [communityIds, request.includePublic],
      // A loop, never Math.max(...spread): see top-k.ts.
      maxRrf: maxOf(fused.map(([, entry]) => entry.score), 1),
      stats,
      queryStems: originalWords.map(stem),
      wordOf: new Map(originalWords.map((w) => [stem(w), w])),
      expansions,
      places: null,
      keep: Math.max(limit, this.reranker ? this.rerankTop : 0),
    };
    let scored: Scored[];
    try {
      scored = await this.scoreAll(db, fused, embedder, queryVector, context, degraded !== null);
    } catch (error) {
      if (!(error instanceof EmbedderFailure)) throw error;
      queryVector = await degrade(error);
      scored = await this.scoreAll(db, fused, embedder, queryVector, context, true).catch((failed: unknown) => {
        throw failed instanceof EmbedderFailure ? failed.failure : failed;
      });
    }

    let rerankNote: string | null = null;
    if (this.reranker && scored.length > 0) {
      const top = scored.slice(0, this.rerankTop);
      try {
        const reranker = this.reranker;
        const raw = await inStep('search.rerank', { 'search.reranked': top.length }, () =>
          reranker.rerank(
            query,
            top.map((s) => s.parts.filter((p) => p.weight > 0).map((p) => p.text).join('. ')),
          ),
        );
        const relative = minMaxNormalise(raw);
        top.forEach((s, i) => {
          s.rerank = relative[i]!;
          s.score = 0.5 * s.score + 0.5 * s.rerank;
        });
        // Those below the cross-encoded top keep their order beneath it.
        for (const s of scored.slice(this.rerankTop)) s.score *= 0.5;
        scored.sort(byScore);
      } catch (error) {
        rerankNote = `the reranking service failed (${(error as Error).message}), so it was skipped`;
      }
    }

    const requested = new Set(communityIds);
    return scored.slice(0, limit).map((s) => {
      const d = s.person.display;
      const matchedCommunityIds = [...new Set(s.person.docs.map((doc) => doc.community_id).filter((id) => requested.has(id)))].sort();
      return {
        profileId: s.person.profileId,
        userId: d.user_id ?? s.person.docs.find((doc) => doc.user_id)?.user_id ?? null,
        name: d.name,
        headline: d.headline,
        organization: d.organization,
        location: d.location,
        avatarUrl: d.avatar_url,
        score: round(s.score),
        semanticScore: round(s.semantic),
        weakMatch: s.weak,
        explanation: explain({
          queryWords: [...context.wordOf.values()],
          matches: s.coverage.matches,
          places: s.coverage.places,
          texts: [d, ...s.person.docs.filter((doc) => doc !== d)],
          location: d.location,
          nameSim: s.nameSim,
          orgSim: s.orgSim,
          semantic: s.semantic,
          weak: s.weak,
          degraded,
          rerank: s.rerank,
          rerankNote,
          communities: matchedCommunityIds,
        }),
        matchedCommunityIds,
      };
    });
  }

  /**
   * Hydrates and scores the fused candidates SCORE_CHUNK at a time and keeps the best
   * `context.keep`, so any number of candidates fits in memory. A person with one document in
   * scope whose stored vector is this embedder's is scored with it; the others are embedded here
   * (the fast path's ≤ 200 candidates in one embeddings call). An embedder failure comes out as an
   * EmbedderFailure.
   */
  private async scoreAll(
    db: Queryable,
    fused: [string, Fused][],
    embedder: Embedder,
    queryVector: number[],
    context: ScoreContext,
    degraded: boolean,
  ): Promise<Scored[]> {
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
        const coverage = termCoverage(person, context.queryStems, context.expansions, context.wordOf, context.places ?? []);
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
}

/** The person's stored vector, when it has one document in scope and that embedder made its vector. */
function storedVector(person: Person, embedderName: string): number[] | null {
  const [doc, ...others] = person.docs;
  return doc && others.length === 0 && doc.embedding_model === embedderName && doc.embedding && doc.embedding.length > 0 ? doc.embedding : null;
}

const DOC_COLUMNS = [
  'community_id', 'profile_id', 'user_id', 'name', 'headline', 'bio', 'organization', 'location', 'avatar_url', 'enrichment_text',
  'embedding', 'embedding_model',
];

/**
 * Every in-scope document of these candidates (for merging and community lists), as people in the
 * order given; displayed fields come from the person's best-matching document. Nothing of an
 * unrequested community is read.
 */
async function hydrate(db: Queryable, chunk: [string, Fused][], scope: [string[], boolean], stats: QueryStats): Promise<Person[]> {
  const values: unknown[] = [...scope, chunk.map(([id]) => id)];
  const scoped = `(SELECT * FROM search.documents
      WHERE profile_id = ANY($3::text[]) AND (community_id = ANY($1::text[]) OR ($2::boolean AND community_id = ''))) d`;
  const select = bm25fSelect({ ...stats, terms: stats.rerankTerms }, DOC_COLUMNS, scoped, values);
  const docs = await db.query<Doc>(`${select} ORDER BY profile_id, community_id`, values);
  const byProfile = new Map<string, Doc[]>();
  for (const doc of docs) {
    const list = byProfile.get(doc.profile_id) ?? [];
    list.push(doc);
    byProfile.set(doc.profile_id, list);
  }
  const people: Person[] = [];
  for (const [profileId, entry] of chunk) {
    const list = byProfile.get(profileId);
    if (!list || list.length === 0) continue; // erased between the two reads
    const display = [...list].sort((a, b) => (entry.docScore.get(b.community_id) ?? 0) - (entry.docScore.get(a.community_id) ?? 0))[0]!;
    const fieldStems = new Map<Field, Set<string>>();
    for (const field of FIELDS) {
      const set = new Set<string>();
      for (const doc of list) for (const w of contentTokens(doc[field] ?? '')) set.add(stem(w));
      fieldStems.set(field, set);
    }
    people.push({ profileId, docs: list, display, rrf: entry.score, legs: entry.legs, fieldStems, bm25: maxOf(list.map((d) => Number(d.bm25)), 0) });
  }
  return people;
}

/**
 * The name leg's rows ordered by trigram word similarity of the query to the name or the
 * organization (below 0.3 dropped), then by profile id; the best `perLeg`.
 */
function byNameSimilarity(query: string, rows: readonly LegRow[], perLeg: number): LegRow[] {
  return rows
    .map((row) => ({ ...row, sim: Math.max(wordSimilarity(query, row.name ?? ''), row.organization ? wordSimilarity(query, row.organization) : 0) }))
    .filter((row) => row.sim >= 0.3)
    .sort((a, b) => b.sim - a.sim || (a.profile_id < b.profile_id ? -1 : a.profile_id > b.profile_id ? 1 : 0))
    .slice(0, perLeg);
}

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

interface Coverage {
  score: number;
  /** The same share with expansions at their own weight (no ceiling): what WEAK_COVERAGE reads. */
  evidence: number;
  matches: TermMatch[];
  /** The places the query names, and whether the person is in each. */
  places: { place: Place; matched: boolean }[];
  /** 1 when the person is in a place the query names and holds another query word; PLACE_ALONE when only the place; else 0. */
  placeBoost: number;
}

/**
 * The share of the query's words found in the person's fields, each word credited with the best
 * field it appears in; a word not found itself gets partial credit when one of its expansions is.
 */
function termCoverage(
  person: Person,
  queryStems: readonly string[],
  expansions: readonly Expansion[],
  wordOf: ReadonlyMap<string, string>,
  places: readonly Place[],
): Coverage {
  const fieldsWith = (stems: readonly string[], allowed: readonly Field[] = FIELDS): Field[] =>
    stems.length === 0 ? [] : allowed.filter((f) => stems.every((s) => person.fieldStems.get(f)!.has(s)));
  const best = (fields: readonly Field[]) => maxOf(fields.map((f) => FIELD_WEIGHT[f]), 0);
  const matches: TermMatch[] = [];
  const credit = new Map<string, number>(queryStems.map((s) => [s, 0]));
  const evidence = new Map<string, number>(credit);
  for (const s of new Set(queryStems)) {
    const fields = fieldsWith([s]);
    if (fields.length > 0) {
      credit.set(s, best(fields));
      evidence.set(s, best(fields));
      matches.push({ term: wordOf.get(s) ?? s, fields, expansion: null });
    }
  }
  for (const e of expansions) {
    const fields = fieldsWith(contentTokens(e.term).map(stem), EXPANSION_FIELDS[e.relation]);
    if (fields.length === 0) continue;
    const value = Math.min(best(fields) * e.weight, EXPANSION_CEILING);
    const sources = contentTokens(e.from).map(stem).filter((s) => credit.has(s));
    let used = false;
    for (const source of sources) evidence.set(source, Math.max(evidence.get(source) ?? 0, best(fields) * e.weight));
    for (const source of sources) {
      if ((credit.get(source) ?? 0) < value) {
        credit.set(source, value);
        used = true;
      }
    }
    if (used) matches.push({ term: e.term, fields, expansion: e });
  }
  // A place named in the query: full credit when the person is there and holds another query word.
  const weight = new Map<string, number>();
  const placeStems = new Set(places.flatMap((p) => p.queryWords.map(stem)));
  const topical = [...credit].some(([s, c]) => c > 0 && !placeStems.has(s));
  const alone = [...credit.keys()].some((s) => !placeStems.has(s)) && !topical;
  const placed = places.map((place) => {
    const matched = person.docs.some((d) => isIn(d.location, place));
    const share = PLACE_WEIGHT / place.queryWords.length;
    for (const s of place.queryWords.map(stem)) {
      if (!credit.has(s)) continue;
      weight.set(s, share);
      for (const map of [credit, evidence]) {
        if (matched) map.set(s, alone ? PLACE_ALONE : 1);
        else if (alone) map.set(s, Math.min(map.get(s)!, PLACE_ALONE));
      }
    }
    return { place, matched };
  });
  const share = (map: ReadonlyMap<string, number>) => {
    let total = 0;
    let weights = 0;
    for (const [s, c] of map) {
      const w = weight.get(s) ?? 1;
      total += c * w;
      weights += w;
    }
    return weights > 0 ? total / weights : 0;
  };
  // A boost of its own besides the coverage share: the blend weighs coverage little (BM25 carries
  // the words), and a place the searcher named must still move people located there up.
  const placeBoost = placed.some((p) => p.matched) ? (alone ? PLACE_ALONE : 1) : 0;
  return { score: share(credit), evidence: share(evidence), matches, places: placed, placeBoost };
}
