// The caller's live read reach, asked of communities as the caller: a community run's poll and a
// member's enrichment data are fenced to it, whatever was true when the run started.
import { Access } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { asCallerOf } from '../kit/grpc/acting.js';
import type { ServiceContext } from '../kit/grpc/server.js';
import { domainError, relayOrUnavailable } from '../kit/grpc/errors.js';
import type { EnrichmentContext } from './enrichment-context.js';

/** Refuses (403) a community outside the caller's read reach. */
export async function requireReadReach(context: EnrichmentContext, ctx: ServiceContext, communityId: string): Promise<void> {
  const { deps } = context;
  const asCaller = asCallerOf(ctx, deps.deadlineMs, deps.signer);
  const { communityIds } = await deps.clients.communities.getReach({ access: Access.ACCESS_READ }, asCaller).catch(relayOrUnavailable);
  if (!communityIds.includes(communityId)) throw domainError('forbidden', `community ${communityId} is outside this credential's read reach`);
}
