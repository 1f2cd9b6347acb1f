// The communities service's background sweeper: it finishes the durable work an add or an erasure
// recorded in its transaction but could not complete inline (identity or another service
// unreachable, or the process died between the commit and the call) — placeholder-account tasks
// (placeholders.ts), an add's search indexing (index-followup.ts) and erasure follow-ups
// (erasure-followup.ts). Work younger than `graceMs` is
// left to its inline attempt. Several replicas may sweep at once: every piece of work is idempotent.
import { sweepErasureFollowups } from './erasure-followup.js';
import { sweepIndexFollowups } from './index-followup.js';
import type { CommunitiesContext } from './communities-context.js';
import { sweepPlaceholderTasks } from './placeholders.js';

export interface Sweeper {
  /** One pass over the due work (tests and start-up). */
  sweep(): Promise<void>;
  stop(): Promise<void>;
}

export interface SweeperOptions {
  intervalMs?: number;
  graceMs?: number;
  /** Sweep once right away: a process restarted after a crash finishes what the crash left. */
  atStart?: boolean;
}

export function startTaskSweeper(context: CommunitiesContext, options: SweeperOptions = {}): Sweeper {
  const intervalMs = options.intervalMs ?? 30_000;
  const graceMs = options.graceMs ?? 10_000;
  let running: Promise<void> | undefined;
  let stopped = false;
  const shouldStop = () => stopped;
  const sweep = async () => {
    if (stopped) return;
    await sweepPlaceholderTasks(context, graceMs, shouldStop);
    await sweepIndexFollowups(context, graceMs, shouldStop);
    await sweepErasureFollowups(context, graceMs, shouldStop);
  };
  const tick = () => {
    if (running || stopped) return;
    running = sweep()
      .catch((err) => context.deps.logger.warn({ err }, 'communities task sweep failed'))
      .finally(() => (running = undefined));
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  if (options.atStart) tick();
  return {
    sweep,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
