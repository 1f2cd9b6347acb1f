// Registers a REST route from its declaration in the endpoint table (gateway/core/contract): the
// method and path, the scope the scopes plugin checks, whether the idempotency plugin honours
// Idempotency-Key, and the validation of path, query and body with the endpoint's schemas. A route
// file only supplies the handler that calls the core with the validated input.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Endpoint } from '../../../core/contract/schemas.js';
import { validateRequest, type RequestParts } from '../../../core/request-validation.js';

export type RouteHandler<E extends Endpoint> = (input: RequestParts<E>, request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/** The Fastify path of an endpoint, relative to the major version's prefix: /v1/a/{id} → /a/:id. */
export function fastifyPath(endpoint: Endpoint): string {
  return endpoint.path.replace(/^\/v\d+/, '').replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}

export function route<E extends Endpoint>(
  app: FastifyInstance,
  endpoint: E,
  handler: RouteHandler<E>,
  options: { describeCaller?: boolean } = {},
): void {
  app.route({
    method: endpoint.method,
    url: fastifyPath(endpoint),
    config: {
      ...(endpoint.scope && { scope: endpoint.scope }),
      ...(endpoint.idempotent && { idempotent: true }),
      ...(options.describeCaller && { describeCaller: true }),
    },
    // Validation runs in the handler, after every hook (authentication, rate limit, scope,
    // Idempotency-Key): a request is refused for its credential before its content.
    handler: async (request, reply) =>
      handler(validateRequest(endpoint, { params: request.params, query: request.query, body: request.body }), request, reply),
  });
}
