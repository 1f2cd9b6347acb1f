// Unit tests sit beside the code; cross-service and end-to-end suites live in test/. The suites in
// test/postgres need a real PostgreSQL and Redis and run when DATABASE_URL and REDIS_URL are set,
// as CI does; store-backed suites elsewhere add PostgreSQL runs when DATABASE_URL is set. A run
// without them says so first (test/helpers/left-out.ts).
import { defineConfig } from 'vitest/config';

const withStores = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);

export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    include: ['services/**/*.test.ts', 'gateway/**/*.test.ts', 'deploy/**/*.test.ts', 'proto/**/*.test.ts', 'test/*.test.ts', ...(withStores ? ['test/postgres/**/*.test.ts'] : [])],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    globalSetup: ['test/helpers/left-out.ts'],
  },
});
