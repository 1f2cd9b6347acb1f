// Chaos, one-process mode: `npm start` (ROLES=all) on PostgreSQL is killed with SIGKILL twice, at
// a random moment, while bulk adds and enrichment runs (with Idempotency-Key), searches
// (wait_seconds 0, then polling) and erasures run against it; each time it is started again on the
// same database. Afterwards the client finishes what it had asked (retrying with the same keys,
// retrying erasures, polling searches) and the stored state must be exact: every charge once,
// every erasure complete, every run and search finished, no key stuck past its claim's lease.
// Leases are short (ENRICHMENT_RUN_LEASE_MS, SEARCH_JOB_LEASE_MS) so work resumes within seconds;
// the idempotency claim lease is the product's (LEASE_SECONDS). docs/OPERATIONS.md "Chaos test".
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRPC_ADDRESS_VARIABLES, SERVICE_ROLES } from '../../services/kit/config.js';
import { generateSecrets } from '../../services/kit/secrets.js';
import { CLAIM_BOUND_MS, expectExactAfterChaos, settleKeyedCalls } from '../helpers/chaos-checks.js';
import { CHAOS_COMMUNITY, writeChaosSeed } from '../helpers/chaos-seed.js';
import { ChaosWorkload } from '../helpers/chaos-workload.js';
import { liveKey } from '../helpers/keys.js';
import { startMainProcess, type MainProcess } from '../helpers/main-process.js';
import { startProviderReplay, type ProviderReplay } from '../helpers/provider-replay.js';
import { redisTestPrefix } from '../helpers/redis-prefix.js';
import { freshPostgresDatabase, type FreshDatabase } from '../helpers/stores.js';

const secret = liveKey();
const keyId = `k_chaos1_${Date.now().toString(36)}`;
const KILLS = 2;
const LEASE_MS = 1500;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('chaos: the one-process mode killed with SIGKILL under load (PostgreSQL)', () => {
  // Rate-limit buckets of this suite's own, deleted when it ends.
  const redisPrefix = redisTestPrefix();
  let db: FreshDatabase;
  let replay: ProviderReplay;
  let sql: pg.Client;
  let env: Record<string, string>;
  let proc: MainProcess | undefined;
  beforeAll(async () => {
    db = await freshPostgresDatabase({ migrated: true });
    // Slow providers: a run is still working when the process dies.
    replay = await startProviderReplay({ latencyMs: 150 });
    const secrets = generateSecrets();
    env = {
      DATABASE_URL: db.url,
      REDIS_URL: process.env.REDIS_URL!,
      ...redisPrefix.env,
      SEED_FILE: writeChaosSeed(keyId, secret),
      API_KEY_PEPPER: secrets.apiKeyPepper,
      CALLER_TOKEN_PRIVATE_KEY: secrets.callerTokenPrivateKey,
      CALLER_TOKEN_PUBLIC_KEY: secrets.callerTokenPublicKey,
      OPERATOR_TOKEN_PRIVATE_KEY: secrets.operatorTokenPrivateKey,
      OPERATOR_TOKEN_PUBLIC_KEY: secrets.operatorTokenPublicKey,
      ORCID_API_URL: replay.orcidUrl,
      OPENALEX_API_URL: replay.openAlexUrl,
      ENRICHMENT_CONCURRENCY: '2',
      ENRICHMENT_RUN_LEASE_MS: String(LEASE_MS),
      SEARCH_JOB_LEASE_MS: String(LEASE_MS),
    };
    proc = await startMainProcess(env);
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
  }, 300_000);
  afterAll(async () => {
    await proc?.kill('SIGTERM');
    await sql?.end();
    await replay?.close();
    await db?.drop();
    await redisPrefix.cleanup();
  });

  it('after kills and restarts: every charge once, every erasure complete, every run and search finished, no key stuck', async () => {
    // While the process is down the workload keeps calling its last address (and gets no answer).
    let url = proc!.restUrl;
    const w = new ChaosWorkload({ baseUrl: () => url, secret, communityId: CHAOS_COMMUNITY, tag: keyId });
    w.start();
    for (let k = 0; k < KILLS; k++) {
      // Some work of each kind under way, then a random moment.
      const target = w.calls.length + 4;
      for (let i = 0; i < 200 && w.calls.length < target; i++) await sleep(50);
      await sleep(Math.random() * 1500);
      const dying = proc!;
      proc = undefined;
      await dying.kill('SIGKILL');
      w.down = true;
      proc = await startMainProcess(env);
      url = proc.restUrl;
      w.down = false;
    }
    await sleep(1500);
    await w.stop();
    const base = proc!.restUrl;

    // The client finishes what it asked: same keys, the erasures again, the searches polled.
    await settleKeyedCalls(w, base, secret);
    for (const call of w.calls) {
      expect(call.answer.status, `${call.kind} ${call.key}: ${call.answer.error ?? JSON.stringify(call.answer.body)} after ${call.retries?.join(', ')}`).toBe(call.kind === 'add' ? 200 : 202);
      // A key a dead process held answers 409 no longer than its claim's lease.
      if (call.conflict) expect(call.conflict.last - call.failedAt!, `${call.key} answered 409 for too long`).toBeLessThanOrEqual(CLAIM_BOUND_MS);
    }
    // Each key now replays its outcome, and the stored state is exact.
    const grpc = proc!.grpcAddresses;
    await expectExactAfterChaos(w, sql, base, secret, CHAOS_COMMUNITY, {
      ...env,
      ...Object.fromEntries(SERVICE_ROLES.map((s) => [GRPC_ADDRESS_VARIABLES[s], grpc[s]])),
    });
  }, 600_000);
});
