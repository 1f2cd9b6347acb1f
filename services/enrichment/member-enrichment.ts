// Each community's enrichment data of a person (docs/ENRICHMENT.md): read for the member read
// (re-checking the caller's reach), a person's own data, when each member was enriched (for the
// roster), and erased as a step of the erasure saga.
import type {
  EraseMemberEnrichmentRequest,
  GetMemberEnrichmentRequest,
  ListEnrichedAtRequest,
} from '../../proto/gen/expertnet/enrichment/v1/enrichment_service.js';
import type { Caller } from '../../proto/gen/expertnet/common/v1/common.js';
import { domainError } from '../kit/grpc/errors.js';
import { requireCaller } from '../kit/grpc/require-caller.js';
import type { ServiceContext } from '../kit/grpc/server.js';
import type { EnrichmentContext } from './enrichment-context.js';
import { requireReadReach } from './read-reach.js';
import { createRunsRepository, type EnrichmentDataRow } from './runs.repository.js';

/** Most profile ids one ListEnrichedAt may name. */
const ENRICHED_AT_MAX = 500;

/** This community's data of the member; a caller must reach the community (services are trusted). */
export async function getMemberEnrichment(
  context: EnrichmentContext,
  request: GetMemberEnrichmentRequest,
  ctx: ServiceContext,
): Promise<EnrichmentDataRow | undefined> {
  if (ctx.principal.kind === 'caller') {
    // Re-check: the caller must reach the community (asked of communities, as the caller).
    requireCaller(ctx, 'profile:read');
    await requireReadReach(context, ctx, request.communityId);
  }
  return context.memberEnrichment({ communityId: request.communityId, profileId: request.profileId });
}

/** The caller's own data (self-enrichment); none for a credential without a user. */
export async function getOwnEnrichment(context: EnrichmentContext, caller: Caller): Promise<EnrichmentDataRow | undefined> {
  return caller.userId ? context.runs.selfEnrichment(caller.userId) : undefined;
}

export async function listEnrichedAt(context: EnrichmentContext, request: ListEnrichedAtRequest): Promise<{ profile_id: string; enriched_at: Date }[]> {
  if (request.profileIds.length > ENRICHED_AT_MAX) throw domainError('invalid_request', `at most ${ENRICHED_AT_MAX} profile ids per call`);
  return context.enrichedAt({ communityId: request.communityId, profileIds: request.profileIds });
}

/** A step of the erasure saga; returns how many data rows were erased. */
export async function eraseMemberEnrichment(context: EnrichmentContext, request: EraseMemberEnrichmentRequest): Promise<number> {
  return context.deps.db.transaction((tx) => createRunsRepository(tx).eraseMember(request.communityId, request.profileId));
}
