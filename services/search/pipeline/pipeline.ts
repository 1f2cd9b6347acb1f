// The seam between search jobs (search.service.ts: scopes, jobs, billing) and ranking (this folder:
// embed → retrieve → fuse → rerank → explain). Jobs decide WHICH documents may be searched; the
// pipeline decides their ORDER and explains it, and never widens the set it is given.
import type { Database, Queryable } from '../../kit/db/database.js';

/** A row of search.documents: one person in one corpus (community_id '' is the public corpus). */
export interface DocumentRow {
  community_id: string;
  profile_id: string;
  user_id: string | null;
  name: string;
  headline: string | null;
  bio: string | null;
  organization: string | null;
  location: string | null;
  avatar_url: string | null;
  enrichment_text: string | null;
}

/**
 * Vectors made before a write, to be stored with the text they were made from: the embedder's
 * name, and each document's vector as an array literal by key (vectors.ts `documentKey`).
 */
export interface PreparedVectors {
  model: string;
  byKey: ReadonlyMap<string, string>;
}

export interface RankRequest {
  query: string;
  /** Community corpora to search (already authorized, allowlist applied). */
  communityIds: string[];
  /** Also search the public corpus (community_id '') of public claimed profiles. */
  includePublic: boolean;
  /** At most this many matches (already clamped to 50). */
  limit: number;
}

export interface RankedMatch {
  profileId: string;
  userId: string | null;
  name: string;
  headline: string | null;
  organization: string | null;
  location: string | null;
  avatarUrl: string | null;
  /**
   * Final score, 0–1, higher is better: a blend of the share of the request the profile holds (by
   * field), retrieval agreement, similarity in meaning and name resemblance (docs/SEARCH-RANKING.md).
   */
  score: number;
  /** The active embedder's similarity between query and person. */
  semanticScore: number;
  /** Little of the request is found in the profile (docs/SEARCH-RANKING.md, "Weak matches"). */
  weakMatch: boolean;
  /** Plain words: the request's words the profile holds, quoted in context, the place, the standing. */
  explanation: string;
  /** Of the requested communities, those whose corpus holds this person (empty for public-only hits). */
  matchedCommunityIds: string[];
}

export interface SearchPipeline {
  /** Which embedder is active (named in explanations). */
  readonly provider: string;
  rank(db: Queryable, request: RankRequest): Promise<RankedMatch[]>;
  /**
   * Stores the active embedder's vectors of these documents (of every document when `keys` is
   * omitted) where missing or made by another embedder; how many were stored.
   */
  storeVectors(db: Database, keys?: readonly { community_id: string; profile_id: string }[]): Promise<number>;
  /**
   * The active embedder's vectors of documents about to be written, made from the text they will
   * hold, for the write to store with it (vectors.ts `prepare`); none for a document whose stored
   * text and vector will do.
   */
  prepareVectors(db: Database, docs: readonly DocumentRow[]): Promise<PreparedVectors>;
}
