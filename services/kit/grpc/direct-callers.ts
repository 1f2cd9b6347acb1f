// The door of an internal team that calls a service directly, without the edge: the bearer of the
// call's `authorization` metadata is the team's own credential — an API key, or an OAuth access
// token whose audience is the gRPC API (GRPC_AUDIENCE, grpc-audience.ts) — not a caller token.
// It is taken as REST takes it: identity authenticates it live on every call (revocation,
// allowlist, archival and write reach take effect on the next call) and counts the request in the
// credential's usage; then the credential's bucket of the rate limiter is spent, the same bucket
// and policy as its REST and MCP requests (services/kit/rate-limit). The caller becomes a `direct`
// principal, which only the public RPCs' access lists name (call-middleware.ts). Each answered call
// joins the credential's request log (surface `grpc`), as REST and MCP requests do.
//
// A service serving such a call and calling another service for the caller forwards the credential
// as received (acting.ts); the next service, seeing another service's client certificate, takes it
// as `relayed`: authenticated live again (a revocation stops the rest of the work), but not counted,
// limited or logged a second time, and the caller becomes a `caller` principal there.
import type { Metadata } from 'nice-grpc';
import { httpStatusOfAnswer } from './http-status.js';
import type { Caller } from '../../../proto/gen/expertnet/common/v1/common.js';
import { GRPC_AUDIENCE } from '../grpc-audience.js';
import { looksLikeJwt } from '../jwt-shape.js';
import type { RateLimitDecision, RateLimiter } from '../rate-limit/limiter.js';
import { rateLimitHeaders } from '../rate-limit/headers.js';
import { refusalMessage } from '../rate-limit/refusal.js';
import { createRequestLogReporter, type RequestLogOptions } from '../request-log.js';
import { asService } from './acting.js';
import type { ServiceClients } from './client.js';
import { domainError, readRemoteError, relayOrUnavailable } from './errors.js';

export interface DirectCallerOptions {
  /** Identity's client, read when a call comes (the clients are built after the servers listen). */
  clients: Pick<ServiceClients, 'identity'>;
  /** The service roles of this process, which ask identity (as a `service` principal) for each credential. */
  service: string;
  /** The limiter the edge of this deployment uses: Redis when configured, so every door spends one bucket. */
  limiter: RateLimiter;
  deadlineMs: number;
  /** The request log's buffer (request-log.ts); its defaults otherwise. */
  requestLog?: RequestLogOptions;
}



export function createDirectCallers(options: DirectCallerOptions) {
  const { limiter, deadlineMs } = options;
  const asSelf = (requestId: string) => asService(options.service, requestId, deadlineMs);
  const requestLog = createRequestLogReporter(
    async (requests) => options.clients.identity.recordRequests({ requests }, asSelf(`request-log-${Date.now()}`)),
    options.requestLog,
  );

  /**
   * Logs one answered call of `caller`, with the HTTP status REST would have answered for its
   * `failure` (none: 200; http-status.ts). Never waits, never throws.
   */
  function answered(caller: Caller, path: string, failure: unknown, durationMs: number, requestId: string): void {
    requestLog.record({ caller, surface: 'grpc', method: 'gRPC', url: path, status: httpStatusOfAnswer(failure), durationMs, requestId });
  }

  /**
   * The caller of a credential, asked of identity live (`relayed`: counted already by the service
   * the caller called); UNAUTHENTICATED (ErrorInfo `unauthorized`) when refused.
   */
  async function callerOf(credential: string, requestId: string, relayed = false): Promise<Caller> {
    const request = looksLikeJwt(credential) ? { accessToken: credential, resource: GRPC_AUDIENCE, relayed } : { apiKey: credential, relayed };
    try {
      const { caller } = await options.clients.identity.authenticate(request, asSelf(requestId));
      if (caller) return caller;
    } catch (error) {
      const remote = readRemoteError(error);
      if (remote?.code === 'unauthorized') throw domainError('unauthorized', remote.message);
      // Identity (or what it needs) cannot answer now: worth a retry, not the credential's fault.
      relayOrUnavailable(error);
    }
    throw domainError('unauthorized', 'invalid or revoked credentials');
  }

  /** One step of the caller's bucket; its RateLimit fields go on the response's header metadata. */
  async function spend(caller: Caller, header: Metadata): Promise<void> {
    let decision: RateLimitDecision;
    try {
      decision = await limiter.check({ credentialId: caller.credentialId, rateTier: caller.rateTier, requestedRate: caller.requestedRate });
    } catch {
      // Fail closed, as the edge: without the shared limiter no call goes through unlimited.
      throw domainError('unavailable', 'rate limiting is unavailable; retry shortly', { retry_after_seconds: '1' });
    }
    for (const [name, value] of Object.entries(rateLimitHeaders(decision))) header.set(name, value);
    if (!decision.allowed) {
      throw domainError('rate_limited', refusalMessage(decision), { retry_after_seconds: String(decision.retryAfterSeconds ?? 1) });
    }
  }

  return {
    /**
     * The caller behind `credential`, authenticated, counted and within its rate limit, calling
     * `path` (a refusal by the limiter is logged as the call's answer).
     */
    async authenticate(credential: string, requestId: string, header: Metadata, path: string): Promise<Caller> {
      const caller = await callerOf(credential, requestId);
      const started = performance.now();
      try {
        await spend(caller, header);
      } catch (error) {
        answered(caller, path, error, performance.now() - started, requestId);
        throw error;
      }
      return caller;
    },
    /** The caller behind a credential another service relays while serving its call (authenticated, nothing counted). */
    relayed: (credential: string, requestId: string): Promise<Caller> => callerOf(credential, requestId, true),
    answered,
    /** Sends the request log's waiting entries (at shutdown, before the clients close). */
    stop: () => requestLog.stop(),
  };
}

export type DirectCallers = ReturnType<typeof createDirectCallers>;
