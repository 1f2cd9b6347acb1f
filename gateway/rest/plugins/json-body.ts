// The JSON body parser of the REST surface: Fastify's own (secure-json-parse, prototype poisoning
// refused), preceded by the nesting bound of gateway/core/json-depth.ts. A body nested deeper than
// MAX_JSON_DEPTH is 400 bad_request before it is parsed, so the same answer comes with or without an
// Idempotency-Key: no idempotency record, no handler, nothing stored.
import fp from 'fastify-plugin';
import { ApiError } from '../../core/api-error.js';
import { nestsDeeperThan, TOO_DEEP_MESSAGE } from '../../core/json-depth.js';

export default fp(
  async (app) => {
    const parse = app.getDefaultJsonParser('error', 'error');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      if (nestsDeeperThan(body as string)) return done(new ApiError(400, 'bad_request', TOO_DEEP_MESSAGE), undefined);
      parse(request, body as string, done);
    });
  },
  { name: 'json-body', dependencies: ['error-envelope'] },
);
