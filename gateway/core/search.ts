// POST /v1/search and GET /v1/search/{search_id}: the search service, asked as the caller (it
// re-checks the scope, the read reach and funds, runs the job and fences polls to the credential).
// StartSearch may wait up to wait_seconds, so its deadline is the usual one plus that wait.
import { SearchScope, SearchStatus, type Match, type SearchJob } from '../../proto/gen/expertnet/search/v1/search_service.js';
import { POLL_AFTER_SECONDS } from '../../services/kit/search-limits.js';
import { ApiError, fromRemote } from './api-error.js';
import type { z } from 'zod';
import type { SearchComplete, SearchMatch, SearchPending, SearchPoll, SearchRequest } from './contract/search.js';
import type { CallerContext, Edge } from './edge.js';

// The views are the contract's response shapes, inferred from their schemas (one declaration).
export type SearchMatchView = z.output<typeof SearchMatch>;
export type SearchCompleteView = z.output<typeof SearchComplete>;
export type SearchPendingView = z.output<typeof SearchPending>;
export type SearchPollView = z.output<typeof SearchPoll>;

const SCOPES = {
  community: SearchScope.SEARCH_SCOPE_COMMUNITY,
  all: SearchScope.SEARCH_SCOPE_ALL,
  public: SearchScope.SEARCH_SCOPE_PUBLIC,
} as const;


/** A match message as the contract shows it — the one mapping of a match at the edge. An unset field is null. */
function matchView(m: Match): SearchMatchView {
  return {
    profile_id: m.profileId,
    user_id: m.userId ?? null,
    name: m.name,
    headline: m.headline ?? null,
    organization: m.organization ?? null,
    location: m.location ?? null,
    avatar_url: m.avatarUrl ?? null,
    score: m.score,
    semantic_score: m.semanticScore,
    explanation: m.explanation ?? null,
    shared_communities: m.sharedCommunities,
    weak_match: m.weakMatch,
  };
}

/** A finished search's view; the service says `no_good_match` (every match weak, or none found: docs/SEARCH.md). */
function completeView(job: SearchJob): SearchCompleteView {
  return { search_id: job.searchId, status: 'complete', matches: job.matches.map(matchView), no_good_match: job.noGoodMatch };
}

function jobOf(response: { job?: SearchJob | undefined }): SearchJob {
  if (!response.job) throw new ApiError(500, 'internal', 'internal error');
  return response.job;
}

export async function startSearch(edge: Edge, ctx: CallerContext, body: SearchRequest): Promise<SearchCompleteView | SearchPendingView> {
  try {
    const options = await edge.as(ctx);
    const deadline = typeof options.deadline === 'number' ? options.deadline + body.wait_seconds * 1000 : options.deadline;
    const job = jobOf(
      await edge.clients.search.startSearch(
        { query: body.query, scope: SCOPES[body.scope], communityId: body.community_id ?? '', limit: body.limit, waitSeconds: body.wait_seconds },
        { ...options, deadline },
      ),
    );
    if (job.status === SearchStatus.SEARCH_STATUS_COMPLETE) {
      return completeView(job);
    }
    return { search_id: job.searchId, status: 'pending', poll_after_seconds: job.pollAfterSeconds || POLL_AFTER_SECONDS };
  } catch (error) {
    throw fromRemote(error);
  }
}

export async function getSearch(edge: Edge, ctx: CallerContext, searchId: string): Promise<SearchPollView> {
  try {
    // A finished search is kept in one place, the search service (services/search/finished-jobs.ts):
    // it answers every surface — REST, MCP and direct gRPC — and checks the fence and the expiry.
    return searchPollView(jobOf(await edge.clients.search.getSearch({ searchId }, await edge.as(ctx))));
  } catch (error) {
    throw fromRemote(error);
  }
}

/** A search's poll (also the data of a search's events). */
export function searchPollView(job: SearchJob): SearchPollView {
  switch (job.status) {
    case SearchStatus.SEARCH_STATUS_COMPLETE:
      return completeView(job);
    case SearchStatus.SEARCH_STATUS_FAILED:
      return { search_id: job.searchId, status: 'failed' };
    default:
      // pending and running both read "running" on a poll (the spec's poll states).
      return { search_id: job.searchId, status: 'running', poll_after_seconds: job.pollAfterSeconds || POLL_AFTER_SECONDS };
  }
}
