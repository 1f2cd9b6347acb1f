// One error for "a dependency (Redis, the store) cannot answer now", and the one place that says
// which failures are that: a refused or lost connection, a connection that could not be had in
// time, a command or statement past its bound, a database that refuses connections or is shutting
// down. Such a failure is the caller's 503 `unavailable` with Retry-After (gRPC UNAVAILABLE between
// processes), never a 500: the request may be retried as it is once the dependency is back.

export type DependencyName = 'redis' | 'database';

export class DependencyUnavailable extends Error {
  constructor(
    readonly dependency: DependencyName,
    override readonly cause: unknown,
  ) {
    super(`${dependency} is unavailable`); // the cause, with its own message, goes with it
    this.name = 'DependencyUnavailable';
  }
}

/** Socket-level failures: the peer is not there, went away, or cannot be reached. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH',
  'EHOSTDOWN', 'ENOTFOUND', 'EAI_AGAIN',
  // A unix socket path with nothing listening (yet, or any more).
  'ENOENT',
]);

/**
 * PostgreSQL's SQLSTATEs of a server that cannot serve now: connection exceptions (class 08),
 * admin/crash shutdown and "cannot connect now" (57P01–57P03), too many connections (53300), and a
 * database that does not accept connections (55000 with that message, below).
 */
const SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);

/** Messages of the drivers (pg, pg-pool, ioredis) that carry no code. */
const DRIVER_MESSAGES = [
  /^Connection terminated/, // pg: the server closed the connection
  /timeout exceeded when trying to connect/, // pg-pool: connectionTimeoutMillis
  /^Query read timeout/, // pg: query_timeout
  /is not queryable/, // pg: a client that had a connection error
  /^Command timed out/, // ioredis: commandTimeout
  /^Stream isn't writeable/, // ioredis: not connected, offline queue off
  /^Connection is closed/, // ioredis
  /^Reached the max retries per request limit/, // ioredis: maxRetriesPerRequest
];

/** Whether the failure means the dependency cannot answer now (see the top of this file). */
export function isDependencyUnavailable(error: unknown, depth = 0): boolean {
  if (error instanceof DependencyUnavailable) return true;
  if (typeof error !== 'object' || error === null || depth > 3) return false;
  const { code, message, errors } = error as { code?: unknown; message?: unknown; errors?: unknown };
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || SQLSTATES.has(code) || code.startsWith('08')) return true;
    // 57014 is also a cancelled statement; only the store's own bound counts here.
    if (code === '57014' && typeof message === 'string' && message.includes('statement timeout')) return true;
    if (code === '55000' && typeof message === 'string' && message.includes('not currently accepting connections')) return true;
  }
  if (typeof message === 'string' && DRIVER_MESSAGES.some((m) => m.test(message))) return true;
  // A connection attempt to several addresses (localhost: ::1 and 127.0.0.1) fails as an AggregateError.
  if (Array.isArray(errors) && errors.length > 0 && errors.every((e) => isDependencyUnavailable(e, depth + 1))) return true;
  return false;
}

/** The failure as the caller should see it: a DependencyUnavailable when it is one, else itself. */
export function asDependencyFailure(dependency: DependencyName, error: unknown): unknown {
  if (error instanceof DependencyUnavailable || !isDependencyUnavailable(error)) return error;
  return new DependencyUnavailable(dependency, error);
}
