// Waiting for a search job within its call (wait_seconds): the job runs here and now, and the
// answer comes from the worker that ran it. Only a job another process holds is watched through
// its row.
import type { SearchContext } from './search-context.js';
import { isFinished } from './search-messages.js';
import type { JobRow } from './search-jobs.repository.js';

const TIMED_OUT = Symbol('timed out');

/** How often a wait reads the row of a job another process runs. */
const CROSS_PROCESS_POLL_MS = 200;

/** What p resolves to within ms (undefined when it rejects), or TIMED_OUT; never rejects. */
async function within<T>(p: Promise<T>, ms: number): Promise<T | undefined | typeof TIMED_OUT> {
  if (ms <= 0) return TIMED_OUT;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<typeof TIMED_OUT>((r) => (timer = setTimeout(() => r(TIMED_OUT), ms)));
  try {
    return await Promise.race([p.catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The job's row once it finished or at the deadline, for a job another process runs. A short
 * poll, and only in this case: a job this process runs is answered by its worker (waitForJob).
 * The store interface has no LISTEN/NOTIFY (PGlite is embedded: every worker of its store is in
 * this process), and a crossed wait is rare: it needs another replica's tick to claim a job in
 * the moment between its insert and its claim here, or this claim's lease to be lost. A process
 * that is stopping claims nothing and answers at once (pending): another replica's tick takes the job.
 */
async function watchElsewhere(context: SearchContext, row: JobRow, deadline: number): Promise<JobRow> {
  for (;;) {
    row = (await context.jobs.find(row.id)) ?? row;
    if (isFinished(row) || Date.now() >= deadline || context.runner.isStopping()) return row;
    await new Promise((r) => setTimeout(r, Math.min(CROSS_PROCESS_POLL_MS, deadline - Date.now())));
  }
}

/** Runs the new job here and returns its row once finished, or as it stands at the deadline. */
export async function waitForJob(context: SearchContext, job: JobRow, deadline: number): Promise<JobRow> {
  const here = await context.runner.runHere(job.id);
  const outcome = here ? await within(here.done, deadline - Date.now()) : undefined;
  if (outcome === TIMED_OUT) return job;
  return outcome && isFinished(outcome) ? outcome : watchElsewhere(context, job, deadline);
}
