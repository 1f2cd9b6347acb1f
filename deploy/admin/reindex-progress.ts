// Progress of `npm run admin -- search reindex` while it runs: the communities service drives the
// run in one long call, so the CLI polls the search service's record of the run (GetReindexRun)
// meanwhile and shows the run (a bar on a terminal, or a line per poll for logs) at each poll that
// saw it move, and a last time when the call returns. stdout keeps only the result.
import type { GetReindexRunResponse } from '../../proto/gen/expertnet/search/v1/search_service.js';

export interface ProgressWatch {
  /** Prints the final line (the run as it ended) and stops polling. */
  stop(): Promise<void>;
}

/** One progress line: counts so far, the share of the expected total, the rate, the time left. */
export function progressLine(r: GetReindexRunResponse): string {
  const elapsed = r.startedAt && r.updatedAt ? (Date.parse(r.updatedAt) - Date.parse(r.startedAt)) / 1000 : 0;
  const rate = elapsed > 0 ? r.indexedDocuments / elapsed : 0;
  const parts = [
    `search reindex run ${r.run}: ${r.indexedDocuments} / ${r.expectedDocuments || '?'} documents` +
      (r.expectedDocuments ? ` (${Math.min(100, (100 * r.indexedDocuments) / r.expectedDocuments).toFixed(1)}%)` : ''),
    `${r.embeddedDocuments} embedded by ${r.embedder}`,
  ];
  if (rate > 0) parts.push(`${rate.toFixed(rate < 10 ? 1 : 0)} documents/s`);
  if (rate > 0 && r.expectedDocuments > r.indexedDocuments && !r.pruned) parts.push(`about ${Math.ceil((r.expectedDocuments - r.indexedDocuments) / rate)} s left`);
  if (r.pruned) parts.push(`done, ${r.removed} removed`);
  return parts.join(', ');
}

/**
 * Polls `poll` every `intervalMs` and shows the run whenever a run newer than `after` (the newest
 * run before this one started) has indexed more than when it was last shown.
 */
export function watchReindex(poll: () => Promise<GetReindexRunResponse>, after: number, show: (run: GetReindexRunResponse) => void, intervalMs: number): ProgressWatch {
  let last = -1;
  let stopped = false;
  const report = async (final: boolean) => {
    const r = await poll().catch(() => undefined); // a failed poll only skips a line
    if (!r || r.run <= after) return;
    if (final || r.indexedDocuments !== last) show(r);
    last = r.indexedDocuments;
  };
  let pending = Promise.resolve();
  const timer = setInterval(() => {
    if (!stopped) pending = pending.then(() => report(false));
  }, intervalMs);
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await pending;
      await report(true);
    },
  };
}
