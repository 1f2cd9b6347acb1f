// Refusals Fastify makes while routing, before any hook runs (a path whose percent-encoding cannot
// be decoded, a path parameter too long): Fastify's own answer has no X-Request-Id and quotes the
// path. Here they carry the request id and a log line like every other refusal of the settings
// port: under /oauth as the authorization server answers (400 invalid_request as JSON,
// oauth-input.ts), elsewhere as a page (errors.ts).
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { OAUTH_PATH } from '../../services/kit/public-urls.js';
import { renderError } from './errors.js';

const AUTHORIZATION_SERVER_PATHS = [`${OAUTH_PATH}/`, `/.well-known/oauth-authorization-server${OAUTH_PATH}`];

export function settingsFrameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
  const url = request.raw.url ?? '';
  if (url === OAUTH_PATH || AUTHORIZATION_SERVER_PATHS.some((prefix) => url.startsWith(prefix))) {
    if (status >= 500) request.log.error({ err: error }, 'oauth request failed');
    else request.log.info({ status, error: 'invalid_request', code: error.code }, 'oauth request refused');
    void reply.code(status).header('cache-control', 'no-store').type('application/json').send(status >= 500
      ? { error: 'server_error', error_description: 'the request could not be handled' }
      : { error: 'invalid_request', error_description: error.code === 'FST_ERR_BAD_URL' ? 'the path is not valid percent-encoded UTF-8' : 'the path could not be read' });
    return;
  }
  void renderError(error, request, reply);
}
