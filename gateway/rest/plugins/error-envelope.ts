// Every non-2xx answer is the error envelope: {"error": {"code", "message", "request_id", ...}}.
// Fastify's own failures (unknown route, unreadable body, body too large) are translated here;
// a 5xx never carries internals, and no message quotes the request's path or input back.
import fp from 'fastify-plugin';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, fromRemote, isLoggedAsOutage } from '../../core/api-error.js';
import { metrics } from '../../../services/kit/metrics.js';

export function sendError(request: FastifyRequest, reply: FastifyReply, error: ApiError): FastifyReply {
  metrics.apiErrors.inc({ surface: 'rest', code: error.code });
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply
    .code(error.status)
    .type('application/json; charset=utf-8')
    .send({ error: { code: error.code, message: error.message, request_id: request.id, ...error.extras } });
}

/** Fastify's own error codes, translated to ours. */
function fromFastify(error: FastifyError): ApiError {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(413, 'payload_too_large', 'request body is larger than 1 MiB');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(400, 'bad_request', 'unsupported Content-Type: send application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError(400, 'bad_request', 'the body is empty but Content-Type is application/json');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError(400, 'bad_request', 'Content-Length does not match the body');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError(400, 'bad_request', 'the body is not valid JSON');
  }
  if (error instanceof SyntaxError) return new ApiError(400, 'bad_request', 'the body is not valid JSON');
  // Any other refusal of Fastify's (a 4xx of its own): the request could not be read. Its message
  // may quote the input, so a fixed sentence is sent instead.
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return new ApiError(400, 'bad_request', 'the request could not be read');
  }
  return new ApiError(500, 'internal', 'internal error');
}

export default fp(
  async (app) => {
    app.setErrorHandler((error: FastifyError, request, reply) => {
      // A dependency that cannot answer (Redis, the store, a service) is this request's 503 with
      // Retry-After; its outage is logged once where it is seen (services/kit/dependencies/state.ts),
      // not here for every request. A 503 `unavailable` is only ever such an outage.
      const apiError = error instanceof ApiError ? error : isLoggedAsOutage(error) ? fromRemote(error) : fromFastify(error);
      const outage = apiError.status === 503 && apiError.code === 'unavailable';
      if (apiError.status >= 500 && !outage) request.log.error({ err: error }, 'request failed');
      return sendError(request, reply, apiError);
    });
    app.setNotFoundHandler((request, reply) =>
      sendError(request, reply, new ApiError(404, 'not_found', 'no such route: see GET /v1/openapi.json for the served paths and methods')),
    );
  },
  { name: 'error-envelope' },
);
