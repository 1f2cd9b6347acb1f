// Calls from the communities service to other services: a domain failure is passed on unchanged
// (same code and message); a service that cannot be reached in time becomes UNAVAILABLE, which
// the edge answers 503 `unavailable` with Retry-After (instead of a bare internal error).
import { ServerError, Status } from 'nice-grpc';
import { callAs, type CallOptions } from '../kit/grpc/client.js';
import { readRemoteError, relayRemoteError } from '../kit/grpc/errors.js';
import type { HandlerContext } from './handler-context.js';

export function isUnavailable(error: unknown): boolean {
  const remote = readRemoteError(error);
  return remote !== undefined && !remote.code && (remote.status === Status.UNAVAILABLE || remote.status === Status.DEADLINE_EXCEEDED);
}

export function relayOrUnavailable(error: unknown): never {
  if (isUnavailable(error)) throw new ServerError(Status.UNAVAILABLE, 'a backend service is unavailable; retry shortly');
  return relayRemoteError(error);
}

/** Options of a call the communities service makes for its own work. */
export function asCommunitiesService(context: HandlerContext, requestId: string | undefined): Promise<CallOptions> {
  return callAs(context.deps.signer, { kind: 'service', service: 'communities' }, requestId, context.deps.deadlineMs);
}
