// Recent runs (GET /v1/communities/{id}/enrich/runs and GET /v1/me/enrich/runs): a community's runs
// — enrich:read and the community in the caller's read reach, asked of communities as the caller,
// live (outside it is 403, whatever the runs) — or the caller's own self-enrichment runs
// (self:enrich; a credential without a user has none). Newest first, keyset pages; each run as a
// poll shows it, without its items.
import type { ListRunsRequest, ListRunsResponse } from '../../proto/gen/expertnet/enrichment/v1/enrichment_service.js';
import { Access } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { asCallerOf } from '../kit/grpc/acting.js';
import { domainError, relayOrUnavailable } from '../kit/grpc/errors.js';
import { requireCaller } from '../kit/grpc/require-caller.js';
import type { ServiceContext } from '../kit/grpc/server.js';
import { requireId } from '../kit/ids.js';
import { decodeListCursor, encodeListCursor } from '../kit/list-cursor.js';
import { clampPageSize, pageOf } from '../kit/paging.js';
import type { ServiceDeps } from '../kit/service-deps.js';
import { toRun } from './enrichment-messages.js';
import { createRunListRepository, type RunOwner } from './run-list.repository.js';
import { createRunsRepository } from './runs.repository.js';

export const RUNS_PAGE_DEFAULT = 20;
export const RUNS_PAGE_MAX = 100;

type Deps = Pick<ServiceDeps, 'db' | 'clients' | 'signer' | 'deadlineMs'>;

export async function listRuns(deps: Deps, request: ListRunsRequest, ctx: ServiceContext): Promise<ListRunsResponse> {
  const communityId = request.communityId.trim();
  const caller = requireCaller(ctx, communityId ? 'enrich:read' : 'self:enrich');
  let owner: RunOwner | undefined;
  if (communityId) {
    requireId(communityId, 'community_id');
    const asCaller = asCallerOf(ctx, deps.deadlineMs, deps.signer);
    const { communityIds } = await deps.clients.communities.getReach({ access: Access.ACCESS_READ }, asCaller).catch(relayOrUnavailable);
    if (!communityIds.includes(communityId)) throw domainError('forbidden', `community ${communityId} is outside this credential's read reach`);
    owner = { communityId };
  } else if (caller.userId) {
    owner = { userId: caller.userId };
  }
  // The cursor is bound to its list: a community's runs, or the caller's own.
  const list = communityId ? `runs:${communityId}` : 'runs:self';
  const after = request.pageToken ? decodeListCursor(list, request.pageToken, true) : undefined;
  if (!owner) return { runs: [], nextPageToken: '' };
  const limit = clampPageSize(request.pageSize, RUNS_PAGE_DEFAULT, RUNS_PAGE_MAX);
  const repo = createRunListRepository(deps.db);
  const rows = await repo.page(owner, after && { at: after.at!, id: after.id }, limit + 1);
  const page = pageOf(rows, limit, (last) => encodeListCursor(list, { id: last.id, at: last.created_key }));
  const counts = await createRunsRepository(deps.db).countsOf(page.items.map((r) => r.id));
  return { runs: page.items.map((row) => toRun(row, counts.get(row.id)!)), nextPageToken: page.nextPageToken };
}
