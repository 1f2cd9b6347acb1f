// Per-credential rate limiting. Runs after authentication (an onRequest hook added after its own):
// every authenticated request is counted, and every authenticated response — success or error,
// a 429 included — carries the RateLimit headers. Requests without a caller are not limited here
// (they are refused by authentication, or are CORS preflights).
import fp from 'fastify-plugin';
import { ApiError } from '../../core/api-error.js';
import type { RateLimitDecision, RateLimiter } from '../../core/rate-limit/limiter.js';
import { rateLimitHeaders } from '../../core/rate-limit/headers.js';
import { refusalMessage } from '../../core/rate-limit/refusal.js';
import type {} from './authentication.js'; // request.caller

export interface RateLimitPluginOptions {
  limiter: RateLimiter;
}

export default fp<RateLimitPluginOptions>(
  async (app, { limiter }) => {
    app.addHook('onRequest', async (request, reply) => {
      const caller = request.caller;
      if (!caller) return;
      let decision: RateLimitDecision;
      try {
        decision = await limiter.check({
          credentialId: caller.credentialId,
          rateTier: caller.rateTier,
          requestedRate: caller.requestedRate,
        });
      } catch (err) {
        // Fail closed: without the shared limiter no request goes through unlimited.
        request.log.error({ err }, 'rate limiter unavailable');
        throw new ApiError(503, 'unavailable', 'rate limiting is unavailable; retry shortly', {}, { 'retry-after': '1' });
      }
      // Set before throwing: the error handler keeps headers already on the reply, so the 429
      // carries them too.
      const headers = rateLimitHeaders(decision);
      reply.headers(headers);
      if (!decision.allowed) {
        const retryAfter = String(decision.retryAfterSeconds ?? 1);
        throw new ApiError(429, 'rate_limited', refusalMessage(decision), {}, { 'retry-after': retryAfter });
      }
    });
  },
  { name: 'rate-limit', dependencies: ['authentication'] },
);
