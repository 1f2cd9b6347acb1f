// Scopes per the endpoint table, checked at the edge (and again by the service): a route carries
// its endpoint's scope as `config: { scope }` (routes/v1/route.ts); a caller without it gets 403
// forbidden naming the scope (gateway/core/scope-check.ts, shared with MCP). A route without a
// scope accepts any valid credential.
import fp from 'fastify-plugin';
import type { Scope } from '../../../services/kit/scopes.js';
import { requireScope } from '../../core/scope-check.js';

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
      if (scope && request.caller) requireScope(request.caller, scope);
    });
  },
  { name: 'scopes', dependencies: ['authentication'] },
);
