// Authentication runs first, on every path — known or not, any method — so an unauthenticated
// request is 401 before routing could answer 404. The one exception is a CORS preflight, which is
// answered 204 before authentication.
import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import type { Caller } from '../../../proto/gen/expertnet/common/v1/common.js';
import type { DescribeCredentialResponse } from '../../../proto/gen/expertnet/identity/v1/identity_service.js';
import type { CallerContext, Edge } from '../../core/edge.js';
import { presentedCredential } from '../../core/credentials.js';
import { ApiError } from '../../core/api-error.js';

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller | null;
    /** The credential's description, fetched with authentication on routes flagged `describeCaller`. */
    callerDescription: DescribeCredentialResponse | null;
    /**
     * Set when the caller came from identity's cache: the rate-limit step checks its stamp, and
     * reads the caller live with `refresh` when it is stale (docs/CREDENTIAL-CACHE.md).
     */
    callerStamp: { stamp: string; refresh(): Promise<Caller> } | null;
  }
  interface FastifyContextConfig {
    /** The route shows the credential's description: authentication fetches it in the same call. */
    describeCaller?: boolean;
  }
}

function isPreflight(request: FastifyRequest): boolean {
  return request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined;
}

/** The authenticated caller of this request, for route handlers. */
export function callerContext(request: FastifyRequest): CallerContext {
  if (!request.caller) throw new ApiError(401, 'unauthorized', 'missing credentials: send an API key');
  return { caller: request.caller, requestId: request.id, ...(request.callerDescription && { description: request.callerDescription }) };
}

export default fp<{ edge: Edge }>(
  async (app, { edge }) => {
    app.decorateRequest('caller', null);
    app.decorateRequest('callerDescription', null);
    app.decorateRequest('callerStamp', null);
    app.addHook('onRequest', async (request, reply) => {
      if (isPreflight(request)) return reply.code(204).send();
      const credential = presentedCredential(request.headers);
      if (request.routeOptions.config?.describeCaller) {
        const { caller, description } = await edge.authenticateAndDescribe(credential, request.id);
        request.caller = caller;
        request.callerDescription = description;
        return;
      }
      const { caller, stamp } = await edge.authenticateCached(credential, request.id);
      request.caller = caller;
      if (stamp) request.callerStamp = { stamp, refresh: () => edge.refresh(credential, request.id) };
    });
  },
  { name: 'authentication', dependencies: ['error-envelope'] },
);
