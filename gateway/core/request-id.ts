// One id per request, end to end: a client's (or Envoy's) X-Request-Id when it is 1–128 printable
// ASCII characters, otherwise a fresh one.
import { randomUUID } from 'node:crypto';

const PRINTABLE = /^[\x21-\x7e]{1,128}$/;

export function requestIdFrom(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && PRINTABLE.test(value) ? value : `req_${randomUUID()}`;
}
