// The edge's error: an HTTP status, an API error code and a message, plus the extra envelope
// fields the spec names. Failures from services are translated by one table (fromRemote,
// services/kit/grpc/http-status.ts, which the services' request log of direct callers shares).
import { Status } from 'nice-grpc';
import { AT_THE_DOOR, readRemoteError } from '../../services/kit/grpc/errors.js';
import { STATUS_OF_CODE, STATUS_OF_GRPC } from '../../services/kit/grpc/http-status.js';
import { isDependencyUnavailable } from '../../services/kit/dependencies/unavailable.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extras: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Envelope fields a service may send in ErrorInfo metadata, by name. */
const PASSED_EXTRAS = ['available_at', 'payer'];

export function statusOfCode(code: string): number | undefined {
  return STATUS_OF_CODE[code];
}

/** The API error code of an answer known only by its status (a settings page): the first code of that status. */
export function codeOfStatus(status: number): string {
  return Object.entries(STATUS_OF_CODE).find(([, s]) => s === status)?.[0] ?? (status >= 500 ? 'internal' : 'bad_request');
}

/** A dependency (Redis, the store, a service) cannot answer now: retry in a second. */
export function dependencyUnavailable(): ApiError {
  return new ApiError(503, 'unavailable', 'a backend service is unavailable; retry shortly', {}, { 'retry-after': '1' });
}

/**
 * A failure whose cause is logged once per outage where the dependency is seen (its state,
 * services/kit/dependencies/state.ts), so a request failing on it logs nothing of its own: this
 * process's Redis or store, or a service's (code `unavailable` over gRPC).
 */
export function isLoggedAsOutage(error: unknown): boolean {
  return isDependencyUnavailable(error) || readRemoteError(error)?.code === 'unavailable';
}

/**
 * Translates a failed internal call. Domain failures keep their code and message; an unknown code
 * passes through leniently; a dependency that cannot answer now (a service not reached in time, a
 * service's or this process's Redis or store) becomes 503 `unavailable` with Retry-After; anything
 * else (a crash) becomes a bare 500 that reveals nothing of the internals.
 */
export function fromRemote(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const remote = readRemoteError(error);
  if (!remote) return isDependencyUnavailable(error) ? dependencyUnavailable() : new ApiError(500, 'internal', 'internal error');
  if (remote.code === 'unavailable') return dependencyUnavailable();
  // The service refused this edge's own call (its token or its principal), not the user's
  // credential: the edge's fault (AT_THE_DOOR, services/kit/grpc/errors.ts).
  if (remote.metadata.refused_at === AT_THE_DOOR.refused_at) return new ApiError(500, 'internal', 'internal error');
  if (remote.code) {
    const status = STATUS_OF_CODE[remote.code] ?? STATUS_OF_GRPC[remote.status] ?? 500;
    const extras: Record<string, unknown> = {};
    for (const name of PASSED_EXTRAS) {
      const value = remote.metadata[name];
      if (value === undefined) continue;
      try {
        extras[name] = name === 'payer' ? JSON.parse(value) : value;
      } catch {
        // A payer that is not JSON is dropped: a SyntaxError thrown from here would reach the REST
        // error envelope, which answers SyntaxErrors as 400 "the body is not valid JSON".
      }
    }
    // A server-side failure reveals nothing of itself; search_unavailable (502) is the one 5xx
    // whose code and message are part of the contract.
    return status >= 500 && status !== 502
      ? new ApiError(500, 'internal', 'internal error')
      : new ApiError(status, remote.code, remote.message, extras);
  }
  if (remote.status === Status.UNAVAILABLE || remote.status === Status.DEADLINE_EXCEEDED) return dependencyUnavailable();
  return new ApiError(500, 'internal', 'internal error');
}
