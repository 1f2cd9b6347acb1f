// The HTTP status of a failure that crossed gRPC, one table for every door: the edge answers a
// service's failure with it (gateway/core/api-error.ts), and a service logs a direct caller's call
// with it (direct-callers.ts), so the same refusal reads the same in the request log whichever way
// it came. The API error code (ErrorInfo's reason) decides; an unknown code falls back to its gRPC
// status.
import { ServerError, Status } from 'nice-grpc';
import { RichServerError, type ErrorInfo } from 'nice-grpc-error-details';
import { isDependencyUnavailable } from '../dependencies/unavailable.js';
import { ERROR_DOMAIN, isUnavailable } from './errors.js';

/** HTTP status of each API error code we know. */
export const STATUS_OF_CODE: Readonly<Record<string, number>> = {
  bad_request: 400,
  invalid_request: 400,
  unauthorized: 401,
  insufficient_credits: 402,
  coverage_required: 402,
  community_over_quota: 402,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unprocessable: 422,
  owner_consent_required: 422,
  rate_limited: 429,
  internal: 500,
  search_unavailable: 502,
  unavailable: 503,
};

/** When a service sends an unknown code (new codes may be added), its gRPC status decides. */
export const STATUS_OF_GRPC: Readonly<Partial<Record<Status, number>>> = {
  [Status.INVALID_ARGUMENT]: 400,
  [Status.UNAUTHENTICATED]: 401,
  [Status.PERMISSION_DENIED]: 403,
  [Status.NOT_FOUND]: 404,
  [Status.ALREADY_EXISTS]: 409,
  [Status.ABORTED]: 409,
  [Status.FAILED_PRECONDITION]: 422,
  [Status.RESOURCE_EXHAUSTED]: 429,
};

/** What a failure without an API code is to a log that keeps HTTP status classes. */
const STATUS_OF_BARE_GRPC: Readonly<Partial<Record<Status, number>>> = {
  ...STATUS_OF_GRPC,
  [Status.CANCELLED]: 499,
  [Status.UNIMPLEMENTED]: 501,
  [Status.UNAVAILABLE]: 503,
  [Status.DEADLINE_EXCEEDED]: 504,
};

/** The HTTP status of a call a service answered: 200, or what its failure (as thrown by the method or its door) is. */
export function httpStatusOfAnswer(failure: unknown): number {
  if (failure === undefined) return 200;
  if (isDependencyUnavailable(failure) || isUnavailable(failure)) return 503;
  if (!(failure instanceof ServerError)) return 500;
  const info = failure instanceof RichServerError ? (failure.extra.find((d) => d.$type === 'google.rpc.ErrorInfo') as ErrorInfo | undefined) : undefined;
  const code = info?.domain === ERROR_DOMAIN ? info.reason : undefined;
  return (code && STATUS_OF_CODE[code]) || STATUS_OF_BARE_GRPC[failure.code] || 500;
}
