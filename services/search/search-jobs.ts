// The in-process search worker (docs/SEARCH.md "Jobs"): search jobs are a leased queue
// (kit/jobs), so the claim, its lease and heartbeats, takeover of jobs whose worker died and the
// end of jobs out of attempts are the kit's. Here: run the ranking pipeline, store the result
// fenced by the claim, then charge `search:<id>` by reference; each tick also retries charges
// that did not go through and purges jobs an hour after they finished.
//
// Authorization does not depend on the pipeline: whatever it returns is filtered down to people
// with a document in the corpora the job may search, and shared_communities is computed here from
// the caller's read reach recorded at start.
import type { Match } from '../../proto/gen/expertnet/search/v1/search_service.js';
import { metrics } from '../kit/metrics.js';
import type { Database } from '../kit/db/database.js';
import { createLeasedWorker } from '../kit/jobs/leased-worker.js';
import type { Logger } from '../kit/logger.js';
import type { SearchPipeline } from './pipeline/pipeline.js';
import { createSearchCorpusRepository } from './search-corpus.repository.js';
import { toMatch } from './search-messages.js';
import { createSearchJobQueue, createSearchJobsRepository, type JobRow } from './search-jobs.repository.js';

export interface JobRunnerOptions {
  db: Database;
  pipeline: SearchPipeline;
  /** Debits the job's payer by the reference `search:<id>` (idempotent: billing posts a reference once). */
  charge(job: JobRow): Promise<void>;
  logger: Logger;
  leaseMs?: number;
  maxAttempts?: number;
  tickMs?: number;
  /** Background claims at once in this process (jobs started here run at once regardless). */
  concurrency?: number;
  /** Sends the events of ended jobs to the event log (search-events.ts): after each end, and each tick. */
  events?: { relay(): Promise<void> };
}

export const DEFAULT_LEASE_MS = 30_000;
export const DEFAULT_MAX_ATTEMPTS = 3;

/** A pipeline failure that names a provider outage keeps its text out of the API; it is logged. */
const FAILURE_MESSAGE = 'the search backend failed';

function observeFinished(job: JobRow): void {
  const outcome = job.status === 'complete' ? 'complete' : 'failed';
  metrics.searchesFinished.inc({ outcome });
  metrics.searchLatency.observe({ outcome }, ((job.finished_at ?? new Date()).getTime() - job.created_at.getTime()) / 1000);
}

export function createJobRunner(options: JobRunnerOptions) {
  const repo = createSearchJobsRepository(options.db);
  const corpus = createSearchCorpusRepository(options.db);
  const queue = createSearchJobQueue(options.db, {
    leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS,
    maxAttempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
  });
  const log = options.logger.child({ component: 'search-worker' });

  async function matchesOf(job: JobRow): Promise<Match[]> {
    const ranked = await options.pipeline.rank(options.db, {
      query: job.query,
      communityIds: job.community_ids,
      includePublic: job.include_public,
      limit: job.result_limit,
    });
    const ids = ranked.map((m) => m.profileId);
    const corpora = [...job.community_ids, ...(job.include_public ? [''] : [])];
    const allowed = await corpus.profilesInCorpora(ids, corpora);
    // Scope public shares no community; otherwise: the caller's readable communities holding the person.
    const shared = job.scope === 'public' ? new Map<string, string[]>() : await corpus.communitiesOf(ids, job.reach_ids);
    const seen = new Set<string>();
    const matches: Match[] = [];
    for (const m of ranked) {
      if (!allowed.has(m.profileId) || seen.has(m.profileId)) continue;
      seen.add(m.profileId);
      matches.push(toMatch(m, shared.get(m.profileId) ?? []));
      if (matches.length >= job.result_limit) break;
    }
    return matches;
  }

  /** Charges a complete job and records it; a failure is left to the next poll or tick. */
  async function chargeStored(job: JobRow): Promise<void> {
    try {
      await options.charge(job);
      await repo.markCharged(job.id);
    } catch (err) {
      log.error({ err, searchId: job.id }, 'search charge failed; retried later');
    }
  }

  /** Runs a claimed job to its end; returns the stored row (another claim's, when this one was lost). */
  async function run(job: JobRow, token: number): Promise<JobRow | undefined> {
    let matches: Match[];
    try {
      matches = await matchesOf(job);
    } catch (err) {
      log.error({ err, searchId: job.id, attempt: token }, 'search failed');
      const failed = await queue.finish(job.id, token, { status: 'failed', error: FAILURE_MESSAGE });
      if (failed) observeFinished(failed);
      void options.events?.relay();
      return failed ?? (await repo.find(job.id));
    }
    const stored = await queue.finish(job.id, token, { status: 'complete', matches: JSON.stringify(matches) });
    if (!stored) {
      log.warn({ searchId: job.id, attempt: token }, 'search result dropped: the claim was taken over');
      return repo.find(job.id);
    }
    observeFinished(stored);
    void options.events?.relay();
    await chargeStored(stored);
    return stored;
  }

  const worker = createLeasedWorker<JobRow, JobRow | undefined>({
    queue,
    logger: log,
    capacity: options.concurrency ?? 4,
    tickMs: options.tickMs,
    work: (job, lease) => run(job, lease.token),
    async upkeep() {
      for (const job of await repo.uncharged(20)) await chargeStored(job);
      await options.events?.relay();
      await repo.purgeExpired();
    },
  });

  return {
    /** Claims this job (or the oldest claimable one) and runs it; undefined when nothing was claimed. */
    async claimAndRun(id?: string): Promise<JobRow | undefined> {
      return (await worker.claimAndRun(id))?.done;
    },
    /**
     * Runs this job here: claimed now, or already running in this process (its tick claimed it
     * first). `done` resolves to the stored row — or another claim's when this one was lost.
     * Undefined when another process holds the job.
     */
    async runHere(id: string): Promise<{ done: Promise<JobRow | undefined> } | undefined> {
      const claimed = await worker.claimAndRun(id);
      const done = claimed?.done ?? worker.inProcess(id);
      return done && { done };
    },
    tick: worker.tick,
    isStopping: worker.isStopping,
    chargeStored,
    start: worker.start,
    /** Stops claiming and waits a little for running jobs; one left running is claimable at once elsewhere. */
    stop: worker.stop,
    countOpen: () => queue.countOpen(),
  };
}

export type JobRunner = ReturnType<typeof createJobRunner>;
