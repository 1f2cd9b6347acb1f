// The REST surface as a Fastify application. Load order: error envelope (so every later failure
// is enveloped), the request id header, authentication (before routing), then the routes of each
// major version under its own prefix so a /v2 can be served beside /v1.
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { Logger } from '../../services/kit/logger.js';
import type { Edge } from '../core/edge.js';
import { requestIdFrom } from '../core/request-id.js';
import authentication from './plugins/authentication.js';
import errorEnvelope from './plugins/error-envelope.js';
import meRoutes from './routes/v1/me.js';

/** Request bodies are limited to 1 MiB (docs/API-DECISIONS.md). */
export const BODY_LIMIT_BYTES = 1024 * 1024;

export function buildRestApp(options: { edge: Edge; logger: Logger }): FastifyInstance {
  const app = Fastify({
    loggerInstance: options.logger,
    bodyLimit: BODY_LIMIT_BYTES,
    genReqId: (req) => requestIdFrom(req.headers['x-request-id']),
    logController: new LogController({ requestIdLogLabel: 'requestId', disableRequestLogging: true }),
  });
  app.register(errorEnvelope);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.register(authentication, { edge: options.edge });
  app.register(
    async (v1) => {
      v1.register(meRoutes, { edge: options.edge });
    },
    { prefix: '/v1' },
  );
  return app as unknown as FastifyInstance;
}
