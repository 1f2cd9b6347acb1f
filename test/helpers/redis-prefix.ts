// A rate-limit key prefix of a test run's own (RATE_LIMIT_PREFIX): runs sharing one Redis — this
// one, another engineer's, production's `rl:` — never see each other's buckets, and the run
// deletes what it wrote when it ends.
import { randomUUID } from 'node:crypto';
import { connectRedis } from '../../services/kit/redis.js';

export interface RedisTestPrefix {
  prefix: string;
  /** RATE_LIMIT_PREFIX for the processes under test. */
  env: { RATE_LIMIT_PREFIX: string };
  /** Deletes every key under the prefix; returns how many there were. */
  cleanup(): Promise<number>;
}

export function redisTestPrefix(): RedisTestPrefix {
  const prefix = `rltest:${randomUUID()}:`;
  return {
    prefix,
    env: { RATE_LIMIT_PREFIX: prefix },
    async cleanup() {
      const url = process.env.REDIS_URL;
      if (!url) return 0;
      const redis = await connectRedis(url);
      let deleted = 0;
      try {
        let cursor = '0';
        do {
          const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
          cursor = next;
          if (keys.length > 0) deleted += await redis.del(...keys);
        } while (cursor !== '0');
      } finally {
        redis.disconnect();
      }
      return deleted;
    },
  };
}
