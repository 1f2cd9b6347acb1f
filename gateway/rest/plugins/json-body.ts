// The JSON body parser of the REST surface: Fastify's own (secure-json-parse, prototype poisoning
// refused), preceded by the UTF-8 check of gateway/core/utf8-body.ts and the nesting bound of
// gateway/core/json-depth.ts. A body that is not UTF-8, or nested deeper than MAX_JSON_DEPTH, is
// 400 bad_request before it is parsed, so the same answer comes with or without an
// Idempotency-Key: no idempotency record, no handler, nothing stored. Only JSON is read.
import fp from 'fastify-plugin';
import { ApiError } from '../../core/api-error.js';
import { nestsDeeperThan, TOO_DEEP_MESSAGE } from '../../core/json-depth.js';
import { utf8BodyText } from '../../core/utf8-body.js';

export default fp(
  async (app) => {
    // JSON is the only body the API reads: Fastify's text/plain parser would hand a handler a string
    // (judged "expected object" by validation); without it such a body is 400 bad_request, as any
    // other foreign content type.
    app.removeContentTypeParser('text/plain');
    const parse = app.getDefaultJsonParser('error', 'error');
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
      let text: string;
      try {
        text = utf8BodyText(body as Buffer);
      } catch (error) {
        return done(error as ApiError, undefined);
      }
      if (nestsDeeperThan(text)) return done(new ApiError(400, 'bad_request', TOO_DEEP_MESSAGE), undefined);
      parse(request, text, done);
    });
  },
  { name: 'json-body', dependencies: ['error-envelope'] },
);
