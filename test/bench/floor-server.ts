// The contract's floor: the bare route plus the least every authenticated request must do whatever
// the design — find the key by the hash of its secret (a map here, as a warm credential cache) and
// take one step of its rate limit in Redis, the one budget all gateway replicas share (the same
// script and headers as the edge). No services and no store. Run as its own process by the
// benchmark when REDIS_URL is set: it bounds what any edge keeping rate limits exact across
// replicas can reach on this machine.
import { createHash } from 'node:crypto';
import Fastify from 'fastify';
import { RateTier } from '../../proto/gen/expertnet/common/v1/common.js';
import { rateLimitHeaders } from '../../services/kit/rate-limit/headers.js';
import { RedisRateLimiter } from '../../services/kit/rate-limit/redis-limiter.js';
import { connectRedis } from '../../services/kit/redis.js';
import { meShapedBody } from './me-shaped-body.js';

const redis = await connectRedis(process.env.REDIS_URL!);
// Its own key prefix, so the floor's buckets never meet the system's.
const limiter = new RedisRateLimiter(redis, { prefix: `rl:floor:${process.pid}:` });
const keys = new Map<string, string>();

const app = Fastify();
app.get('/v1/me', async (request, reply) => {
  const secret = request.headers.authorization?.slice('Bearer '.length) ?? '';
  const hash = createHash('sha256').update(secret).digest('hex');
  let id = keys.get(hash);
  if (!id) keys.set(hash, (id = `key_${keys.size}`));
  const decision = await limiter.check({ credentialId: id, rateTier: RateTier.RATE_TIER_STANDARD, requestedRate: 6000 });
  reply.headers(rateLimitHeaders(decision));
  // The bench's keys never reach their limit; a refusal shows as a non-2xx in its figures.
  if (!decision.allowed) return reply.code(429).send({ error: 'rate_limited' });
  return meShapedBody;
});
console.log(`ready ${await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) })}`);
