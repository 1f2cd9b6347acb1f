// Redis (ioredis) when REDIS_URL is set: shared state across replicas (rate limits). Connecting
// fails loudly at start-up rather than on the first request. Commands issued in the same tick (the
// rate-limit steps of concurrent requests) go out in one socket write (auto-pipelining): each still
// runs on its own and gets its own answer, and a socket write per request was 7% of the edge's time
// under load (docs/BENCHMARKS.md).
import { Redis } from 'ioredis';

export async function connectRedis(url: string): Promise<Redis> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2, enableOfflineQueue: false, enableAutoPipelining: true });
  redis.on('error', () => undefined); // reported through readiness and the calls that fail
  await redis.connect();
  await redis.ping();
  return redis;
}

export type { Redis };
