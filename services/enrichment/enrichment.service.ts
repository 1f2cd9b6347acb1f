// The enrichment service (docs/ENRICHMENT.md): self-enrichment and community enrichment runs,
// worked by the in-process run worker (run-worker.ts) through the provider pipeline (./pipeline),
// and each community's enrichment data of a person: read for the member read (re-checking the
// caller's reach) and erased as a step of the erasure saga.
import { Caller } from '../../proto/gen/expertnet/common/v1/common.js';
import { Access } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { EnrichmentServiceDefinition } from '../../proto/gen/expertnet/enrichment/v1/enrichment_service.js';
import type { Config } from '../kit/config.js';
import { callAs } from '../kit/grpc/client.js';
import { domainError, readRemoteError, relayOrUnavailable } from '../kit/grpc/errors.js';
import { requireCaller } from '../kit/grpc/require-caller.js';
import type { ServiceRegistration } from '../kit/grpc/server.js';
import { newId } from '../kit/ids.js';
import { gaugeFromStore } from '../kit/metrics.js';
import type { ServiceDeps } from '../kit/service-deps.js';
import { startCommunityRun } from './community-runs.js';
import { createEnrichmentPipeline, providerConfigFrom, type EnrichmentPipeline } from './pipeline/index.js';
import { createRunEffects, type RunEffects } from './run-effects.js';
import { listRuns } from './run-listing.js';
import { toItem, toMemberEnrichment, toRun } from './run-messages.js';
import { createRunWorker, SELF_DEPTH, type RunWorkerOptions } from './run-worker.js';
import { createRunsRepository, type RunRow } from './runs.repository.js';

export type EnrichmentDeps = Pick<ServiceDeps, 'db' | 'clients' | 'signer' | 'deadlineMs' | 'logger'> & {
  config: Pick<
    Config,
    | 'ORCID_API_URL'
    | 'OPENALEX_API_URL'
    | 'OPENALEX_MAILTO'
    | 'OPENALEX_API_KEY'
    | 'ORCID_RATE_PER_SECOND'
    | 'OPENALEX_RATE_PER_SECOND'
    | 'ENRICHMENT_HTTP_TIMEOUT_MS'
    | 'ENRICHMENT_HTTP_RETRIES'
    | 'ENRICHMENT_SUMMARY_URL'
    | 'ENRICHMENT_SUMMARY_MODEL'
    | 'ENRICHMENT_SUMMARY_API_KEY'
    | 'ENRICHMENT_CONCURRENCY'
    | 'ENRICHMENT_RUN_LEASE_MS'
  >;
};

export interface EnrichmentServiceOptions {
  /** The provider pipeline; the product's is built from the configuration. */
  pipeline?: EnrichmentPipeline;
  effects?: RunEffects;
  worker?: Pick<RunWorkerOptions, 'leaseMs' | 'maxAttempts' | 'tickMs' | 'runsAtOnce'>;
}

/** Items listed per poll. */
const ITEMS_PAGE = 100;

