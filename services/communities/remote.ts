// Calls from the communities service to other services: a domain failure is passed on unchanged
// (same code and message); a service that cannot be reached in time becomes UNAVAILABLE, which
// the edge answers 503 `unavailable` with Retry-After (instead of a bare internal error).
import type { CallOptions } from '../kit/grpc/client.js';
import { asService } from '../kit/grpc/acting.js';
import type { CommunitiesContext } from './communities-context.js';

export { relayOrUnavailable } from '../kit/grpc/errors.js';

/** Options of a call the communities service makes for its own work. */
export function asCommunitiesService(context: CommunitiesContext, requestId: string | undefined): Promise<CallOptions> {
  return Promise.resolve(asService('communities', requestId, context.deps.deadlineMs));
}
