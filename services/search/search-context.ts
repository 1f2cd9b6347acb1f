// What the search service's handlers and domain modules share: dependencies, the job and corpus
// repositories, the finished jobs kept for polls, the ranking pipeline and the in-process job
// runner (search-jobs.ts), which charges each stored result through billing (search-billing.ts).
import type { ServiceDeps } from '../kit/service-deps.js';
import { createSearchPipeline } from './pipeline/index.js';
import type { SearchPipeline } from './pipeline/pipeline.js';
import { chargeSearch } from './search-billing.js';
import { createSearchEventRelay } from './search-events.js';
import { createFinishedJobs, type FinishedJobs } from './finished-jobs.js';
import { createSearchCorpusRepository, type SearchCorpusRepository } from './search-corpus.repository.js';
import { createJobRunner, type JobRunner, type JobRunnerOptions } from './search-jobs.js';
import { createSearchJobsRepository, type SearchJobsRepository } from './search-jobs.repository.js';

export type SearchDeps = Pick<ServiceDeps, 'db' | 'clients' | 'signer' | 'deadlineMs' | 'logger'>;

export interface SearchServiceOptions {
  /** The ranking pipeline; the product's is createSearchPipeline(). */
  pipeline?: SearchPipeline;
  /** Worker tuning (lease, attempts, tick). */
  worker?: Pick<JobRunnerOptions, 'leaseMs' | 'maxAttempts' | 'tickMs' | 'concurrency'>;
}

export interface SearchContext {
  deps: SearchDeps;
  jobs: SearchJobsRepository;
  /** Finished jobs kept for their polls (finished-jobs.ts). */
  finished: FinishedJobs;
  corpus: SearchCorpusRepository;
  pipeline: SearchPipeline;
  /** Runs the jobs (not started here: the service starts it). */
  runner: JobRunner;
}

export function createSearchContext(deps: SearchDeps, options: SearchServiceOptions): SearchContext {
  const pipeline = options.pipeline ?? createSearchPipeline({ logger: deps.logger });
  return {
    deps,
    jobs: createSearchJobsRepository(deps.db),
    finished: createFinishedJobs(),
    corpus: createSearchCorpusRepository(deps.db),
    pipeline,
    runner: createJobRunner({
      db: deps.db, pipeline, logger: deps.logger, ...options.worker, charge: (job) => chargeSearch(deps, job), events: createSearchEventRelay(deps),
    }),
  };
}
