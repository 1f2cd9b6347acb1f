// The worker loop over a leased queue (leased-queue.ts): runs a claimed job while heartbeats keep
// its lease (every third of it), and a background tick that ends jobs out of attempts, runs the
// caller's upkeep, then takes over claimable jobs — new ones no process started, and those whose
// worker died — up to its capacity. A stopping process claims nothing more and hands back the lease
// of every job it leaves unfinished, so another process resumes it at once instead of after the lease.
//
// Jobs running in this process are known by id (`inProcess`), so a caller waiting for a job this
// process runs is answered by the worker itself, never by reading the job's row.
import type { Logger } from '../logger.js';
import type { LeasedQueue, LeasedRow } from './leased-queue.js';
import { isDependencyUnavailable } from '../dependencies/unavailable.js';

/** The claim a job is worked under, as its work sees it. */
export interface Lease {
  /** The claim's fencing token (the job's `attempts` after the claim). */
  readonly token: number;
  /** A heartbeat found the claim taken over (or the job ended elsewhere): write nothing more. */
  readonly lost: boolean;
  /** The process is stopping: pause at the next safe point (the lease is handed back). */
  readonly stopping: boolean;
}

export interface LeasedWorkerOptions<Row extends LeasedRow, R> {
  queue: LeasedQueue<Row>;
  logger: Logger;
  /** Works a claimed job to its end, or until its lease is lost or the process stops. */
  work(job: Row, lease: Lease): Promise<R>;
  /** Jobs the tick just ended as abandoned (their workers kept dying): the caller's cleanup. */
  onAbandoned?(ids: string[]): Promise<void>;
  /** The caller's share of each tick, before it claims (effects to retry, rows to purge). */
  upkeep?(): Promise<void>;
  /** Jobs the background tick keeps running at once in this process (jobs claimed by id run regardless). */
  capacity: number;
  tickMs?: number;
}

export interface Running<R> {
  id: string;
  token: number;
  /** Settles when the work does: its result, or its error. */
  done: Promise<R>;
}

export function createLeasedWorker<Row extends LeasedRow, R>(options: LeasedWorkerOptions<Row, R>) {
  const { queue, logger: log } = options;
  const leaseMs = queue.policy.leaseMs;
  const inFlight = new Map<string, Promise<R>>();
  let timer: NodeJS.Timeout | undefined;
  let ticking = false;
  let stopping = false;

  async function run(job: Row): Promise<R> {
    const token = job.attempts;
    let lost = false;
    const lease: Lease = {
      token,
      get lost() {
        return lost;
      },
      get stopping() {
        return stopping;
      },
    };
    const beat = setInterval(() => {
      queue.heartbeat(job.id, token).then(
        (held) => {
          if (!held) lost = true;
        },
        (err: unknown) => log.warn({ err, jobId: job.id }, 'lease heartbeat failed'),
      );
    }, Math.max(50, Math.floor(leaseMs / 3)));
    beat.unref();
    try {
      return await options.work(job, lease);
    } finally {
      clearInterval(beat);
      // A finished job is no longer running, so this hands back only what stopping left unfinished.
      if (stopping) await queue.release(job.id, token).catch((err: unknown) => log.warn({ err, jobId: job.id }, 'lease not handed back'));
    }
  }

  /** Claims this job (or the oldest claimable one) and starts it; undefined when nothing was claimed. */
  async function claimAndRun(id?: string): Promise<Running<R> | undefined> {
    if (stopping) return undefined;
    const job = await queue.claim(id);
    if (!job) return undefined;
    const done = run(job);
    inFlight.set(job.id, done);
    // Removed only while it is this claim's: the same job may be claimed again here after a loss.
    const forget = () => inFlight.get(job.id) === done && inFlight.delete(job.id);
    void done.then(forget, (err: unknown) => {
      forget();
      log.error({ err, jobId: job.id, attempt: job.attempts }, 'job interrupted; it is retried after its lease');
    });
    return { id: job.id, token: job.attempts, done };
  }

  async function tick(): Promise<void> {
    if (ticking || stopping) return;
    ticking = true;
    try {
      const abandoned = await queue.giveUpAbandoned();
      if (abandoned.length > 0) {
        log.warn({ jobIds: abandoned }, 'jobs ended after their last attempt');
        await options.onAbandoned?.(abandoned);
      }
      await options.upkeep?.();
      while (inFlight.size < options.capacity) {
        const taken = await claimAndRun();
        if (!taken) break;
        log.info({ jobId: taken.id, attempt: taken.token }, 'job claimed by the background tick');
      }
    } catch (err) {
      // The store down: its state logs the outage once (services/kit/dependencies/state.ts), and the
      // next tick tries again.
      if (!isDependencyUnavailable(err)) log.error({ err }, 'worker tick failed');
    } finally {
      ticking = false;
    }
  }

  return {
    claimAndRun,
    tick,
    /** The work of this job when this process runs it now; undefined otherwise. */
    inProcess(id: string): Promise<R> | undefined {
      return inFlight.get(id);
    },
    /** Whether stop() was called: nothing more is claimed here. */
    isStopping: () => stopping,
    start() {
      timer ??= setInterval(() => void tick(), options.tickMs ?? 1000);
      timer.unref();
    },
    /** Stops claiming and waits a little for running jobs, which pause and hand their leases back. */
    async stop(waitMs = 5000): Promise<void> {
      stopping = true;
      if (timer) clearInterval(timer);
      timer = undefined;
      await Promise.race([Promise.allSettled([...inFlight.values()]), new Promise((r) => setTimeout(r, waitMs).unref())]);
    },
  };
}

export type LeasedWorker<R> = ReturnType<typeof createLeasedWorker<LeasedRow, R>>;
