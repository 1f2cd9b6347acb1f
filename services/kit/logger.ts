// One pino logger per process. Credentials never reach a log line: headers and fields that can
// carry a secret are redacted wherever they appear. Every line carries the active trace_id and
// span_id (when tracing is on: telemetry.ts); a line logged for a call names its requestId; every
// line names the role of the process that wrote it.
import { hostname } from 'node:os';
import { pino, type Logger } from 'pino';
import { logContext } from './telemetry.js';

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'headers["x-api-key"]',
  '*.secret',
  '*.api_key',
  '*.apiKey',
  '*.token',
  'secret',
  'token',
];

/**
 * Standard output written asynchronously: a line per request (the access log) must not block the
 * event loop on a write system call; lines logged while a write is in flight go out together. Pino
 * flushes what is left when the process exits (its exit handler), so no line is lost on shutdown.
 */
function stdoutDestination(): pino.DestinationStream {
  return pino.destination({ dest: 1, sync: false });
}

/**
 * `role`: the roles this process runs (ROLES: `billing`, `gateway`, `all`…), on every line beside
 * pino's pid and hostname, so that a line read among many processes' says which one wrote it.
 */
export function createLogger(level: string, destination?: pino.DestinationStream, role?: string): Logger {
  return pino(
    { level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, mixin: logContext, ...(role && { base: { pid: process.pid, hostname: hostname(), role } }) },
    destination ?? stdoutDestination(),
  );
}

export type { Logger };
