// Scopes per the endpoint table, checked at the edge (and again by the service): a route declares
// `config: { scope }`; a caller without it gets 403 forbidden naming the scope. A route without a
// scope accepts any valid credential.
import fp from 'fastify-plugin';
import type { Scope } from '../../../services/kit/scopes.js';
import { ApiError } from '../../core/api-error.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    scope?: Scope;
    /** The route honours Idempotency-Key (the two community write POSTs only). */
    idempotent?: boolean;
  }
}

export default fp(
  async (app) => {
    app.addHook('onRequest', async (request) => {
      const scope = request.routeOptions.config?.scope;
      if (scope && request.caller && !request.caller.scopes.includes(scope)) {
        throw new ApiError(403, 'forbidden', `this credential lacks the ${scope} scope`, { required_scope: scope });
      }
    });
  },
  { name: 'scopes', dependencies: ['authentication'] },
);
