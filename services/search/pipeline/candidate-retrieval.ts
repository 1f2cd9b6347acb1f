// The ranker's second phase: candidates per leg, the legs run concurrently — the tiered and
// bounded full-text, synonyms and name/organization legs (retrieve.ts) and the nearest neighbours
// of the query's vector (vectors.ts). Only documents of the requested scope are read.
import type { Queryable } from '../../kit/db/database.js';
import { inStep } from '../../kit/telemetry.js';
import type { QueryStats } from './bm25.js';
import { type LegName, type LegRow, retrieveLegs } from './retrieve.js';
import { wordSimilarity } from './text.js';
import type { Expansion } from './wordnet.js';

export interface CandidateRequest {
  scope: { communityIds: string[]; includePublic: boolean };
  query: string;
  /** The query's words (content words, or every word when it has none). */
  words: string[];
  expansions: readonly Expansion[];
  /** Lexemes searched for misspelled words (spelling.ts), at a lower weight. */
  corrected: readonly string[];
}

export interface CandidateSources {
  /** Whether pg_trgm is installed (the name leg then uses it). */
  trigram: () => Promise<boolean>;
  /** The nearest-neighbour leg's rows (none when the query's vector is not the stored vectors' embedder's). */
  nearest: () => Promise<LegRow[]>;
  /** Rows each leg returns at most. */
  perLeg: number;
  /** Matching rows one tier of the full-text leg reads and ranks at most. */
  window: number;
}

/** Each leg's rows, best first, and the query's BM25 statistics over the scope. */
export async function retrieveCandidates(
  db: Queryable,
  request: CandidateRequest,
  sources: CandidateSources,
): Promise<{ legs: Map<LegName, LegRow[]>; stats: QueryStats }> {
  const { scope, query, words, expansions, corrected } = request;
  return inStep('search.retrieve', { 'search.expansions': expansions.length }, async (span) => {
    const [{ legs: found, stats }, nearest] = await Promise.all([
      sources.trigram().then((trigram) =>
        retrieveLegs(db, { scope, query, words, expansions, corrected, trigram }, { perLeg: sources.perLeg, window: sources.window }),
      ),
      sources.nearest(),
    ]);
    found.set('name/organization', byNameSimilarity(query, found.get('name/organization') ?? [], sources.perLeg));
    if (nearest.length > 0) found.set('vector', nearest);
    let candidates = 0;
    for (const rows of found.values()) candidates += rows.length;
    span.setAttribute('search.candidates', candidates);
    return { legs: found, stats };
  });
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
