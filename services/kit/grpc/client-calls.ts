// What each call to a service in another process leaves behind: its count and time by target
// service, method and status code (grpc_client_* in metrics.ts), and, when the service could not be
// reached, one warning naming the backend and the method — "which one is down?" is the first
// question on call. A failure the service itself answered (a domain code, or its own Redis or store
// down: code `unavailable`, logged there once per outage) is not logged here.
import { ClientError, Status, type ClientMiddleware } from 'nice-grpc';
import type { ServiceRole } from '../config.js';
import type { Logger } from '../logger.js';
import { metrics, splitGrpcPath } from '../metrics.js';
import { readRemoteError } from './errors.js';

/** The status a failed call ended with: a cancelled call (its caller gave up) counts as CANCELLED. */
function statusOf(error: unknown): Status {
  if (error instanceof ClientError) return error.code;
  return error instanceof Error && error.name === 'AbortError' ? Status.CANCELLED : Status.UNKNOWN;
}

/** Reaching the service failed (no connection, no answer in time), as opposed to an answer of its own. */
const NOT_REACHED = new Set([Status.UNAVAILABLE, Status.DEADLINE_EXCEEDED]);

export function observedCalls(target: ServiceRole, logger?: Logger): ClientMiddleware {
  return async function* observe(call, options) {
    const [, grpc_method] = splitGrpcPath(call.method.path);
    const labels = { grpc_target_service: target, grpc_method };
    const end = metrics.grpcClientDuration.startTimer(labels);
    let code = Status.OK;
    try {
      return yield* call.next(call.request, options);
    } catch (error) {
      code = statusOf(error);
      if (NOT_REACHED.has(code) && readRemoteError(error)?.code === undefined) {
        const requestId = options.metadata?.get('x-request-id');
        logger?.warn({ backend: target, method: grpc_method, grpc_code: Status[code], ...(requestId && { requestId }) }, 'a backend service is unavailable');
      }
      throw error;
    } finally {
      end();
      metrics.grpcClientHandled.inc({ ...labels, grpc_code: Status[code] ?? String(code) });
    }
  };
}
