// The rate-limit plugin in a bare Fastify app: the error envelope, a stand-in for authentication
// (the caller comes from test headers) and the plugin over the memory limiter.
import Fastify, { type FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Caller, RateTier } from '../../../proto/gen/expertnet/common/v1/common.js';
import { ApiError } from '../../core/api-error.js';
import { MemoryRateLimiter } from '../../../services/kit/rate-limit/memory-limiter.js';
import errorEnvelope from './error-envelope.js';
import rateLimit from './rate-limit.js';
import type {} from './authentication.js'; // request.caller

/** Sets request.caller from x-test-caller (credential id) and x-test-tier (restricted|standard). */
const standInAuthentication = fp(
  async (app) => {
    app.decorateRequest('caller', null);
    app.addHook('onRequest', async (request) => {
      const id = request.headers['x-test-caller'];
      if (typeof id !== 'string') return;
      const standard = request.headers['x-test-tier'] === 'standard';
      request.caller = Caller.fromPartial({
        credentialId: id,
        rateTier: standard ? RateTier.RATE_TIER_STANDARD : RateTier.RATE_TIER_RESTRICTED,
        requestedRate: standard ? 10 : 0,
      });
    });
  },
  { name: 'authentication', dependencies: ['error-envelope'] },
);

const RATE_LIMIT_HEADERS = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'ratelimit-policy', 'ratelimit'];

describe('rate-limit plugin', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = Fastify({});
    app.register(errorEnvelope);
    app.register(standInAuthentication);
    app.register(rateLimit, { limiter: new MemoryRateLimiter() });
    app.get('/ok', async () => ({ ok: true }));
    app.get('/conflict', async () => {
      throw new ApiError(409, 'conflict', 'already there');
    });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
  });

  const as = (caller: string, tier = 'restricted') => ({ 'x-test-caller': caller, 'x-test-tier': tier });

  it('puts the rate-limit headers on a 200', async () => {
    const res = await app.inject({ method: 'GET', url: '/ok', headers: as('key_a') });
    expect(res.statusCode).toBe(200);
    expect(res.headers['ratelimit-limit']).toBe('5');
    expect(res.headers['ratelimit-remaining']).toBe('4');
    expect(res.headers['ratelimit-reset']).toBe('30');
    expect(res.headers['ratelimit-policy']).toBe('"burst";q=5;w=150, "daily";q=20;w=86400');
    expect(res.headers.ratelimit).toMatch(/^"burst";r=4;t=30, "daily";r=19;t=\d+$/);
    expect(res.headers['retry-after']).toBeUndefined();

    const std = await app.inject({ method: 'GET', url: '/ok', headers: as('key_s', 'standard') });
    expect(std.headers['ratelimit-limit']).toBe('10');
    expect(std.headers['ratelimit-policy']).toBe('"burst";q=10;w=60');
    expect(std.headers.ratelimit).toBe('"burst";r=9;t=6');
  });

  it('puts them on error responses too (a route error, an unknown route)', async () => {
    const conflict = await app.inject({ method: 'GET', url: '/conflict', headers: as('key_b') });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json().error.code).toBe('conflict');
    expect(conflict.headers['ratelimit-remaining']).toBe('4');
    const missing = await app.inject({ method: 'GET', url: '/nowhere', headers: as('key_b') });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['ratelimit-remaining']).toBe('3');
  });

  it('answers the 6th call of a restricted caller 429 rate_limited, with Retry-After and the RateLimit headers', async () => {
    for (let i = 0; i < 5; i++) {
      expect((await app.inject({ method: 'GET', url: '/ok', headers: as('key_c') })).statusCode).toBe(200);
    }
    const res = await app.inject({ method: 'GET', url: '/ok', headers: as('key_c') });
    expect(res.statusCode).toBe(429);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = res.json();
    expect(body.error.code).toBe('rate_limited');
    expect(body.error.message).toMatch(/burst of 5 requests.*retry in \d+ s/);
    expect(typeof body.error.request_id).toBe('string');
    const retryAfter = Number(res.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(29);
    expect(retryAfter).toBeLessThanOrEqual(30);
    for (const name of RATE_LIMIT_HEADERS) expect(res.headers[name], name).toBeDefined();
    expect(res.headers['ratelimit-remaining']).toBe('0');
    expect(res.headers.ratelimit).toMatch(/^"burst";r=0;t=\d+, "daily";r=15;t=\d+$/);
  });

  it('leaves requests without a caller alone', async () => {
    const res = await app.inject({ method: 'GET', url: '/ok' });
    expect(res.statusCode).toBe(200);
    for (const name of [...RATE_LIMIT_HEADERS, 'retry-after']) expect(res.headers[name], name).toBeUndefined();
  });
});
