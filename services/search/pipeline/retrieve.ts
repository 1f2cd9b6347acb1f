// Retrieval: the SQL of the candidate legs (docs/SEARCH-RANKING.md "Retrieve"). Its cost, not the
// reranking, is what grows with the corpus (1M public profiles: a common word matches 100k+ rows,
// and ranking them meant reading every one of them), so every leg is bounded:
//   - Tiers, strictest first (AND before OR): a tier runs only while the tiers before it found
//     fewer rows than the leg needs, so a common word is ranked over the documents holding all the
//     query's words, not over every document holding one of them.
//   - Headline first: a tier that may match many rows is read in two, the documents holding its
//     words in their name or headline (the highest-impact postings: migration 013's index) and
//     then, only while those are too few, the others. A common word reads its few thousand
//     headline holders, not its whole window.
//   - A window: a tier reads and ranks at most `window` of its matching rows (the first the index
//     yields; the community corpora before the public one). Below the window a tier is ranked
//     exactly; above it, its best rows are the best of that sample.
//   - ts_rank, not ts_rank_cd: the same quality on the judged queries, and ten times cheaper on
//     the synonyms leg's twenty-term tsqueries.
//   - One statement per leg (tiers gated inside it); the three legs run concurrently, each with
//     LEG_SETTINGS (no JIT, an exact bitmap).
//   - Each corpus branch names its corpus (`community_id = ''` or `<> ''`), so the planner uses the
//     partial GIN index of that corpus (migration 005): a community search never reads the public
//     corpus's rows, nor the reverse.
import type { Database, Queryable } from '../../kit/db/database.js';
import { B, corporaOf, K1, lexemeQuery, type QueryStats, queryStats, type QueryTerm } from './bm25.js';
import { tokenize } from './text.js';
import type { Expansion } from './wordnet.js';

/** The retrieval legs; 'vector' (nearest neighbours) is vectors.ts's, where pgvector exists. */
export type LegName = 'full-text' | 'synonyms' | 'name/organization' | 'vector';

export interface Scope {
  communityIds: string[];
  includePublic: boolean;
}

export interface LegRow {
  community_id: string;
  profile_id: string;
  name?: string;
  organization?: string | null;
}

/** A [a-z0-9] word safe to put in a tsquery. */
export function safe(word: string): string {
  return word.replace(/[^a-z0-9]/g, '');
}

/** The terms (words, or phrases as `<->`) OR-ed into one tsquery text; null when none is left. */
export function buildTsQuery(terms: readonly string[]): string | null {
  const parts = new Set<string>();
  for (const term of terms) {
    const words = tokenize(term).map(safe).filter((w) => w.length > 0);
    if (words.length === 1) parts.add(words[0]!);
    else if (words.length > 1) parts.add(`(${words.join(' <-> ')})`);
  }
  return parts.size > 0 ? [...parts].join(' | ') : null;
}

/**
 * Tiers of the query's own words: all of them; then (3 to 5 words, unless `allButOne` is false)
 * all but one; then any. One word is one tier. `suffix` is appended to each word (':*': prefixes).
 */
export function wordTiers(words: readonly string[], options: { suffix?: string; allButOne?: boolean } = {}): string[] {
  const w = [...new Set(words.map(safe).filter((x) => x.length > 0))].map((x) => x + (options.suffix ?? ''));
  if (w.length === 0) return [];
  if (w.length === 1) return [w[0]!];
  const tiers = [w.join(' & ')];
  if (options.allButOne !== false && w.length >= 3 && w.length <= 5) {
    tiers.push(w.map((_, skip) => `(${w.filter((__, i) => i !== skip).join(' & ')})`).join(' | '));
  }
  tiers.push(w.join(' | '));
  return tiers;
}

