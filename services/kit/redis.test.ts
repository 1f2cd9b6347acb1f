import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { redisTarget } from './redis.js';

describe('REDIS_URL', () => {
  it('takes a unix socket as redis+unix:// or unix://, with a database and a password', () => {
    expect(redisTarget('redis+unix:///tmp/x/redis.sock')).toEqual({ path: '/tmp/x/redis.sock' });
    expect(redisTarget('unix:///var/run/redis.sock?db=2')).toEqual({ path: '/var/run/redis.sock', db: 2 });
    expect(redisTarget('redis+unix:///tmp/r.sock?password=s3cret')).toEqual({ path: '/tmp/r.sock', password: 's3cret' });
    expect(redisTarget('redis://127.0.0.1:6379/1')).toBe('redis://127.0.0.1:6379/1');
  });

  it('is validated with the bounds of Redis, the store and readiness', () => {
    const config = loadConfig({ REDIS_URL: 'redis+unix:///tmp/r.sock' });
    expect(config).toMatchObject({
      REDIS_COMMAND_TIMEOUT_MS: 1000,
      REDIS_CONNECT_TIMEOUT_MS: 1000,
      DATABASE_CONNECT_TIMEOUT_MS: 5000,
      DATABASE_STATEMENT_TIMEOUT_MS: 30_000,
      READINESS_TIMEOUT_MS: 2000,
      DEPENDENCY_LOG_REPEAT_SECONDS: 30,
    });
    expect(() => loadConfig({ REDIS_URL: 'http://x', REDIS_COMMAND_TIMEOUT_MS: '0', READINESS_TIMEOUT_MS: 'soon' })).toThrow(
      /REDIS_URL[\s\S]*REDIS_COMMAND_TIMEOUT_MS[\s\S]*READINESS_TIMEOUT_MS/,
    );
  });
});
