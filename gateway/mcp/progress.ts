// Progress of a tool call, for a client that asked for it (`_meta.progressToken` on tools/call):
// `notifications/progress` as soon as the call starts, then once a second while it is pending
// (a search waits up to wait_seconds for its result), plus whatever the tool itself reports (an
// enrichment run's counts). Over HTTP such a call is answered as an SSE stream, the only way
// notifications reach the client before the result (server.ts); without a token nothing is sent
// and the answer stays plain JSON.
import type { ProgressToken, ServerNotification } from '@modelcontextprotocol/sdk/types.js';

/** How often a pending call says it is still working. */
export const PROGRESS_INTERVAL_MS = 1000;

export interface Progress {
  /** One notification with this message; progress counts up by one each time. */
  report(message: string): void;
}

/** Reports nothing: the client sent no progress token. */
export const NO_PROGRESS: Progress = { report: () => undefined };

/** A reporter for one call; notifications that cannot be sent (the client left) are dropped. */
export function progressFor(token: ProgressToken | undefined, send: (notification: ServerNotification) => Promise<void>): Progress {
  if (token === undefined) return NO_PROGRESS;
  let step = 0;
  return {
    report(message) {
      step += 1;
      send({ method: 'notifications/progress', params: { progressToken: token, progress: step, message } }).catch(() => undefined);
    },
  };
}

/** Runs `operation`, reporting its start and, while it is pending, each second that passes. */
export async function withProgress<T>(progress: Progress, what: string, operation: () => Promise<T>): Promise<T> {
  if (progress === NO_PROGRESS) return operation();
  progress.report(`${what}: started`);
  const started = Date.now();
  const timer = setInterval(() => progress.report(`${what}: still working (${Math.round((Date.now() - started) / 1000)} s)`), PROGRESS_INTERVAL_MS);
  try {
    return await operation();
  } finally {
    clearInterval(timer);
  }
}

/** Whether a JSON-RPC body holds a tools/call that asks for progress (and so is answered as SSE). */
export function asksForProgress(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => {
    if (typeof m !== 'object' || m === null) return false;
    const { method, params } = m as { method?: unknown; params?: { _meta?: { progressToken?: unknown } } };
    const token = params?._meta?.progressToken;
    return method === 'tools/call' && (typeof token === 'string' || typeof token === 'number');
  });
}