/** Tiers of the WordNet expansions: the close ones (weight ≥ 0.5) before the broad ones. */
export function expansionTiers(expansions: readonly Expansion[]): string[] {
  const close = buildTsQuery(expansions.filter((e) => e.weight >= 0.5).map((e) => e.term));
  const broad = buildTsQuery(expansions.filter((e) => e.weight < 0.5).map((e) => e.term));
  return [close, broad].filter((t): t is string => t !== null);
}

/** Parameters of one statement: each value gets the next $n. */
class Params {
  readonly values: unknown[] = [];
  add(value: unknown, cast: string): string {
    this.values.push(value);
    return `$${this.values.length}::${cast}`;
  }
}

interface LegSql {
  /** Columns of search.documents a row needs (community_id and profile_id always come). */
  columns: string[];
  /**
   * Expressions each matching row computes once, before scoring (`expression AS name`; `score`
   * may name them), over `tsv` (the row's search_tsv, decompressed once: a long document's
   * tsvector is stored compressed, and each function reading the column would decompress it
   * again — measured, three times the cost with six terms) and `doc_length`. Absent: the score
   * reads search_tsv itself.
   */
  computed?: string[];
  /** Rows of all tiers ordered by score alone (comparable across tiers), not tier by tier. */
  mergeTiers?: boolean;
  /** Each tier's place in the order (default its index): a split tier's two parts share one. */
  tierOrder?: number[];
  /** Each tier's condition over a row of search.documents, strictest first. */
  tiers: string[];
  /** What orders a tier (higher first; it may read search_tsv), or null for profile id order. */
  score: string | null;
  /** Rows a tier returns at most. */
  tierLimit: number;
  /** Later tiers run only while the earlier ones returned fewer rows than this. */
  enough: number;
  /** Matching rows one tier reads at most. */
  window: number;
  /** Settings the leg's transaction sets first (besides LEG_SETTINGS), name → value. */
  settings?: Record<string, string>;
}

export interface RetrieveLimits {
  /** Rows a leg returns at most. */
  perLeg: number;
  /** Matching rows one tier reads (and ranks) at most. */
  window: number;
}

/** One statement for a whole leg: rows come back tier by tier, each tier best first. */
function legStatement(leg: LegSql, scope: Scope, params: Params): string {
  const cols = ['community_id', 'profile_id', ...leg.columns];
  const select = cols.join(', ');
  const read = leg.computed ? `${select}, doc_length, search_tsv || ''::tsvector AS tsv` : leg.score ? `${select}, search_tsv` : select;
  const score = leg.score ?? '0::real';
  const window = params.add(Math.max(leg.window, leg.tierLimit), 'int');
  const tierLimit = params.add(leg.tierLimit, 'int');
  const enough = Math.floor(leg.enough);
  // Only the corpora searched get a branch; each names its corpus, matching its partial index.
  const corpora: string[] = [];
  if (scope.communityIds.length > 0) corpora.push(`community_id = ANY(${params.add(scope.communityIds, 'text[]')}) AND community_id <> ''`);
  if (scope.includePublic) corpora.push(`community_id = ''`);
  const ctes = leg.tiers.map((tier, i) => {
    // Rows of an earlier tier are not repeated; a later tier is skipped (a one-time filter, its
    // scan never starts) once the earlier ones returned enough rows.
    const gate = i === 0 ? [] : [`(${leg.tiers.slice(0, i).map((_, j) => `(SELECT count(*) FROM t${j})`).join(' + ')}) < ${enough}`];
    const condition = [...gate, `(${tier})`, ...leg.tiers.slice(0, i).map((e) => `NOT (${e})`)].join(' AND ');
    const branches = corpora.map((corpus) => `SELECT ${read} FROM search.documents WHERE ${corpus} AND ${condition}`);
    let rows = `(${branches.join(' UNION ALL ')} LIMIT ${window})`;
    // OFFSET 0 keeps the level: each computed value once per row, not once per use in the score.
    if (leg.computed) rows = `(SELECT ${select}, doc_length, ${leg.computed.join(', ')} FROM ${rows} m0 OFFSET 0)`;
    return `t${i} AS MATERIALIZED (
      SELECT ${select}, ${score} AS score FROM ${rows} m
      ORDER BY score DESC, profile_id, community_id LIMIT ${tierLimit})`;
  });
  const union = leg.tiers.map((_, i) => `SELECT ${select}, ${leg.tierOrder?.[i] ?? i} AS tier, score FROM t${i}`).join(' UNION ALL ');
  const order = leg.mergeTiers ? 'score DESC, profile_id, community_id' : 'tier, score DESC, profile_id, community_id';
  return `WITH ${ctes.join(',\n')}\n${union}\nORDER BY ${order}`;
}

