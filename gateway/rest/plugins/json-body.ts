// The JSON body parser of the REST surface: Fastify's own (secure-json-parse, prototype poisoning
// refused), preceded by the nesting bound of gateway/core/json-depth.ts. A body nested deeper than
// MAX_JSON_DEPTH is 400 bad_request before it is parsed, so the same answer comes with or without an
// Idempotency-Key: no idempotency record, no handler, nothing stored. Only JSON is read.
import fp from 'fastify-plugin';
import { ApiError } from '../../core/api-error.js';
import { nestsDeeperThan, TOO_DEEP_MESSAGE } from '../../core/json-depth.js';

export default fp(
  async (app) => {
    // JSON is the only body the API reads: Fastify's text/plain parser would hand a handler a string
    // (judged "expected object" by validation); without it such a body is 400 bad_request, as any
    // other foreign content type.
    app.removeContentTypeParser('text/plain');
    const parse = app.getDefaultJsonParser('error', 'error');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      if (nestsDeeperThan(body as string)) return done(new ApiError(400, 'bad_request', TOO_DEEP_MESSAGE), undefined);
      parse(request, body as string, done);
    });
  },
  { name: 'json-body', dependencies: ['error-envelope'] },
);
