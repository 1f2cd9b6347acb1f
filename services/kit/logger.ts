// One pino logger per process. Credentials never reach a log line: headers and fields that can
// carry a secret are redacted wherever they appear. Every line carries the active trace_id and
// span_id (when tracing is on) and, inside a gRPC call, the requestId it serves (telemetry.ts).
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

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, mixin: logContext }, destination);
}

export type { Logger };
