// Per-credential rate limiting. Runs after authentication (an onRequest hook added after its own):
// every authenticated request is counted, and every authenticated response — success or error,
// a 429 included — carries the RateLimit headers. A caller identity answered from its cache is
// checked here too, in the same step (docs/CREDENTIAL-CACHE.md). Requests without a caller are not
// limited here (they are refused by authentication, or are CORS preflights).
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Caller } from '../../../proto/gen/expertnet/common/v1/common.js';
import { ApiError, isLoggedAsOutage } from '../../core/api-error.js';
import type { RateLimitDecision, RateLimiter, RateLimitKey } from '../../../services/kit/rate-limit/limiter.js';
import { rateLimitHeaders } from '../../../services/kit/rate-limit/headers.js';
import { refusalMessage } from '../../../services/kit/rate-limit/refusal.js';
import type {} from './authentication.js'; // request.caller

export interface RateLimitPluginOptions {
  limiter: RateLimiter;
}

function keyOf(caller: Caller): RateLimitKey {
  return { credentialId: caller.credentialId, rateTier: caller.rateTier, requestedRate: caller.requestedRate };
}

/**
 * One step of the caller's bucket. A caller from identity's cache counts only while its stamp
 * still stands; a stale one is read live (request.caller replaced) and checked as such.
 */
async function checkCaller(limiter: RateLimiter, request: FastifyRequest): Promise<RateLimitDecision> {
  const cached = request.callerStamp;
  if (cached) {
    const decision = await limiter.checkStamped(keyOf(request.caller!), cached.stamp);
    if (decision !== 'stale') return decision;
    request.callerStamp = null;
    request.caller = await cached.refresh();
  }
  return limiter.check(keyOf(request.caller!));
}

export default fp<RateLimitPluginOptions>(
  async (app, { limiter }) => {
    app.addHook('onRequest', async (request, reply) => {
      if (!request.caller) return;
      let decision: RateLimitDecision;
      try {
        decision = await checkCaller(limiter, request);
      } catch (err) {
        if (err instanceof ApiError) throw err; // the refreshed credential's own refusal
        // Fail closed: without the shared limiter no request goes through unlimited. Redis's outage
        // is logged once by its state (services/kit/redis.ts); anything else here.
        if (!isLoggedAsOutage(err)) request.log.error({ err }, 'rate limiter unavailable');
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
