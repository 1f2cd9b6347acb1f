// Unit tests sit beside the code; cross-service and end-to-end suites live in test/. The suites in
// test/postgres need a real PostgreSQL and Redis and run when DATABASE_URL and REDIS_URL are set,
// as CI does; store-backed suites elsewhere add PostgreSQL runs when DATABASE_URL is set. A run
// without them says so first (test/helpers/left-out.ts).
//
// Two groups, one after the other, each two files at a time (one worker per core): first most
// files, then the files that start whole multi-process systems, a browser, child processes under a
// kill, or fuzz thousands of requests, so those never run beside the many light files.
//
// In the first group a worker runs file after file in one process (`isolate: false`): the system's
// modules are imported once per worker rather than once per file, which was a sixth of the run.
// Each file still starts its own systems and stores. The few files that replace a module (vi.mock)
// or read process-wide telemetry state (the global tracer provider, the metrics registry) run
// isolated, a process each, beside them.
// Type-level tests (*.test-d.ts) are checked by the compiler in the same run. Every run writes
// test-results/junit.xml; `.ci/run` prints the slowest files from it
// (test/helpers/slowest-files.ts).
import { defineConfig } from 'vitest/config';

const withStores = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);

const everyTestFile = ['services/**/*.test.ts', 'gateway/**/*.test.ts', 'deploy/**/*.test.ts', 'proto/**/*.test.ts', 'test/*.test.ts', ...(withStores ? ['test/postgres/**/*.test.ts'] : [])];

/** The files of the second group. */
export const heavyTestFiles = [
  'test/postgres/**/*.test.ts',
  'test/*-browser.test.ts',
  'test/fuzz-*.test.ts',
  'test/start-*.test.ts',
  'test/idempotency-crash.test.ts',
  'test/webhook-delivery-crash.test.ts',
  'test/webhook-delivery-crash.test.ts',
  'test/seed-restart.test.ts',
  'test/admin-cli-running.test.ts',
  'test/runtime-flags.test.ts',
  'test/oauth-mcp-client.test.ts',
  'test/mcp-conformance.test.ts',
  'test/readme-walkthrough.test.ts',
];

/** Files that need a process of their own: they mock a module or read process-wide telemetry state. */
export const isolatedTestFiles = [
  'test/search.test.ts',
  'gateway/rest/openapi/openapi.test.ts',
  'services/kit/telemetry.test.ts',
  'services/enrichment/pipeline/tracing.test.ts',
  'test/mcp-tracing.test.ts',
  'test/deploy-monitoring.test.ts',
];

export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    globalSetup: ['test/helpers/left-out.ts'],
    reporters: ['default', 'junit'],
    outputFile: { junit: 'test-results/junit.xml' },
    projects: [
      {
        extends: true,
        test: { name: 'shared-process', include: everyTestFile, exclude: [...heavyTestFiles, ...isolatedTestFiles], isolate: false, maxWorkers: 2, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: { name: 'isolated', include: isolatedTestFiles, maxWorkers: 2, sequence: { groupOrder: 0 } },
      },
      {
        // Type-level tests (*.test-d.ts): the compiler checks them; nothing of them runs.
        extends: true,
        test: { name: 'types', include: [], typecheck: { enabled: true, only: true, include: ['test/**/*.test-d.ts'], tsconfig: 'test/tsconfig.types.json' }, sequence: { groupOrder: 0 }, maxWorkers: 2 },
      },
      {
        extends: true,
        test: { name: 'heavy', include: heavyTestFiles.filter((f) => withStores || !f.startsWith('test/postgres/')), maxWorkers: 2, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
