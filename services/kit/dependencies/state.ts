// A dependency's state as this process sees it, from the outcomes of its calls (requests,
// background work, readiness probes). Its log lines are one per change, not one per call: "down"
// on the first failure, "still down" at most every `repeatMs` while calls keep failing, "back" on
// the first success after. A failed request says nothing more (docs/OPERATIONS.md "When Redis or
// PostgreSQL is down").
import type { Logger } from '../logger.js';
import { type DependencyName } from './unavailable.js';

export interface DependencyStateOptions {
  logger?: Logger;
  /** How often a dependency that stays down is logged again (ms). */
  repeatMs?: number;
  now?: () => number;
}

export class DependencyState {
  private downSince: number | undefined;
  private lastLogged = 0;
  private failures = 0;
  private readonly repeatMs: number;
  private readonly now: () => number;

  constructor(
    readonly dependency: DependencyName,
    private readonly options: DependencyStateOptions = {},
  ) {
    this.repeatMs = options.repeatMs ?? 30_000;
    this.now = options.now ?? Date.now;
  }

  get down(): boolean {
    return this.downSince !== undefined;
  }

  /** A call failed because the dependency could not answer. */
  failed(error: unknown): void {
    const now = this.now();
    this.failures++;
    const reason = error instanceof Error ? error.message : String(error);
    if (this.downSince === undefined) {
      this.downSince = now;
      this.lastLogged = now;
      this.failures = 1;
      this.options.logger?.error({ dependency: this.dependency, reason }, `${this.dependency} unavailable: calls answer 503 until it is back`);
    } else if (now - this.lastLogged >= this.repeatMs) {
      this.lastLogged = now;
      this.options.logger?.warn(
        { dependency: this.dependency, reason, downForMs: now - this.downSince, failedCalls: this.failures },
        `${this.dependency} still unavailable`,
      );
    }
  }

  /** A call succeeded: the dependency answers (again). Costs a comparison while it is up. */
  succeeded(): void {
    if (this.downSince === undefined) return;
    const downForMs = this.now() - this.downSince;
    this.downSince = undefined;
    this.options.logger?.info({ dependency: this.dependency, downForMs, failedCalls: this.failures }, `${this.dependency} available again`);
  }
}
