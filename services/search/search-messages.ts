// Search rows as proto messages and back: a stored job as the SearchJob a poll shows, an indexed
// document as the row the corpus stores, a re-index run as GetReindexRun reports it, and the scope
// enum by name. One mapping for every handler and domain module of the service.
import {
  SearchScope,
  SearchStatus,
  type Document,
  type GetReindexRunResponse,
  type SearchJob,
} from '../../proto/gen/expertnet/search/v1/search_service.js';
import type { IndexedDocument, ReindexRunRow } from './search-corpus.repository.js';
import type { JobRow, JobScope } from './search-jobs.repository.js';

/** What an unfinished job tells its poller to wait before polling again. */
export const POLL_AFTER_SECONDS = 2;

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

export function toJob(row: JobRow): SearchJob {
  const matches =
    row.status === 'complete'
      ? (row.matches ?? []).map((m) => ({
          profileId: m.profileId,
          userId: m.userId ?? '',
          name: m.name,
          headline: m.headline ?? '',
          organization: m.organization ?? '',
          location: m.location ?? '',
          avatarUrl: m.avatarUrl ?? '',
          score: m.score,
          semanticScore: m.semanticScore,
          explanation: m.explanation ?? '',
          sharedCommunities: m.sharedCommunities,
          weakMatch: m.weakMatch ?? false,
        }))
      : [];
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
