// CORS, answered before authentication. A preflight (OPTIONS with Origin and
// Access-Control-Request-Method) is always 204 without credentials; it grants the request only
// when the origin is on the configured list. Real responses to an allowed origin expose the headers
// a browser client needs to read (request id, rate limits, deprecation, async polling).
// Hand-written rather than @fastify/cors: a bare OPTIONS must still go through authentication (401),
// which that plugin's preflight handling does not allow.
import fp from 'fastify-plugin';

export const ALLOWED_METHODS = 'GET, POST, PATCH, DELETE, OPTIONS';
export const ALLOWED_REQUEST_HEADERS = 'Authorization, X-API-Key, Content-Type, Idempotency-Key, X-Request-Id';
export const EXPOSED_HEADERS = [
  'X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy', 'RateLimit',
  'Retry-After', 'Deprecation', 'Sunset', 'Link', 'Location', 'Idempotent-Replayed',
].join(', ');

export interface CorsOptions {
  /** Exact origins, or '*' for any. Empty: no browser origin is allowed. */
  allowedOrigins: string[];
  maxAgeSeconds: number;
}

export default fp<CorsOptions>(
  async (app, { allowedOrigins, maxAgeSeconds }) => {
    const anyOrigin = allowedOrigins.includes('*');
    const allowed = (origin: string | undefined) => origin !== undefined && (anyOrigin || allowedOrigins.includes(origin));

    app.addHook('onRequest', async (request, reply) => {
      const origin = request.headers.origin;
      reply.header('vary', 'Origin');
      const isPreflight = request.method === 'OPTIONS' && origin !== undefined && request.headers['access-control-request-method'] !== undefined;
      if (isPreflight) {
        if (allowed(origin)) {
          reply.headers({
            'access-control-allow-origin': origin,
            'access-control-allow-methods': ALLOWED_METHODS,
            'access-control-allow-headers': ALLOWED_REQUEST_HEADERS,
            'access-control-max-age': String(maxAgeSeconds),
          });
        }
        return reply.code(204).send();
      }
      if (allowed(origin)) {
        reply.headers({ 'access-control-allow-origin': origin, 'access-control-expose-headers': EXPOSED_HEADERS });
      }
    });
  },
  { name: 'cors' },
);
