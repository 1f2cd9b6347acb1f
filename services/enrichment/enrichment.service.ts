// The enrichment service. This release keeps each community's enrichment data for a person: read
// (for the member read, re-checking the caller's reach) and erased (a step of the erasure saga).
// Runs, providers and dry runs arrive with the enrichment issue.
import { Access } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { Depth, EnrichmentServiceDefinition } from '../../proto/gen/expertnet/enrichment/v1/enrichment_service.js';
import { callAs } from '../kit/grpc/client.js';
import { domainError, relayRemoteError } from '../kit/grpc/errors.js';
import { requireCaller } from '../kit/grpc/require-caller.js';
import type { ServiceRegistration } from '../kit/grpc/server.js';
import type { ServiceDeps } from '../kit/service-deps.js';

const DEPTHS = { quick: Depth.DEPTH_QUICK, standard: Depth.DEPTH_STANDARD, deep: Depth.DEPTH_DEEP } as const;

export function createEnrichmentService(deps: Pick<ServiceDeps, 'db' | 'clients' | 'signer' | 'deadlineMs'>) {
  const implementation: ServiceRegistration<typeof EnrichmentServiceDefinition>['implementation'] = {
    async getMemberEnrichment(request, ctx) {
      if (ctx.principal.kind === 'caller') {
        // Re-check: the caller must reach the community (asked of communities, as the caller).
        const caller = requireCaller(ctx, 'profile:read');
        const as = await callAs(deps.signer, { kind: 'caller', caller }, ctx.requestId, deps.deadlineMs);
        const { communityIds } = await deps.clients.communities.getReach({ access: Access.ACCESS_READ }, as).catch(relayRemoteError);
        if (!communityIds.includes(request.communityId)) {
          throw domainError('forbidden', `community ${request.communityId} is outside this credential's read reach`);
        }
      }
      const rows = await deps.db.query<{ depth: keyof typeof DEPTHS; data: unknown; enriched_at: Date }>(
        'SELECT depth, data, enriched_at FROM enrichment.member_enrichment WHERE community_id = $1 AND profile_id = $2',
        [request.communityId, request.profileId],
      );
      const row = rows[0];
      return {
        enrichment: row && { depth: DEPTHS[row.depth], enrichedAt: row.enriched_at.toISOString(), dataJson: JSON.stringify(row.data) },
      };
    },

    async listEnrichedAt(request) {
      if (request.profileIds.length > 500) throw domainError('invalid_request', 'at most 500 profile ids per call');
      const rows = await deps.db.query<{ profile_id: string; enriched_at: Date }>(
        `SELECT profile_id, enriched_at FROM enrichment.member_enrichment
          WHERE community_id = $1 AND profile_id = ANY($2::text[])`,
        [request.communityId, request.profileIds],
      );
      return { entries: rows.map((r) => ({ profileId: r.profile_id, enrichedAt: r.enriched_at.toISOString() })) };
    },

    async eraseMemberEnrichment(request) {
      const rows = await deps.db.query(
        'DELETE FROM enrichment.member_enrichment WHERE community_id = $1 AND profile_id = $2 RETURNING profile_id',
        [request.communityId, request.profileId],
      );
      return { erased: rows.length };
    },
  };

  const registration: ServiceRegistration<typeof EnrichmentServiceDefinition> = {
    definition: EnrichmentServiceDefinition,
    implementation,
    access: {
      startCommunityRun: ['caller'],
      startSelfRun: ['caller'],
      getRun: ['caller'],
      getMemberEnrichment: ['caller', 'service'],
      // Communities asks after its own reach check of the caller.
      listEnrichedAt: ['service'],
      eraseMemberEnrichment: ['service', 'operator'],
    },
  };
  return { registration, stop: async () => undefined };
}
