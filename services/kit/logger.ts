// One pino logger per process. Credentials never reach a log line: headers and fields that can
// carry a secret are redacted wherever they appear.
import { pino, type Logger } from 'pino';

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
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, destination);
}

export type { Logger };
