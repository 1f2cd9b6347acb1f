// Chaos, multi-process topology: each role in its own process (deploy/local/launch.ts) on
// PostgreSQL. While bulk adds and enrichment runs (with Idempotency-Key), searches (wait_seconds 0,
// then polling) and erasures run, one service process at a time is killed with SIGKILL at a random
// moment and started again: billing (charges in flight), search (jobs in flight) and communities
// (adds and erasure sagas in flight). Afterwards the client finishes what it had asked and the
// stored state must be exact: every charge once, every erasure complete, every run and search
// finished, no key stuck. docs/OPERATIONS.md "Chaos test".
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchTopology, type Topology } from '../../deploy/local/launch.js';
import { expectExactAfterChaos, settleKeyedCalls } from '../helpers/chaos-checks.js';
import { CHAOS_COMMUNITY, writeChaosSeed } from '../helpers/chaos-seed.js';
import { ChaosWorkload } from '../helpers/chaos-workload.js';
import { liveKey } from '../helpers/keys.js';
import { startProviderReplay, type ProviderReplay } from '../helpers/provider-replay.js';
import { redisTestPrefix } from '../helpers/redis-prefix.js';
import { freshPostgresDatabase, type FreshDatabase } from '../helpers/stores.js';

const secret = liveKey();
const keyId = `k_chaosn_${Date.now().toString(36)}`;
const VICTIMS = ['billing', 'search', 'communities'] as const;
const LEASE_MS = 1500;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('chaos: service processes of the multi-process topology killed with SIGKILL under load (PostgreSQL)', () => {
  // Rate-limit buckets of this suite's own, deleted when it ends.
  const redisPrefix = redisTestPrefix();
  let db: FreshDatabase;
  let replay: ProviderReplay;
  let topology: Topology;
  let sql: pg.Client;
  beforeAll(async () => {
    db = await freshPostgresDatabase({ migrated: true });
    replay = await startProviderReplay({ latencyMs: 150 });
    topology = await launchTopology(
      {
        DATABASE_URL: db.url,
        REDIS_URL: process.env.REDIS_URL!,
        ...redisPrefix.env,
        SEED_FILE: writeChaosSeed(keyId, secret),
        LOG_LEVEL: 'warn',
        ORCID_API_URL: replay.orcidUrl,
        OPENALEX_API_URL: replay.openAlexUrl,
        ENRICHMENT_CONCURRENCY: '2',
        ENRICHMENT_RUN_LEASE_MS: String(LEASE_MS),
        SEARCH_JOB_LEASE_MS: String(LEASE_MS),
      },
      { readyTimeoutMs: 300_000 },
    );
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
  }, 660_000);
  afterAll(async () => {
    await sql?.end();
    await topology?.stop();
    await replay?.close();
    await db?.drop();
    await redisPrefix.cleanup();
  });

  it('after kills and restarts of billing, search and communities: every charge once, every erasure complete, every run and search finished, no key stuck', async () => {
    const base = topology.restUrl;
    const w = new ChaosWorkload({ baseUrl: () => base, secret, communityId: CHAOS_COMMUNITY, tag: keyId });
    w.start();
    for (const role of VICTIMS) {
      const target = w.calls.length + 4;
      for (let i = 0; i < 400 && w.calls.length < target; i++) await sleep(50);
      await sleep(Math.random() * 1500);
      await topology.stopRole(role, 'SIGKILL');
      w.down = true;
      await topology.startRole(role);
      w.down = false;
    }
    await sleep(1500);
    await w.stop();

    await settleKeyedCalls(w, base, secret);
    for (const call of w.calls) {
      expect(call.answer.status, `${call.kind} ${call.key}: ${call.answer.error ?? JSON.stringify(call.answer.body)} after ${call.retries?.join(', ')}`).toBe(
        call.kind === 'add' ? 200 : 202,
      );
      // The gateway never died: a failed request released its claim, so no key answers 409.
      expect(call.conflict, `${call.key} answered 409`).toBeUndefined();
    }
    // Each key now replays its outcome, and the stored state is exact.
    await expectExactAfterChaos(w, sql, base, secret, CHAOS_COMMUNITY, topology.env);
  }, 600_000);
});