/**
 * What every leg's transaction sets (docs/SEARCH-RANKING.md "Retrieve"):
 *   - enable_seqscan off: the planner overestimates how many rows a long OR-ed tsquery matches
 *     (WordNet expansions often have twenty terms), and then prefers a sequential scan that "soon"
 *     finds a window's worth: measured, it read ten times as many rows as the GIN bitmap would
 *     have, each tested against the whole tsquery. Every branch has an index to use (its corpus's
 *     GIN index, or the primary key for a few communities), so sequential scans are priced out.
 *   - jit off: a leg over a large corpus costs more than jit_above_cost, and compiling its
 *     expressions took 50–80 ms per statement (measured on 1M public profiles), more than it saved
 *     on rows the window bounds anyway.
 *   - work_mem 32MB: a common word matches 100k+ rows of the public corpus; in the default 4MB the
 *     GIN bitmap went lossy (53,000 of its 63,000 heap pages), and every row of a lossy page is
 *     read and tested again (234,000 more rows for one word). 32MB keeps a million rows' bitmap exact.
 */
const LEG_SETTINGS: Record<string, string> = { enable_seqscan: 'off', jit: 'off', work_mem: '32MB' };

function isDatabase(db: Queryable): db is Database {
  return typeof (db as Partial<Database>).transaction === 'function';
}

async function runLeg<R extends LegRow>(db: Queryable, scope: Scope, build: (params: Params) => LegSql): Promise<R[]> {
  const params = new Params();
  const leg = build(params);
  if (leg.tiers.length === 0 || (scope.communityIds.length === 0 && !scope.includePublic)) return [];
  const sql = legStatement(leg, scope, params);
  if (!isDatabase(db)) return db.query<R>(sql, params.values);
  // One statement sets them all, local to the leg's transaction (set_config(…, true)).
  const settings = Object.entries({ ...LEG_SETTINGS, ...leg.settings });
  return db.transaction(async (tx) => {
    await tx.query(`SELECT ${settings.map((_, i) => `set_config($${2 * i + 1}, $${2 * i + 2}, true)`).join(', ')}`, settings.flat());
    return tx.query<R>(sql, params.values);
  });
}

/** The name and headline part of search_tsv (its label A), as migration 013 indexes it. */
const HEADLINE_TSV = `ts_filter(search_tsv, '{a}')`;

/**
 * A BM25 tier that may match more rows than this is read headline first (`headlineFirst`); below
 * it the tier is read whole (a couple of thousand rows take ~15 ms), and ranked exactly.
 */
export const HEADLINE_FIRST_ROWS = 2_000;

/**
 * Tiers, each a tsquery expression and whether to read it headline first, as conditions over a
 * row, with the order of each: a split tier's two parts (the rows holding the query in their name
 * or headline, then the others — legStatement adds NOT of the earlier tiers) share their place,
 * so their rows are ranked together by score.
 */
function headlineFirst(tiers: readonly { query: string; split: boolean }[]): Pick<LegSql, 'tiers' | 'tierOrder'> {
  const split = tiers.flatMap(({ query, split }, order) =>
    split ? [{ condition: `${HEADLINE_TSV} @@ ${query}`, order }, { condition: `search_tsv @@ ${query}`, order }] : [{ condition: `search_tsv @@ ${query}`, order }],
  );
  return { tiers: split.map((t) => t.condition), tierOrder: split.map((t) => t.order) };
}

