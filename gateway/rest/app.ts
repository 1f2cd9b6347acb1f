// The REST surface as a Fastify application. Load order matters and is the order of the hooks:
//   1. error envelope  — every later failure, Fastify's own included, becomes the envelope (with the
//                        router's and Node's parser's refusals, answered by framework-errors.ts and
//                        gateway/core/client-error.ts); JSON bodies nested deeper than 64 levels are
//                        refused before parsing (plugins/json-body.ts);
//   2. request id      — X-Request-Id on every response, and on the request's trace span;
//   3. CORS            — preflights answered before authentication;
//   4. authentication  — every path, before routing could answer 404;
//   5. rate limits (every authenticated request counts), scopes, deprecation headers;
//   6. idempotency (preHandler/onSend) on routes with config.idempotent — after every refusal above;
//   7. routes, grouped by major version under its own prefix so a /v2 can be served beside /v1.
// Every answer is counted and timed per route (services/kit/metrics.ts) and written to the access
// log (gateway/core/access-log.ts: one line, Fastify's own request logging stays off) and, for an
// authenticated caller, to their request log (services/kit/request-log.ts); its trace spans carry
// the request id and the key id of the caller (gateway/core/request-span.ts, shared with MCP; never
// the secret).
import type { Server } from 'node:http';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { Database } from '../../services/kit/db/database.js';
import type { Logger } from '../../services/kit/logger.js';
import { metrics, statusClass } from '../../services/kit/metrics.js';
import type { Deprecation } from '../core/deprecations.js';
import { earlyServerFactory } from '../core/early-server.js';
import type { Edge } from '../core/edge.js';
import type { RateLimiter } from '../../services/kit/rate-limit/limiter.js';
import { logAccess } from '../core/access-log.js';
import { answerClientError } from '../core/client-error.js';
import { requestIdFrom } from '../core/request-id.js';
import { annotateRequest } from '../core/request-span.js';
import authentication from './plugins/authentication.js';
import cors, { type CorsOptions } from './plugins/cors.js';
import deprecation from './plugins/deprecation.js';
import { frameworkErrors, MAX_PARAM_LENGTH } from './framework-errors.js';
import errorEnvelope from './plugins/error-envelope.js';
import jsonBody from './plugins/json-body.js';
import idempotency from './plugins/idempotency.js';
import rateLimit from './plugins/rate-limit.js';
import scopes from './plugins/scopes.js';
import v1Routes from './routes/v1/index.js';

/** Request bodies are limited to 1 MiB (docs/API-DECISIONS.md). */
export const BODY_LIMIT_BYTES = 1024 * 1024;

export interface RestAppOptions {
  edge: Edge;
  logger: Logger;
  cors: CorsOptions;
  deprecations: Deprecation[];
  limiter: RateLimiter;
  /** The edge's own store: idempotency records. */
  db: Database;
  /** A server already bound to the REST port (its URL names the REST audience); else the app listens itself. */
  server?: Server;
}

export function buildRestApp(options: RestAppOptions): FastifyInstance {
  const early = options.server && earlyServerFactory(options.server);
  const app = Fastify({
    ...(early && { serverFactory: early.serverFactory }),
    loggerInstance: options.logger,
    bodyLimit: BODY_LIMIT_BYTES,
    genReqId: (req) => requestIdFrom(req.headers['x-request-id']),
    logController: new LogController({ requestIdLogLabel: 'requestId', disableRequestLogging: true }),
    // Refusals made before any hook (undecodable path, over-long parameter) and by Node's HTTP
    // parser come out in the envelope too (framework-errors.ts, gateway/core/client-error.ts).
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: frameworkErrors(options.edge),
    clientErrorHandler: answerClientError,
    // Node answers a request without Host with a bare 400 of its own; ours goes through
    // authentication and the envelope like any other (docs/API-DECISIONS.md).
    http: { requireHostHeader: false },
  });
  // A server bound early answers 503 until every route is registered (early-server.ts).
  if (early) app.addHook('onReady', async () => early.serveWhenReady());
  app.register(errorEnvelope);
  app.register(jsonBody);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    annotateRequest(request.raw, request.id);
  });
  // onSend: the caller is known by now (when there is one) and the request's span is still open.
  app.addHook('onSend', async (request) => {
    if (request.caller) annotateRequest(request.raw, request.id, request.caller);
  });
  app.addHook('onResponse', async (request, reply) => {
    // The route template, never the raw URL: one series per route; requests no route matched share one.
    const labels = { method: request.method, route: request.routeOptions.url ?? 'unmatched', status_class: statusClass(reply.statusCode) };
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, reply.elapsedTime / 1000);
    logAccess(options.logger, {
      surface: 'rest',
      method: request.method,
      route: labels.route,
      status: reply.statusCode,
      durationMs: reply.elapsedTime,
      requestId: request.id,
      caller: request.caller,
    });
    // The caller's own request log: only a request whose credential was recognised.
    if (request.caller) {
      options.edge.requestLog.record({
        caller: request.caller, surface: 'rest', method: request.method, url: request.url, status: reply.statusCode,
        durationMs: reply.elapsedTime, requestId: request.id,
      });
    }
  });
  app.register(cors, options.cors);
  app.register(authentication, { edge: options.edge });
  app.register(rateLimit, { limiter: options.limiter });
  app.register(scopes);
  app.register(deprecation, { schedule: options.deprecations });
  app.register(idempotency, { db: options.db });
  app.register(v1Routes, { prefix: '/v1', edge: options.edge });
  return app as unknown as FastifyInstance;
}
