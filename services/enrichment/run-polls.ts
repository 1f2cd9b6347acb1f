// A run's poll (docs/ENRICHMENT.md): the run as run-page.ts builds it, behind the fence of a poll:
// a community's run within the caller's live read reach, a self run to the person it is about.
import type { Caller } from '../../proto/gen/expertnet/common/v1/common.js';
import type { GetRunRequest, GetRunResponse } from '../../proto/gen/expertnet/enrichment/v1/enrichment_service.js';
import { domainError } from '../kit/grpc/errors.js';
import type { ServiceContext } from '../kit/grpc/server.js';
import type { EnrichmentContext } from './enrichment-context.js';
import { requireReadReach } from './read-reach.js';
import { runPage } from './run-page.js';

/** A poll: with a community, that community's run (enrich:read); without, the caller's own (self:enrich). */
export async function getRun(context: EnrichmentContext, caller: Caller, request: GetRunRequest, ctx: ServiceContext): Promise<GetRunResponse> {
  const communityId = request.communityId.trim();
  const row = request.runId ? await context.runs.find(request.runId) : undefined;
  if (communityId) {
    // Fenced to the community's read reach, live: outside it is 403, whatever the run.
    await requireReadReach(context, ctx, communityId);
    if (!row || row.kind !== 'community' || row.community_id !== communityId) throw domainError('not_found', `run ${request.runId} not found in community ${communityId}`);
  } else if (!row || row.kind !== 'self' || row.user_id !== caller.userId) {
    // Fenced to the caller: another person's run is not found.
    throw domainError('not_found', `run ${request.runId} not found`);
  }
  return runPage(context.runs, row, request.itemsAfter);
}
