// Unit tests sit beside the code; cross-service and end-to-end suites live in test/. The suites in
// test/postgres need a real PostgreSQL (and Redis) and run when DATABASE_URL is set, as CI does.
import { defineConfig } from 'vitest/config';

const withPostgres = Boolean(process.env.DATABASE_URL);

export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    include: ['services/**/*.test.ts', 'gateway/**/*.test.ts', 'proto/**/*.test.ts', 'test/*.test.ts', ...(withPostgres ? ['test/postgres/**/*.test.ts'] : [])],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
