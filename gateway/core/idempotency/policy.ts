// The rules of idempotency that do not touch the store (docs/IDEMPOTENCY.md): which keys are
// valid, which outcomes are refusals that store nothing, and which response headers are stored.

/** Idempotency retention: a stored response is replayed for 48 hours. */
export const RETENTION_SECONDS = 48 * 60 * 60;
/**
 * Lease of an in-flight claim. The replica running the request renews it every third of the lease
 * while the operation runs; a claim whose lease ran out belongs to a process that died, and the
 * next request with the key takes it over. Short, so that a holder that died where its death
 * cannot be seen (another host) blocks its key for seconds, not a minute; a holder known dead is
 * taken over at once (holder.ts).
 */
export const LEASE_SECONDS = 15;

/** 1–255 printable ASCII characters: 0x20 (space) to 0x7E. */
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

export type KeyCheck = { ok: true; key: string } | { ok: false; message: string };

/** Checks an Idempotency-Key header value (undefined: the header is absent — not a key check). */
export function checkIdempotencyKey(header: string | string[]): KeyCheck {
  if (Array.isArray(header)) {
    if (header.length !== 1) return { ok: false, message: 'send one Idempotency-Key header, not several' };
    header = header[0]!;
  }
  if (header.length === 0) return { ok: false, message: 'Idempotency-Key must not be empty' };
  if (header.length > 255) return { ok: false, message: 'Idempotency-Key must be at most 255 characters' };
  if (!KEY_PATTERN.test(header)) {
    return { ok: false, message: 'Idempotency-Key must be printable ASCII characters (0x20-0x7E)' };
  }
  return { ok: true, key: header };
}

/**
 * Error codes that mean the request was refused before the operation ran: authentication, scope,
 * reach (forbidden, not_found), write gating (unprocessable, owner_consent_required), validation
 * (bad_request, invalid_request, payload_too_large), rate limits, credit gates (402) and a
 * conflicting state. Nothing changed, so nothing is stored and a retry after the cause is fixed
 * runs the operation. Every other non-5xx outcome — success, or an error code not listed here —
 * is stored and replayed.
 */
export const REFUSAL_CODES: ReadonlySet<string> = new Set([
  'bad_request',
  'invalid_request',
  'unauthorized',
  'insufficient_credits',
  'coverage_required',
  'community_over_quota',
  'forbidden',
  'not_found',
  'conflict',
  'payload_too_large',
  'unprocessable',
  'owner_consent_required',
  'rate_limited',
]);

/** The API error code of an error-envelope body, if the payload is one. */
export function errorCodeOf(payload: string | Buffer | null | undefined): string | undefined {
  if (payload === null || payload === undefined) return undefined;
  try {
    const parsed = JSON.parse(typeof payload === 'string' ? payload : payload.toString('utf8')) as unknown;
    const code = (parsed as { error?: { code?: unknown } } | null)?.error?.code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a finished request's outcome is stored (true) or its claim released (false). */
export function isStoredOutcome(status: number, errorCode: string | undefined): boolean {
  if (status >= 500) return false;
  if (status >= 400 && errorCode !== undefined && REFUSAL_CODES.has(errorCode)) return false;
  return true;
}

export type StoredHeaders = Record<string, string | string[]>;
type HeaderValue = string | number | string[] | undefined;

/** Headers never stored: computed per response by the HTTP layer. */
const NEVER_STORED = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'date', 'idempotent-replayed']);

function normalized(value: HeaderValue): string | string[] | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return value.map(String);
  return String(value);
}

function same(a: string | string[] | undefined, b: string | string[] | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The headers the operation set: those on the reply when it is sent that were not there, or had
 * another value, when the claim was taken. What the edge had already set by then (X-Request-Id,
 * RateLimit-*, CORS, deprecation) belongs to each request and is set afresh on a replay; what the
 * handler and error handler set (Content-Type, Location, Retry-After, …) is the outcome.
 */
export function operationHeaders(
  before: Record<string, HeaderValue>,
  after: Record<string, HeaderValue>,
): StoredHeaders {
  const stored: StoredHeaders = {};
  for (const [name, raw] of Object.entries(after)) {
    const lower = name.toLowerCase();
    if (NEVER_STORED.has(lower)) continue;
    const value = normalized(raw);
    if (value === undefined || same(value, normalized(before[lower]))) continue;
    stored[lower] = value;
  }
  return stored;
}
