// How a service calls another service. For its own work (`asService`): no token; over gRPC its
// client certificate says which service calls (peer-role.ts), in process its name is taken as is.
// For the caller of the call it is serving (`asCallerOf`): the bearer it received, forwarded as is —
// a service signs nothing, so it can act for a caller only with what that caller sent it (an edge
// token lives a minute). A process that also runs the edge signs for a call that came to it in
// process, without a token.
import { Metadata } from 'nice-grpc';
import type { TokenSigner } from './caller-token.js';
import type { CallOptions } from './client.js';
import { domainError } from './errors.js';
import { callerOf, type Principal } from './principal.js';

/** What of a call's context (call-middleware.ts ServiceContext) acting for its caller needs. */
interface ServedCall {
  principal: Principal;
  requestId: string;
  credential?: string;
}

function metadataOf(requestId: string | undefined): Metadata {
  const metadata = Metadata();
  if (requestId) metadata.set('x-request-id', requestId);
  return metadata;
}

/** Options of a call `service` makes for its own work. */
export function asService(service: string, requestId: string | undefined, deadlineMs: number): CallOptions {
  return { metadata: metadataOf(requestId), deadline: deadlineMs, principal: { kind: 'service', service } };
}

/**
 * Options of a call made for the caller of `ctx` (an edge's caller, or an internal team's direct
 * caller, whom the next service takes for a caller: peer-role.ts), carrying the bearer `ctx` came with.
 */
export function asCallerOf(ctx: ServedCall, deadlineMs: number, signer?: TokenSigner): CallOptions {
  const caller = callerOf(ctx.principal);
  if (!caller) throw domainError('forbidden', 'needs a caller');
  const metadata = metadataOf(ctx.requestId);
  if (ctx.credential) metadata.set('authorization', `Bearer ${ctx.credential}`);
  return { metadata, deadline: deadlineMs, principal: { kind: 'caller', caller }, ...(signer && { signer }) };
}
