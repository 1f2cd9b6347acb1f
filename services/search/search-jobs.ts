// The in-process search worker (docs/SEARCH.md "Jobs"): claims a job with a lease, keeps the lease
// alive while the ranking pipeline runs, stores the result fenced by the claim, then charges
// `search:<id>` by reference. A background tick takes over jobs whose worker died (expired lease),
// fails those that ran out of attempts, retries charges that did not go through, and purges jobs
// an hour after they finished.
//
// Authorization does not depend on the pipeline: whatever it returns is filtered down to people
// with a document in the corpora the job may search, and shared_communities is computed here from
// the caller's read reach recorded at start.
import { metrics } from '../kit/metrics.js';
import type { Database } from '../kit/db/database.js';
import type { Logger } from '../kit/logger.js';
import type { SearchPipeline } from './pipeline/pipeline.js';
import { createSearchJobsRepository, type JobRow, type StoredMatch } from './search-jobs.repository.js';

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
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  const log = options.logger.child({ component: 'search-worker' });
  const inFlight = new Set<Promise<JobRow | undefined>>();
  let timer: NodeJS.Timeout | undefined;
  let ticking = false;

  async function matchesOf(job: JobRow): Promise<StoredMatch[]> {
    const ranked = await options.pipeline.rank(options.db, {
      query: job.query,
      communityIds: job.community_ids,
      includePublic: job.include_public,
      limit: job.result_limit,
    });
    const ids = ranked.map((m) => m.profileId);
    const corpora = [...job.community_ids, ...(job.include_public ? [''] : [])];
    const allowed = await repo.profilesInCorpora(ids, corpora);
    // Scope public shares no community; otherwise: the caller's readable communities holding the person.
    const shared = job.scope === 'public' ? new Map<string, string[]>() : await repo.communitiesOf(ids, job.reach_ids);
    const seen = new Set<string>();
    const matches: StoredMatch[] = [];
    for (const m of ranked) {
      if (!allowed.has(m.profileId) || seen.has(m.profileId)) continue;
      seen.add(m.profileId);
      matches.push({
        profileId: m.profileId,
        userId: m.userId,
        name: m.name,
        headline: m.headline,
        organization: m.organization,
        location: m.location,
        avatarUrl: m.avatarUrl,
        score: m.score,
        semanticScore: m.semanticScore,
        explanation: m.explanation,
        sharedCommunities: shared.get(m.profileId) ?? [],
        weakMatch: m.weakMatch,
      });
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

  /** Runs a claimed job to its end (or until its claim is lost); returns the stored row. */
  async function run(job: JobRow): Promise<JobRow | undefined> {
    const attempt = job.attempts;
    let lost = false;
    const beat = setInterval(() => {
      repo.heartbeat(job.id, attempt, leaseMs).then(
        (held) => {
          if (!held) lost = true;
        },
        (err: unknown) => log.warn({ err, searchId: job.id }, 'search lease heartbeat failed'),
      );
    }, Math.max(50, Math.floor(leaseMs / 3)));
    beat.unref();
    try {
      let matches: StoredMatch[];
      try {
        matches = await matchesOf(job);
      } catch (err) {
        log.error({ err, searchId: job.id, attempt }, 'search failed');
        const failed = await repo.fail(job.id, attempt, FAILURE_MESSAGE);
        if (failed) observeFinished(failed);
        return failed ?? (await repo.find(job.id));
      }
      const stored = await repo.complete(job.id, attempt, matches);
      if (!stored) {
        log.warn({ searchId: job.id, attempt, lost }, 'search result dropped: the claim was taken over');
        return repo.find(job.id);
      }
      observeFinished(stored);
      await chargeStored(stored);
      return stored;
    } finally {
      clearInterval(beat);
    }
  }

  function track(p: Promise<JobRow | undefined>): Promise<JobRow | undefined> {
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p)).catch(() => undefined);
    return p;
  }

  /** Claims (this job, or the oldest claimable one) and runs it; undefined when nothing was claimed. */
  async function claimAndRun(id?: string): Promise<JobRow | undefined> {
    const job = await repo.claim(leaseMs, maxAttempts, id);
    if (!job) return undefined;
    return track(run(job));
  }

  async function tick(): Promise<void> {
    if (ticking) return;
    ticking = true;
    try {
      const failed = await repo.giveUpAbandoned(maxAttempts);
      if (failed.length > 0) log.warn({ searchIds: failed }, 'searches failed after their last attempt');
      for (const job of await repo.uncharged(20)) await chargeStored(job);
      await repo.purgeExpired();
      while (inFlight.size < (options.concurrency ?? 4)) {
        const job = await repo.claim(leaseMs, maxAttempts);
        if (!job) break;
        log.info({ searchId: job.id, attempt: job.attempts }, 'search taken over');
        void track(run(job)).catch((err: unknown) => log.error({ err, searchId: job.id }, 'search worker failed'));
      }
    } catch (err) {
      log.error({ err }, 'search worker tick failed');
    } finally {
      ticking = false;
    }
  }

  return {
    claimAndRun,
    tick,
    chargeStored,
    start() {
      timer ??= setInterval(() => void tick(), options.tickMs ?? 1000);
      timer.unref();
    },
    /** Stops claiming and waits a little for running jobs; a job left running is retried after its lease. */
    async stop(waitMs = 5000): Promise<void> {
      if (timer) clearInterval(timer);
      timer = undefined;
      await Promise.race([Promise.allSettled([...inFlight]), new Promise((r) => setTimeout(r, waitMs).unref())]);
    },
  };
}

export type JobRunner = ReturnType<typeof createJobRunner>;
