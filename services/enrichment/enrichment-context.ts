// What the enrichment service's handlers and domain modules share: dependencies, the runs
// repository, what a run does outside the enrichment store (run-effects.ts) and the in-process
// run worker (run-worker.ts) that works the runs through the provider pipeline (./pipeline).
import { batchedRead, distinctAsks } from '../kit/batched-read.js';
import type { Config } from '../kit/config.js';
import type { ServiceDeps } from '../kit/service-deps.js';
import { createEnrichmentPipeline, providerConfigFrom, type EnrichmentPipeline } from './pipeline/index.js';
import { createRunEffects, type RunEffects } from './run-effects.js';
import { createRunEventRelay } from './run-events.js';
import { createRunWorker, type RunWorker, type RunWorkerOptions } from './run-worker.js';
import { createRunsRepository, type EnrichmentDataRow, type RunsRepository } from './runs.repository.js';

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

export interface EnrichmentContext {
  deps: EnrichmentDeps;
  runs: RunsRepository;
  /**
   * A member's enrichment data and a page's enrichment times (runs.memberEnrichments, enrichedAt),
   * each read together with the other requests of the same moment (batched-read.ts).
   */
  memberEnrichment: (ask: { communityId: string; profileId: string }) => Promise<EnrichmentDataRow | undefined>;
  enrichedAt: (ask: { communityId: string; profileIds: readonly string[] }) => Promise<{ profile_id: string; enriched_at: Date }[]>;
  effects: RunEffects;
  /** Works the runs (not started here: the service starts it). */
  worker: RunWorker;
  /** Starts work on a new run here and now, without waiting for it. */
  kick(runId: string): void;
}

export function createEnrichmentContext(deps: EnrichmentDeps, options: EnrichmentServiceOptions): EnrichmentContext {
  const effects = options.effects ?? createRunEffects(deps);
  const worker = createRunWorker({
    db: deps.db,
    pipeline: options.pipeline ?? createEnrichmentPipeline(providerConfigFrom(deps.config)),
    effects,
    logger: deps.logger,
    concurrency: deps.config.ENRICHMENT_CONCURRENCY,
    leaseMs: deps.config.ENRICHMENT_RUN_LEASE_MS,
    events: createRunEventRelay(deps),
    ...options.worker,
  });
  const runs = createRunsRepository(deps.db);
  return {
    deps,
    runs,
    memberEnrichment: batchedRead(runs.memberEnrichments),
    enrichedAt: batchedRead(distinctAsks((ask) => JSON.stringify([ask.communityId, ask.profileIds]), runs.enrichedAt)),
    effects,
    worker,
    kick: (runId) =>
      void worker.claimAndWork(runId).catch((err: unknown) => deps.logger.error({ err, runId }, 'enrichment run could not be claimed')),
  };
}