export function createEnrichmentService(deps: EnrichmentDeps, options: EnrichmentServiceOptions = {}) {
  const repo = createRunsRepository(deps.db);
  const effects = options.effects ?? createRunEffects(deps);
  const worker = createRunWorker({
    db: deps.db,
    pipeline: options.pipeline ?? createEnrichmentPipeline(providerConfigFrom(deps.config)),
    effects,
    logger: deps.logger,
    concurrency: deps.config.ENRICHMENT_CONCURRENCY,
    leaseMs: deps.config.ENRICHMENT_RUN_LEASE_MS,
    ...options.worker,
  });
  worker.start();
  // Queue depth, read from the store when /metrics is scraped (every replica reports the same total).
  gaugeFromStore('enrichment_runs_open', 'Enrichment runs queued or running (all replicas).', () => worker.countOpen());
  /** Starts work on a new run here and now, without waiting for it. */
  const kick = (runId: string) =>
    void worker.claimAndWork(runId).catch((err: unknown) => deps.logger.error({ err, runId }, 'enrichment run could not be claimed'));

  async function answer(row: RunRow, itemsAfter = '') {
    const [counts, items] = await Promise.all([repo.counts(row.id), repo.items(row.id, itemsAfter, ITEMS_PAGE)]);
    return {
      run: toRun(row, counts),
      items: items.map(toItem),
      nextItemsAfter: items.length === ITEMS_PAGE ? items[items.length - 1]!.profile_id : '',
    };
  }

  const implementation: ServiceRegistration<typeof EnrichmentServiceDefinition>['implementation'] = {
    async startCommunityRun(request, ctx) {
      const caller = requireCaller(ctx, 'enrich:write');
      const outcome = await startCommunityRun(deps, caller, request, ctx.requestId).catch(relayOrUnavailable);
      if ('estimate' in outcome) return { estimate: outcome.estimate, eligibleCount: outcome.estimate.eligibleCount };
      deps.logger.info({ requestId: ctx.requestId, runId: outcome.run.id, depth: outcome.run.depth, eligible: outcome.eligibleCount }, 'enrichment run started');
      const { run } = await answer(outcome.run);
      kick(outcome.run.id);
      return { run, eligibleCount: outcome.eligibleCount };
    },

    async startSelfRun(_request, ctx) {
      const caller = requireCaller(ctx, 'self:enrich');
      // Target-locked: the run is about the caller's own profile, whoever else the body might name.
      if (!caller.userId) throw domainError('forbidden', 'self-enrich needs a user behind the credential; an organization-owned key has none');
      // Asked as this service: self:enrich alone (without profile:read) is enough to enrich oneself.
      const asService = await callAs(deps.signer, { kind: 'service', service: 'enrichment' }, ctx.requestId, deps.deadlineMs);
      const { profile } = await deps.clients.communities.getProfile({ userId: caller.userId }, asService).catch(relayOrUnavailable);
      if (!profile) throw domainError('not_found', 'the caller has no profile of its own');
      const row = await deps.db.transaction((tx) =>
        createRunsRepository(tx).insert(
          {
            id: newId('run'),
            kind: 'self',
            userId: caller.userId,
            profileId: profile.id,
            credentialId: caller.credentialId,
            caller: Caller.toJSON(caller),
            depth: SELF_DEPTH,
            payer: null,
          },
          [{ profileId: profile.id }],
        ),
      );
      let accepted = row;
      try {
        // Metered now, so a refusal (cooldown, funds) is the answer and leaves no run behind.
        const credits = await effects.meterSelf(row);
        await repo.markMetered(row.id, credits);
        accepted = { ...row, metered: true, metered_credits: credits };
      } catch (err) {
        if (readRemoteError(err)?.code) {
          await repo.remove(row.id);
          return relayOrUnavailable(err);
        }
        // Billing did not answer: the run stays and its worker meters it (by the run id, once).
        deps.logger.warn({ err, runId: row.id }, 'self-enrich metering deferred to the worker');
      }
      deps.logger.info({ requestId: ctx.requestId, runId: row.id }, 'self-enrich run started');
      // The run as accepted (queued), whatever a worker has done with it since.
      const { run } = await answer(accepted);
      kick(row.id);
      return { run };
    },

    async getRun(request, ctx) {
      const communityId = request.communityId.trim();
      const caller = requireCaller(ctx, communityId ? 'enrich:read' : 'self:enrich');
      const row = request.runId ? await repo.find(request.runId) : undefined;
      if (communityId) {
        // Fenced to the community's read reach, live: outside it is 403, whatever the run.
        const asCaller = await callAs(deps.signer, { kind: 'caller', caller }, ctx.requestId, deps.deadlineMs);
        const { communityIds } = await deps.clients.communities.getReach({ access: Access.ACCESS_READ }, asCaller).catch(relayOrUnavailable);
        if (!communityIds.includes(communityId)) throw domainError('forbidden', `community ${communityId} is outside this credential's read reach`);
        if (!row || row.kind !== 'community' || row.community_id !== communityId) throw domainError('not_found', `run ${request.runId} not found in community ${communityId}`);
      } else if (!row || row.kind !== 'self' || row.user_id !== caller.userId) {
        // Fenced to the caller: another person's run is not found.
        throw domainError('not_found', `run ${request.runId} not found`);
      }
      return answer(row, request.itemsAfter);
    },

    listRuns: (request, ctx) => listRuns(deps, request, ctx),

    async getMemberEnrichment(request, ctx) {
      if (ctx.principal.kind === 'caller') {
        // Re-check: the caller must reach the community (asked of communities, as the caller).
        const caller = requireCaller(ctx, 'profile:read');
        const as = await callAs(deps.signer, { kind: 'caller', caller }, ctx.requestId, deps.deadlineMs);
        const { communityIds } = await deps.clients.communities.getReach({ access: Access.ACCESS_READ }, as).catch(relayOrUnavailable);
        if (!communityIds.includes(request.communityId)) {
          throw domainError('forbidden', `community ${request.communityId} is outside this credential's read reach`);
        }
      }
      const row = await repo.memberEnrichment(request.communityId, request.profileId);
      return { enrichment: row && toMemberEnrichment(row) };
    },

    async getOwnEnrichment(_request, ctx) {
      const caller = requireCaller(ctx, 'profile:read');
      const row = caller.userId ? await repo.selfEnrichment(caller.userId) : undefined;
      return { enrichment: row && toMemberEnrichment(row) };
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
      return { erased: await deps.db.transaction((tx) => createRunsRepository(tx).eraseMember(request.communityId, request.profileId)) };
    },
  };

  const registration: ServiceRegistration<typeof EnrichmentServiceDefinition> = {
    definition: EnrichmentServiceDefinition,
    implementation,
    access: {
      startCommunityRun: ['caller'],
      startSelfRun: ['caller'],
      getRun: ['caller'],
      listRuns: ['caller'],
      getMemberEnrichment: ['caller', 'service'],
      getOwnEnrichment: ['caller'],
      // Communities asks after its own reach check of the caller.
      listEnrichedAt: ['service'],
      eraseMemberEnrichment: ['service', 'operator'],
    },
  };
  return { registration, stop: () => worker.stop(), worker };
}
