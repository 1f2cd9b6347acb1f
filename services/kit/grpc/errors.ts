// Domain errors cross gRPC as a canonical status plus a google.rpc.ErrorInfo whose `reason` is the
// public API error code and whose metadata carries the extras the spec names (available_at, the
// payer). The edge turns them back into HTTP with one table (gateway/core/api-error.ts).
import { ClientError, ServerError, Status } from 'nice-grpc';
import { ErrorInfo, RichClientError, RichServerError } from 'nice-grpc-error-details';

export const ERROR_DOMAIN = 'expertnet.api';

/** The API error codes of the spec and our decisions. Services may add codes; the edge passes them on. */
export const API_ERROR_STATUS = {
  bad_request: Status.INVALID_ARGUMENT,
  invalid_request: Status.INVALID_ARGUMENT,
  unauthorized: Status.UNAUTHENTICATED,
  forbidden: Status.PERMISSION_DENIED,
  not_found: Status.NOT_FOUND,
  conflict: Status.ABORTED,
  unprocessable: Status.FAILED_PRECONDITION,
  owner_consent_required: Status.FAILED_PRECONDITION,
  insufficient_credits: Status.FAILED_PRECONDITION,
  coverage_required: Status.FAILED_PRECONDITION,
  community_over_quota: Status.FAILED_PRECONDITION,
  rate_limited: Status.RESOURCE_EXHAUSTED,
  search_unavailable: Status.UNAVAILABLE,
  // A dependency of the service (Redis, the store) cannot answer now: the edge's 503 with Retry-After.
  unavailable: Status.UNAVAILABLE,
  internal: Status.INTERNAL,
} as const satisfies Record<string, Status>;

export type ApiErrorCode = keyof typeof API_ERROR_STATUS;

/**
 * Marks a refusal of the call's own token or principal kind — never of an end user's credential,
 * which identity refuses with no mark — so an edge that relays it knows its own call was refused
 * (a misconfiguration: 500, not the user's 401 or 403; gateway/core/api-error.ts). Set by the door
 * (call-middleware.ts).
 */
export const AT_THE_DOOR: Readonly<Record<string, string>> = { refused_at: 'door' };

/** Thrown by a service: the call fails with this API code, message and extras. */
export function domainError(code: ApiErrorCode, message: string, metadata: Readonly<Record<string, string>> = {}): RichServerError {
  return new RichServerError(API_ERROR_STATUS[code], message, [
    ErrorInfo.fromPartial({ reason: code, domain: ERROR_DOMAIN, metadata }),
  ]);
}

export interface RemoteError {
  status: Status;
  /** The API error code from ErrorInfo, or undefined when the failure carried none. */
  code: string | undefined;
  message: string;
  metadata: Record<string, string>;
}

/** Reads a failed call on the client side; undefined when the error is not a gRPC failure. */
export function readRemoteError(error: unknown): RemoteError | undefined {
  if (!(error instanceof ClientError)) return undefined;
  const info = error instanceof RichClientError ? error.extra.find((d) => d.$type === 'google.rpc.ErrorInfo') : undefined;
  const errorInfo = info as ErrorInfo | undefined;
  return {
    status: error.code,
    code: errorInfo?.domain === ERROR_DOMAIN ? errorInfo.reason : undefined,
    message: error.details,
    metadata: errorInfo?.metadata ?? {},
  };
}

/** A service calling another service passes a domain failure on unchanged (same code, message, extras). */
export function relayRemoteError(error: unknown): never {
  const remote = readRemoteError(error);
  if (remote?.code && remote.code in API_ERROR_STATUS) {
    throw domainError(remote.code as ApiErrorCode, remote.message, remote.metadata);
  }
  throw error;
}

/**
 * Relays a failure of a call to another service: a domain failure unchanged; a service that could
 * not be reached in time as UNAVAILABLE, which the edge answers 503 `unavailable` with Retry-After
 * (instead of a bare internal error).
 */
export function relayOrUnavailable(error: unknown): never {
  if (isUnavailable(error)) throw new ServerError(Status.UNAVAILABLE, 'a backend service is unavailable; retry shortly');
  return relayRemoteError(error);
}

/** The other service could not be reached in time (not a domain answer). */
export function isUnavailable(error: unknown): boolean {
  const remote = readRemoteError(error);
  return remote !== undefined && !remote.code && (remote.status === Status.UNAVAILABLE || remote.status === Status.DEADLINE_EXCEEDED);
}

/** The failure a service's dependency (Redis, the store) could not answer: UNAVAILABLE with code `unavailable`. */
export function dependencyUnavailableError(): RichServerError {
  return domainError('unavailable', 'a dependency of the service is unavailable; retry shortly');
}
