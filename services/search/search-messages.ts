// Search rows as proto messages and back: a ranked person as the Match a job stores and answers, a
// stored job as the SearchJob a poll shows, an indexed document as the row the corpus stores, a
// re-index run as GetReindexRun reports it, and the scope enum by name. One mapping for every
// handler and domain module of the service.
import {
  Match,
  SearchScope,
  SearchStatus,
  type Document,
  type GetReindexRunResponse,
  type SearchJob,
} from '../../proto/gen/expertnet/search/v1/search_service.js';
import { POLL_AFTER_SECONDS } from '../kit/search-limits.js';
import type { RankedMatch } from './pipeline/pipeline.js';
import type { IndexedDocument, ReindexRunRow } from './search-corpus.repository.js';
import type { JobRow, JobScope } from './search-jobs.repository.js';


const SCOPES: Partial<Record<SearchScope, JobScope>> = {
  [SearchScope.SEARCH_SCOPE_COMMUNITY]: 'community',
  [SearchScope.SEARCH_SCOPE_ALL]: 'all',
  [SearchScope.SEARCH_SCOPE_PUBLIC]: 'public',
};

/** The scope's name; undefined for an unset or unknown value. */
export function scopeName(scope: SearchScope): JobScope | undefined {
  return SCOPES[scope];
}

const STATUS: Record<JobRow['status'], SearchStatus> = {
  pending: SearchStatus.SEARCH_STATUS_PENDING,
  running: SearchStatus.SEARCH_STATUS_RUNNING,
  complete: SearchStatus.SEARCH_STATUS_COMPLETE,
  failed: SearchStatus.SEARCH_STATUS_FAILED,
};

export const isFinished = (row: JobRow) => row.status === 'complete' || row.status === 'failed';

/** An absent value (null, or empty text) is an unset optional field: the API's null. */
const present = (s: string | null) => s || undefined;

/**
 * A ranked person as the match a job stores and a poll answers — the one mapping of a match in the
 * service. `sharedCommunities` are the caller's readable communities holding the person.
 */
export function toMatch(m: RankedMatch, sharedCommunities: string[]): Match {
  return {
    profileId: m.profileId,
    userId: present(m.userId),
    name: m.name,
    headline: present(m.headline),
    organization: present(m.organization),
    location: present(m.location),
    avatarUrl: present(m.avatarUrl),
    score: m.score,
    semanticScore: m.semanticScore,
    explanation: present(m.explanation),
    sharedCommunities,
    weakMatch: m.weakMatch,
  };
}

export function toJob(row: JobRow): SearchJob {
  // Stored as the messages' JSON; read through Match.fromJSON, which also reads rows stored before
  // matches were messages (null for an absent value, no weakMatch).
  const matches = row.status === 'complete' ? (row.matches ?? []).map((m) => Match.fromJSON(m)) : [];
  return {
    searchId: row.id,
    status: STATUS[row.status],
    matches,
    // Said once for the answer (docs/SEARCH.md, "What a match says").
    noGoodMatch: row.status === 'complete' && matches.every((m) => m.weakMatch),
    pollAfterSeconds: isFinished(row) ? 0 : POLL_AFTER_SECONDS,
    error: row.status === 'failed' ? 'the search failed; start a new one' : '',
    expiresAt: row.expires_at?.toISOString(),
  };
}

const text = (s: string) => (s.trim() === '' ? null : s);

/** A document as the corpus stores it: blank optional text is stored as null. */
export function toIndexedDocument(d: Document): IndexedDocument {
  return {
    community_id: d.communityId,
    profile_id: d.profileId,
    user_id: text(d.userId),
    name: d.name,
    headline: text(d.headline),
    bio: text(d.bio),
    organization: text(d.organization),
    location: text(d.location),
    avatar_url: text(d.avatarUrl),
    enrichment_text: text(d.enrichmentText),
  };
}

/** A re-index run and the embedder in use; no run (none yet) is run 0 with nothing counted. */
export function toReindexRun(found: ReindexRunRow | undefined, embedder: string): GetReindexRunResponse {
  if (!found) {
    return { run: 0, startedAt: undefined, updatedAt: undefined, expectedDocuments: 0, indexedDocuments: 0, embeddedDocuments: 0, embedder, pruned: false, removed: 0 };
  }
  return {
    run: found.id,
    startedAt: new Date(found.started_at).toISOString(),
    updatedAt: new Date(found.updated_at).toISOString(),
    expectedDocuments: found.expected_documents,
    indexedDocuments: found.indexed_documents,
    embeddedDocuments: found.embedded_documents,
    embedder,
    pruned: found.pruned_at !== null,
    removed: found.removed ?? 0,
  };
}