/**
 * Full text over search_tsv: tiers of tsquery texts, each tier ordered by ts_rank against
 * `rankQuery`, each read headline first (ts_rank weighs a name or headline word five times a bio's).
 */
function fullTextLeg(tiers: string[], rankQuery: string, limits: RetrieveLimits, params: Params): LegSql {
  const rank = params.add(rankQuery, 'text');
  return {
    columns: [],
    ...headlineFirst(tiers.map((t) => ({ query: `to_tsquery('english', ${params.add(t, 'text')})`, split: true }))),
    score: `ts_rank(search_tsv, to_tsquery('english', ${rank}), 1)`,
    tierLimit: limits.perLeg,
    enough: limits.perLeg,
    window: limits.window,
  };
}

/**
 * Tiers of terms (quoted tsquery operands): all of them; then (3 to 5) all but one; then any. With
 * each, the most rows it can match (from the terms' document frequencies).
 */
export function lexemeTiers(terms: readonly Pick<QueryTerm, 'term' | 'df'>[]): { query: string; rows: number }[] {
  const unique = [...new Map(terms.map((t) => [t.term, t])).values()];
  const w = unique.map((t) => lexemeQuery(t.term));
  const df = unique.map((t) => t.df);
  const least = (skip: number) => Math.min(...df.filter((_, i) => i !== skip));
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  if (w.length === 0) return [];
  if (w.length === 1) return [{ query: w[0]!, rows: df[0]! }];
  const tiers = [{ query: w.join(' & '), rows: Math.min(...df) }];
  if (w.length >= 3 && w.length <= 5) {
    tiers.push({ query: w.map((_, skip) => `(${w.filter((__, i) => i !== skip).join(' & ')})`).join(' | '), rows: sum(w.map((_, skip) => least(skip))) });
  }
  tiers.push({ query: w.join(' | '), rows: sum(df) });
  return tiers;
}

/**
 * The query's own words, scored by BM25 (bm25.ts): each matching row's term frequencies
 * (search.term_frequency, one ts_rank call per term) and stored length, with the idf and average
 * length of the corpora searched. Candidates: the rarer terms — all of them, all but one, any —
 * then, while too few, any scored term; a tier whose terms' document frequencies allow more than
 * HEADLINE_FIRST_ROWS matches is read headline first. Rows of all tiers are ordered by their BM25 score.
 */
function bm25Leg(stats: QueryStats, limits: RetrieveLimits, params: Params): LegSql {
  const tiers = lexemeTiers(stats.candidateTerms);
  if (stats.terms.length > stats.candidateTerms.length) {
    tiers.push({ query: stats.terms.map((t) => lexemeQuery(t.term)).join(' | '), rows: stats.terms.reduce((n, t) => n + t.df, 0) });
  }
  const computed = stats.terms.map((t, i) => `search.term_frequency(tsv, ${params.add(lexemeQuery(t.term), 'tsquery')}) AS tf${i}`);
  const norm = `(${1 - B} + ${B} * doc_length / ${params.add(stats.avgLength, 'float8')})`;
  const parts = stats.terms.map((t, i) => `${params.add(t.idf, 'float8')} * tf${i} * ${K1 + 1} / (tf${i} + ${K1} * ${norm})`);
  return {
    columns: [],
    computed,
    mergeTiers: true,
    ...headlineFirst(tiers.map((t) => ({ query: params.add(t.query, 'tsquery'), split: t.rows > HEADLINE_FIRST_ROWS }))),
    score: parts.length > 0 ? `(${parts.join(' + ')})` : '0::float8',
    tierLimit: limits.perLeg,
    enough: limits.perLeg,
    window: limits.window,
  };
}

