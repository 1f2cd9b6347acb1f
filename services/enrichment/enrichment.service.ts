// The enrichment service (docs/ENRICHMENT.md): self-enrichment and community enrichment runs,
// worked by the in-process run worker (run-worker.ts) through the provider pipeline (./pipeline),
// and each community's enrichment data of a person. Each handler delegates to the domain module
// named for what it does (community-runs.ts, self-runs.ts, run-polls.ts, member-enrichment.ts) and
// maps the result with enrichment-messages.ts.
import { EnrichmentServiceDefinition } from '../../proto/gen/expertnet/enrichment/v1/enrichment_service.js';
import { requireCaller } from '../kit/grpc/require-caller.js';
import type { ServiceRegistration } from '../kit/grpc/server.js';
import { gaugeFromStore } from '../kit/metrics.js';
import * as communityRuns from './community-runs.js';
import { createEnrichmentContext, type EnrichmentDeps, type EnrichmentServiceOptions } from './enrichment-context.js';
import { toEnrichedAt, toMemberEnrichment } from './enrichment-messages.js';
import * as memberEnrichment from './member-enrichment.js';
import { listRuns } from './run-listing.js';
import { getRun } from './run-polls.js';
import { startSelfRun } from './self-runs.js';

export function createEnrichmentService(deps: EnrichmentDeps, options: EnrichmentServiceOptions = {}) {
  const context = createEnrichmentContext(deps, options);
  const { worker } = context;
  worker.start();
  // Queue depth, read from the store when /metrics is scraped (every replica reports the same total).
  gaugeFromStore('enrichment_runs_open', 'Enrichment runs queued or running (all replicas).', () => worker.countOpen());

  const implementation: ServiceRegistration<typeof EnrichmentServiceDefinition>['implementation'] = {
    async startCommunityRun(request, ctx) {
      const caller = requireCaller(ctx, 'enrich:write');
      const outcome = await communityRuns.startCommunityRun(context, caller, request, ctx);
      return 'estimate' in outcome ? { estimate: outcome.estimate, eligibleCount: outcome.estimate.eligibleCount } : outcome;
    },

    async startSelfRun(_request, ctx) {
      const caller = requireCaller(ctx, 'self:enrich');
      return { run: await startSelfRun(context, caller, ctx.requestId) };
    },

    async getRun(request, ctx) {
      const caller = requireCaller(ctx, request.communityId.trim() ? 'enrich:read' : 'self:enrich');
      return getRun(context, caller, request, ctx);
    },

    async getMemberEnrichment(request, ctx) {
      const row = await memberEnrichment.getMemberEnrichment(context, request, ctx);
      return { enrichment: row && toMemberEnrichment(row) };
    },

    async getOwnEnrichment(_request, ctx) {
      const caller = requireCaller(ctx, 'profile:read');
      const row = await memberEnrichment.getOwnEnrichment(context, caller);
      return { enrichment: row && toMemberEnrichment(row) };
    },

    async listEnrichedAt(request) {
      return { entries: (await memberEnrichment.listEnrichedAt(context, request)).map(toEnrichedAt) };
    },

    async eraseMemberEnrichment(request) {
      return { erased: await memberEnrichment.eraseMemberEnrichment(context, request) };
    },

    listRuns: (request, ctx) => listRuns(context.deps, request, ctx),
  };

  const registration: ServiceRegistration<typeof EnrichmentServiceDefinition> = {
    definition: EnrichmentServiceDefinition,
    implementation,
    access: {
      startCommunityRun: ['caller', 'direct'],
      startSelfRun: ['caller', 'direct'],
      getRun: ['caller', 'direct'],
      listRuns: ['caller', 'direct'],
      getMemberEnrichment: ['caller', 'service'],
      getOwnEnrichment: ['caller'],
      // Communities asks after its own reach check of the caller.
      listEnrichedAt: ['service'],
      eraseMemberEnrichment: ['service', 'operator'],
    },
  };
  return { registration, stop: () => worker.stop(), worker };
}
