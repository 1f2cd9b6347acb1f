// The rules of a search request (docs/SEARCH.md): validation, scope against the caller's live read
// reach, funds before work, then the job, run here and waited for at most wait_seconds
// (job-waits.ts); and the poll of a job, fenced to the credential that started it. Ranking is the
// pipeline's (./pipeline), which never widens the set it is given.
import { randomUUID } from 'node:crypto';
import { Caller } from '../../proto/gen/expertnet/common/v1/common.js';
import { Access } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import type { GetSearchRequest, StartSearchRequest } from '../../proto/gen/expertnet/search/v1/search_service.js';
import { asCallerOf } from '../kit/grpc/acting.js';
import { domainError, relayOrUnavailable } from '../kit/grpc/errors.js';
import type { ServiceContext } from '../kit/grpc/server.js';
import { SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX, SEARCH_QUERY_MAX, WAIT_SECONDS_DEFAULT, WAIT_SECONDS_MAX } from '../kit/search-limits.js';
import { waitForJob } from './job-waits.js';
import { checkSearchFunds } from './search-billing.js';
import type { SearchContext } from './search-context.js';
import type { JobRow, JobScope } from './search-jobs.repository.js';
import { scopeName } from './search-messages.js';

interface StartInput {
  query: string;
  scope: JobScope;
  communityId: string | null;
  limit: number;
  waitSeconds: number;
}

/** The request rules of POST /v1/search (the edge's schema refuses the same, first). */
function startInput(request: StartSearchRequest): StartInput {
  const query = request.query.trim();
  if (!query || query.length > SEARCH_QUERY_MAX) throw domainError('invalid_request', `query must hold 1 to ${SEARCH_QUERY_MAX} characters`);
  const scope = scopeName(request.scope);
  if (!scope) throw domainError('invalid_request', 'scope must be community, all or public');
  const communityId = request.communityId.trim() || null;
  if (scope === 'community' && !communityId) throw domainError('invalid_request', 'community_id is required when scope is community');
  const waitSeconds = request.waitSeconds ?? WAIT_SECONDS_DEFAULT;
  if (waitSeconds > WAIT_SECONDS_MAX) throw domainError('invalid_request', `wait_seconds must be 0 to ${WAIT_SECONDS_MAX}`);
  return { query, scope, communityId: scope === 'community' ? communityId : null, limit: Math.min(request.limit || SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX), waitSeconds };
}

/** The communities the job searches: the scope within the caller's read reach. */
function communitiesSearched(input: StartInput, reach: string[]): string[] {
  if (input.scope === 'community') {
    // Fail closed: a community outside reach is 403, never an empty result.
    if (!reach.includes(input.communityId!)) {
      throw domainError('forbidden', `community ${input.communityId} is outside this credential's read reach`);
    }
    return [input.communityId!];
  }
  if (input.scope === 'all') {
    // No fallback to the public corpus: an empty authorized set searches nothing.
    if (reach.length === 0) {
      throw domainError('unprocessable', 'scope all needs at least one community this credential may read; use scope public for public profiles');
    }
    return reach;
  }
  return [];
}

/**
 * Starts a search and answers its job: complete, or pending when it outlived wait_seconds (it runs
 * on, to be polled). A job that failed within the wait is refused (search_unavailable).
 */
export async function startSearch(context: SearchContext, caller: Caller, request: StartSearchRequest, ctx: ServiceContext): Promise<JobRow> {
  const { deps } = context;
  const input = startInput(request);

  // Scope against the live read reach (allowlist applied, archived communities out).
  const asCaller = asCallerOf(ctx, deps.deadlineMs, deps.signer);
  const reach = (await deps.clients.communities.getReach({ access: Access.ACCESS_READ }, asCaller).catch(relayOrUnavailable)).communityIds;
  const communityIds = communitiesSearched(input, reach);

  // Funds before work; the payer is kept for the charge.
  const payer = await checkSearchFunds(deps, caller, input.communityId, ctx.requestId);

  const job = await context.jobs.insert({
    id: `srch_${randomUUID().replaceAll('-', '')}`,
    credentialId: caller.credentialId,
    caller: Caller.toJSON(caller),
    query: input.query,
    scope: input.scope,
    namedCommunityId: input.communityId,
    communityIds,
    includePublic: input.scope !== 'community',
    reachIds: reach,
    limit: input.limit,
    payer,
    requestId: ctx.requestId,
  });
  deps.logger.info({ requestId: ctx.requestId, searchId: job.id, scope: input.scope, communities: communityIds.length }, 'search started');

  const row = await waitForJob(context, job, Date.now() + input.waitSeconds * 1000);
  if (row.status === 'failed') throw domainError('search_unavailable', 'the search backend is unavailable; start a new search');
  // Whatever a worker has done with an unfinished job, the call shows it pending.
  return row.status === 'complete' ? row : { ...row, status: 'pending' };
}

/**
 * A poll: the job as stored, charged on the way when its result is stored but not yet charged. A
 * finished, charged job is kept in memory and its next polls answered from there (finished-jobs.ts).
 */
export async function getSearch(context: SearchContext, caller: Caller, request: GetSearchRequest): Promise<JobRow> {
  // Fenced to the starting credential: unknown, foreign and expired are one answer.
  const kept = context.finished.find(request.searchId, caller.credentialId);
  if (kept) return kept;
  const row = request.searchId ? await context.jobs.findForCredential(request.searchId, caller.credentialId) : undefined;
  if (!row) throw domainError('not_found', `search ${request.searchId} not found`);
  // Stored but not yet recorded as charged (the worker is charging, or crashed before): charge by
  // reference — billing posts search:<id> once however many polls race here.
  if (row.status === 'complete' && !row.charged_at) await context.runner.chargeStored(row);
  else context.finished.keep(row);
  return row;
}
