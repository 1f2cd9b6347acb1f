// The business core of the edge, shared by the REST and MCP surfaces: it turns a presented
// credential (an API key or an OAuth access token) into a caller (asking identity, every time: live
// key and grant state decides, or a cached caller whose stamp the rate limiter checks in the same
// step) and calls the services as that caller; it reports answered requests to the request log. Surfaces add only what is theirs (HTTP status
// codes, headers, tools).
import type { Caller } from '../../proto/gen/expertnet/common/v1/common.js';
import type { DescribeCredentialResponse } from '../../proto/gen/expertnet/identity/v1/identity_service.js';
import { callAs, type CallOptions, type ServiceClients } from '../../services/kit/grpc/client.js';
import type { TokenSigner } from '../../services/kit/grpc/caller-token.js';
import type { Principal } from '../../services/kit/grpc/principal.js';
import { ApiError, fromRemote } from './api-error.js';
import type { PresentedCredential } from './credentials.js';
import { createRequestLogReporter, type RequestLogOptions } from '../../services/kit/request-log.js';

export interface EdgeDeps {
  clients: ServiceClients;
  signer: TokenSigner;
  deadlineMs: number;
  /** The request log's buffer (request-log.ts); its defaults otherwise. */
  requestLog?: RequestLogOptions;
}

/** A caller in the middle of one request. */
export interface CallerContext {
  caller: Caller;
  requestId: string;
  /** The credential's description, when authentication already fetched it (GET /v1/me). */
  description?: DescribeCredentialResponse;
}

export function createEdge(deps: EdgeDeps) {
  const options = (principal: Principal, requestId: string): Promise<CallOptions> =>
    callAs(deps.signer, principal, requestId, deps.deadlineMs);

  /** `mode`: describe too; or accept a cached caller (its stamp to check); or refresh a stale one. */
  async function authenticated(credential: PresentedCredential, requestId: string, mode: 'live' | 'describe' | 'cached' | 'refresh' = 'live') {
    if (credential.kind === 'none') {
      throw new ApiError(401, 'unauthorized', 'missing credentials: send an API key or an access token');
    }
    const flags = { describe: mode === 'describe', acceptCached: mode === 'cached', refresh: mode === 'refresh' };
    // Identity receives exactly one of the two fields; a token also the resource it is presented to.
    const request =
      credential.kind === 'access_token'
        ? { accessToken: credential.value, resource: credential.resource ?? '', ...flags }
        : { apiKey: credential.value, ...flags };
    try {
      const { caller, description, stamp } = await deps.clients.identity.authenticate(request, await options({ kind: 'edge' }, requestId));
      if (!caller) throw new ApiError(401, 'unauthorized', 'invalid or revoked credentials');
      return { caller, description, stamp };
    } catch (error) {
      throw fromRemote(error);
    }
  }

  // Answered requests go to identity's request log in batches, as the edge (request-log.ts).
  const requestLog = createRequestLogReporter(
    async (requests) => deps.clients.identity.recordRequests({ requests }, await options({ kind: 'edge' }, `request-log-${Date.now()}`)),
    deps.requestLog,
  );

  return {
    clients: deps.clients,
    requestLog,

    async authenticate(credential: PresentedCredential, requestId: string): Promise<Caller> {
      return (await authenticated(credential, requestId)).caller;
    },

    /**
     * The caller, perhaps from identity's cache: then `stamp` is set, and the caller stands only if
     * the rate limiter's stamped check passes (docs/CREDENTIAL-CACHE.md); if it is stale,
     * `refresh` reads it live.
     */
    async authenticateCached(credential: PresentedCredential, requestId: string): Promise<{ caller: Caller; stamp: string }> {
      const { caller, stamp } = await authenticated(credential, requestId, 'cached');
      return { caller, stamp };
    },

    /** The caller read live after a cached one was stale: the same request, not counted again. */
    async refresh(credential: PresentedCredential, requestId: string): Promise<Caller> {
      return (await authenticated(credential, requestId, 'refresh')).caller;
    },

    /**
     * Authenticates and describes the credential in the same identity call (for a route that shows
     * the description, GET /v1/me): one round trip less than authenticate + DescribeCredential.
     */
    async authenticateAndDescribe(credential: PresentedCredential, requestId: string): Promise<{ caller: Caller; description: DescribeCredentialResponse }> {
      const { caller, description } = await authenticated(credential, requestId, 'describe');
      if (!description) throw new ApiError(500, 'internal', 'internal error');
      return { caller, description };
    },

    /** Call options that make a service see this caller. */
    as(ctx: CallerContext): Promise<CallOptions> {
      return options({ kind: 'caller', caller: ctx.caller }, ctx.requestId);
    },
  };
}

export type Edge = ReturnType<typeof createEdge>;