export interface LegsRequest {
  scope: Scope;
  /** The query as typed (name similarity). */
  query: string;
  /** The query's own words (content words, or every word when all are stop words). */
  words: string[];
  expansions: readonly Expansion[];
  /** Lexemes searched for misspelled words (spelling.ts): scored by BM25 at a lower weight. */
  corrected: readonly string[];
  /** pg_trgm is installed: the name leg also finds misspelled names. */
  trigram: boolean;
}

export interface Retrieved {
  legs: Map<LegName, LegRow[]>;
  /** The query's BM25 terms and statistics over the scope (the reranker scores with them). */
  stats: QueryStats;
}

/**
 * Runs the three legs concurrently; each leg's rows best first (the name leg: in profile id order).
 * The full-text leg first reads its terms' statistics (one short statement).
 */
export async function retrieveLegs(db: Queryable, request: LegsRequest, limits: RetrieveLimits): Promise<Retrieved> {
  const { scope, words, expansions } = request;
  const synonymQuery = buildTsQuery(expansions.map((e) => e.term));
  const corpora = corporaOf(scope);
  const stats = corpora.length > 0 ? queryStats(db, words.join(' '), corpora, request.corrected) : Promise.resolve<QueryStats>({ terms: [], rerankTerms: [], candidateTerms: [], docs: 0, avgLength: 1 });
  const [fullText, synonyms, names] = await Promise.all([
    stats.then((s) => (s.terms.length > 0 ? runLeg(db, scope, (p) => bm25Leg(s, limits, p)) : null)),
    // The synonyms leg reads half the window: it weighs 0.6 in the fusion, and its long tsqueries
    // (phrases, twenty terms) make each row dearer to recheck and rank.
    synonymQuery
      ? runLeg(db, scope, (p) => fullTextLeg(expansionTiers(expansions), synonymQuery, { ...limits, window: Math.ceil(limits.window / 2) }, p))
      : Promise.resolve(null),
    runLeg<LegRow & { name: string; organization: string | null }>(db, scope, (p) => nameLeg(request, limits, p)),
  ]);
  const legs = new Map<LegName, LegRow[]>();
  if (fullText) legs.set('full-text', fullText);
  if (synonyms) legs.set('synonyms', synonyms);
  legs.set('name/organization', names);
  return { legs, stats: await stats };
}

/**
 * People whose name or organization starts with the query's words (prefix match on name_tsv,
 * unstemmed): all the words first, then any; with pg_trgm installed, then those whose name or
 * organization resembles the query (misspelled). In profile id order; the ranker orders them by
 * trigram word similarity.
 */
function nameLeg(request: LegsRequest, limits: RetrieveLimits, params: Params): LegSql {
  // No all-but-one tier: a name or an organization has few words, and prefix matching of many
  // words is the dearest part of the GIN lookup.
  const prefixTiers = wordTiers(request.words.filter((w) => safe(w).length >= 2), { suffix: ':*', allButOne: false });
  const tiers = prefixTiers.map((t) => `name_tsv @@ to_tsquery('simple', ${params.add(t, 'text')})`);
  if (prefixTiers.length > 0 && request.trigram) {
    // `query <% name` is word_similarity(query, name) >= pg_trgm.word_similarity_threshold (set to
    // 0.5 below; pg_trgm's default 0.6 holds on a handle without transactions), in the operator
    // form a trigram index on name or organization can serve.
    const query = params.add(request.query, 'text');
    tiers.push(`(${query} <% name OR ${query} <% organization)`);
  }
  return {
    columns: ['name', 'organization'],
    tiers,
    score: null,
    // More rows than the leg keeps: the ranker drops those too unlike the query.
    tierLimit: limits.perLeg * 5,
    enough: limits.perLeg,
    // It orders by profile id, not by relevance: a smaller sample serves it as well.
    window: Math.ceil(limits.window / 5),
    settings: request.trigram ? { 'pg_trgm.word_similarity_threshold': '0.5' } : {},
  };
}
