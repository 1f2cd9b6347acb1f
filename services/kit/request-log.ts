// The reporting side of the request log (docs/SETTINGS.md "Request log"): each answered request of
// an authenticated caller — REST or MCP at the edge, a direct gRPC call at the service that took it
// (direct-callers.ts) — joins an in-memory buffer that is sent to identity
// (RecordRequests) once a second, or as soon as 500 wait. Nothing here is on the request's path:
// recording only appends; a full buffer (10,000 waiting, identity slow or away) drops the request
// and counts it, as does a batch identity could not take (request_log_dropped_total). A request
// is never delayed or failed by its log. What is reported: the path without its query string,
// never a credential or a body.
import { context, ROOT_CONTEXT } from '@opentelemetry/api';
import type { Caller } from '../../proto/gen/expertnet/common/v1/common.js';
import type { FinishedRequest } from '../../proto/gen/expertnet/identity/v1/request_log.js';
import { metrics } from './metrics.js';

export interface RequestLogEntry {
  caller: Pick<Caller, 'credentialId' | 'credential'>;
  surface: 'rest' | 'mcp' | 'grpc';
  method: string;
  /** The URL as received: its query string is cut off here. */
  url: string;
  /** The tool an MCP tools/call named. */
  tool?: string;
  status: number;
  durationMs: number;
  requestId: string;
}

export interface RequestLogOptions {
  /** Requests waiting at most; more are dropped. */
  capacity?: number;
  /** A flush starts at once when this many wait. */
  flushAt?: number;
  intervalMs?: number;
}

/**
 * Text as identity's door accepts it (services/kit/request-text.ts): a tool name is the caller's
 * own text, and a cut can split a surrogate pair; one entry identity refused would drop its whole
 * batch, other callers' requests included. A lone surrogate becomes U+FFFD and NUL is dropped.
 */
const storable = (text: string): string => text.toWellFormed().replaceAll('\0', '');

/** Identity takes at most this many a call (services/identity/request-log.ts). */
const MAX_BATCH = 1000;

export function createRequestLogReporter(send: (requests: FinishedRequest[]) => Promise<unknown>, options: RequestLogOptions = {}) {
  const { capacity = 10_000, flushAt = 500, intervalMs = 1000 } = options;
  let waiting: FinishedRequest[] = [];
  let sending: Promise<void> | undefined;
  let dropped = 0;

  const drop = (count: number, reason: 'full' | 'unsent') => {
    dropped += count;
    metrics.requestLogDropped.inc({ reason }, count);
  };

  function flush(): void {
    if (sending || waiting.length === 0) return;
    const batch = waiting.slice(0, MAX_BATCH);
    waiting = waiting.slice(batch.length);
    // A batch belongs to no request: its call starts no span under the request that filled it.
    sending = context.with(ROOT_CONTEXT, () => send(batch))
      .then(() => undefined, () => drop(batch.length, 'unsent'))
      .finally(() => {
        sending = undefined;
        if (waiting.length >= flushAt) flush();
      });
  }

  const timer = setInterval(flush, intervalMs);
  timer.unref();

  return {
    /** Appends one answered request; never waits and never throws. */
    record(entry: RequestLogEntry): void {
      if (!entry.caller.credentialId) return;
      if (waiting.length >= capacity) return drop(1, 'full');
      waiting.push({
        credentialId: entry.caller.credentialId,
        credentialKind: entry.caller.credential,
        at: new Date(Date.now() - entry.durationMs).toISOString(),
        surface: entry.surface,
        method: entry.method,
        path: storable(entry.url.split('?')[0]!.slice(0, 200)),
        tool: storable(entry.tool?.slice(0, 64) ?? ''),
        status: entry.status,
        latencyMs: Math.round(entry.durationMs * 10) / 10,
        requestId: entry.requestId,
      });
      if (waiting.length >= flushAt) flush();
    },
    /** Requests waiting, and requests dropped so far (by this reporter). */
    counts: () => ({ waiting: waiting.length, dropped }),
    /** Sends what waits (at shutdown). */
    async stop(): Promise<void> {
      clearInterval(timer);
      while (sending || waiting.length > 0) {
        flush();
        await sending;
      }
    },
  };
}

export type RequestLogReporter = ReturnType<typeof createRequestLogReporter>;
