// Redis (ioredis) when REDIS_URL is set: shared state across replicas (rate limits). Connecting
// fails loudly at start-up rather than on the first request. Commands issued in the same tick (the
// rate-limit steps of concurrent requests) go out in one socket write (auto-pipelining): each still
// runs on its own and gets its own answer, and a socket write per request was 7% of the edge's time
// under load (`npm run bench`).
//
// Every command has a bounded time (REDIS_COMMAND_TIMEOUT_MS): a Redis that stops answering (a
// frozen process, a lost network) fails the command past it instead of holding the request; a
// Redis that is not connected fails it at once (no offline queue). The client reconnects by itself
// and its state (services/kit/dependencies/state.ts) logs the outage once, not per command.
import { Redis, type RedisOptions } from 'ioredis';
import type { Config } from './config.js';
import type { DependencyState } from './dependencies/state.js';
import { isDependencyUnavailable } from './dependencies/unavailable.js';

export interface RedisBounds {
  /** Longest wait for a command's answer (ms). */
  commandTimeoutMs: number;
  /** Longest wait for a connection (ms). */
  connectTimeoutMs: number;
}

export const DEFAULT_REDIS_BOUNDS: RedisBounds = { commandTimeoutMs: 1000, connectTimeoutMs: 1000 };

export function redisBoundsOf(config: Pick<Config, 'REDIS_COMMAND_TIMEOUT_MS' | 'REDIS_CONNECT_TIMEOUT_MS'>): RedisBounds {
  return { commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS, connectTimeoutMs: config.REDIS_CONNECT_TIMEOUT_MS };
}

/**
 * ioredis options of a REDIS_URL: redis:// and rediss:// as ioredis reads them, and a unix socket
 * as redis+unix:///path/to/redis.sock or unix:///path/to/redis.sock (`?db=N` selects a database,
 * `?password=…` authenticates).
 */
export function redisTarget(url: string): string | RedisOptions {
  if (!/^(redis\+)?unix:/i.test(url)) return url;
  const parsed = new URL(url);
  const db = parsed.searchParams.get('db');
  const password = parsed.searchParams.get('password');
  return { path: decodeURIComponent(parsed.pathname), ...(db !== null && { db: Number(db) }), ...(password && { password }) };
}

/** Reconnection attempts come quickly and then every half second: back within a second of Redis. */
const retryStrategy = (times: number) => Math.min(times * 100, 500);

/**
 * Reports every command's outcome to `state`: a command failing because Redis cannot answer marks
 * it down, any answer marks it up. Wraps the instance's sendCommand, the path of every command
 * (pipelines and scripts included).
 */
function watch(redis: Redis, state: DependencyState): void {
  const send = redis.sendCommand.bind(redis);
  const up = () => state.succeeded();
  const down = (error: unknown) => {
    if (isDependencyUnavailable(error)) state.failed(error);
    else up(); // Redis answered, with an error of the command's own
  };
  redis.sendCommand = ((...args: Parameters<Redis['sendCommand']>) => {
    const answer = send(...args) as Promise<unknown>;
    answer.then(up, down);
    return answer;
  }) as Redis['sendCommand'];
}

export interface ConnectRedisOptions {
  bounds?: RedisBounds;
  /** Where the outcomes of the commands are reported (the process's Redis state); none: not reported. */
  state?: DependencyState;
}

export async function connectRedis(url: string, options: ConnectRedisOptions = {}): Promise<Redis> {
  const bounds = options.bounds ?? DEFAULT_REDIS_BOUNDS;
  const target = redisTarget(url);
  const redisOptions: RedisOptions = {
    lazyConnect: true,
    // A command is sent once more at most after a reconnection, within its commandTimeout.
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    enableAutoPipelining: true,
    commandTimeout: bounds.commandTimeoutMs,
    connectTimeout: bounds.connectTimeoutMs,
    retryStrategy,
  };
  const redis = typeof target === 'string' ? new Redis(target, redisOptions) : new Redis({ ...target, ...redisOptions });
  redis.on('error', () => undefined); // reported through the state, readiness and the calls that fail
  if (options.state) watch(redis, options.state);
  await redis.connect();
  await redis.ping();
  return redis;
}

export type { Redis };
