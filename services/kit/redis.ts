// Redis (ioredis) when REDIS_URL is set: shared state across replicas (rate limits). Connecting
// fails loudly at start-up rather than on the first request.
import { Redis } from 'ioredis';

export async function connectRedis(url: string): Promise<Redis> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2, enableOfflineQueue: false });
  redis.on('error', () => undefined); // reported through readiness and the calls that fail
  await redis.connect();
  await redis.ping();
  return redis;
}

export type { Redis };
