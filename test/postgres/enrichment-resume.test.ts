// A community enrichment run survives its worker's crash: in the multi-process topology the
// enrichment process is killed (SIGKILL) part-way through a run, started again, and the run resumes
// from where it stopped: nobody finished before the crash is asked about again at a provider or
// written again (only the people in flight when it died are redone), and every charge is posted once.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchTopology, type Topology } from '../../deploy/local/launch.js';
import { bearer, request, type JsonResponse } from '../helpers/http.js';
import { liveKey } from '../helpers/keys.js';
import { requestsNaming, startProviderReplay, type ProviderReplay } from '../helpers/provider-replay.js';
import { redisTestPrefix } from '../helpers/redis-prefix.js';
import { freshPostgresDatabase, type FreshDatabase } from '../helpers/stores.js';
import pg from 'pg';

const secret = liveKey();
const MEMBERS = 30;
const CONCURRENCY = 2;
const ids = Array.from({ length: MEMBERS }, (_, i) => `p_r${String(i).padStart(2, '0')}`);
const nameOf = (i: number) => `Researcher ${i}`;

describe('an enrichment run killed mid-way', () => {
  // Rate-limit keys under a prefix of this run's own, deleted afterwards.
  const redisPrefix = redisTestPrefix();
  let db: FreshDatabase;
  let replay: ProviderReplay;
  let topology: Topology;
  beforeAll(async () => {
    db = await freshPostgresDatabase({ migrated: true });
    // Every provider answer takes a while, so the run is still going when its process dies.
    replay = await startProviderReplay({ latencyMs: 120 });
    const seedFile = join(mkdtempSync(join(tmpdir(), 'en-resume-')), 'seed.json');
    writeFileSync(
      seedFile,
      JSON.stringify({
        users: [{ id: 'u_owner', email: 'owner@example.org', name: 'Owner', plan: 'paid' }],
        organizations: [{ id: 'o_lab', name: 'Lab', members: [{ user: 'u_owner', role: 'owner' }] }],
        communities: [{ id: 'c_lab', name: 'Lab', owner: { organization: 'o_lab' }, api_writes: true }],
        profiles: ids.map((id, i) => ({ id, name: nameOf(i), headline: 'Structural biologist', bio: 'Protein folding.' })),
        memberships: ids.map((id) => ({ community: 'c_lab', profile: id, role: 'member' })),
        wallets: [{ owner: { organization: 'o_lab' }, balance: 1000 }],
        keys: [{ id: 'k_owner', secret, owner: { user: 'u_owner' }, scopes: ['enrich:write', 'enrich:read'], requested_rate: 6000 }],
      }),
    );
    const env = {
      DATABASE_URL: db.url,
      REDIS_URL: process.env.REDIS_URL!, ...redisPrefix.env,
      SEED_FILE: seedFile,
      LOG_LEVEL: 'warn',
      ORCID_API_URL: replay.orcidUrl,
      OPENALEX_API_URL: replay.openAlexUrl,
      ENRICHMENT_CONCURRENCY: String(CONCURRENCY),
      ENRICHMENT_RUN_LEASE_MS: '1500',
    };
    topology = await launchTopology(env, { readyTimeoutMs: 90_000 });
  }, 180_000);
  afterAll(async () => {
    await topology?.stop();
    await replay?.close();
    await db?.drop();
    await redisPrefix.cleanup();
  });

  const queryDb = async <T extends pg.QueryResultRow>(sql: string, params: unknown[]): Promise<T[]> => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      return (await client.query<T>(sql, params)).rows;
    } finally {
      await client.end();
    }
  };

  const poll = (runId: string): Promise<JsonResponse> =>
    request(topology.restUrl, 'GET', `/v1/communities/c_lab/enrich/runs/${runId}`, { headers: bearer(secret) });

  it('resumes after a crash without re-enriching, re-writing or re-charging anyone it had finished', async () => {
    const started = await request(topology.restUrl, 'POST', '/v1/communities/c_lab/enrich', {
      headers: bearer(secret),
      body: { depth: 'standard' },
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const runId: string = started.body.run_id;

    // Part-way: some people done, most not.
    let progress = started;
    for (let i = 0; i < 400 && (progress.body.counts?.succeeded ?? 0) < 4; i++) {
      await new Promise((r) => setTimeout(r, 50));
      progress = await poll(runId);
    }
    expect(progress.body.counts.succeeded).toBeGreaterThanOrEqual(4);
    expect(progress.body.counts.succeeded).toBeLessThan(MEMBERS);
    await topology.stopRole('enrichment', 'SIGKILL');
    const killedAt = Date.now();
    // What the dead process had finished: nothing of it can change any more.
    type Item = { profile_id: string; finished_at: Date; search_text: string };
    const finishedItems = `SELECT profile_id, finished_at, search_text FROM enrichment.run_items WHERE run_id = $1 AND status = 'succeeded' ORDER BY profile_id`;
    const finishedBefore = await queryDb<Item>(finishedItems, [runId]);
    expect(finishedBefore.length).toBeGreaterThanOrEqual(4);
    await topology.startRole('enrichment');

    let done = await poll(runId);
    for (let i = 0; i < 600 && done.body.status !== 'succeeded' && done.body.status !== 'failed'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      done = await poll(runId);
    }
    expect(done.body).toMatchObject({ status: 'succeeded', counts: { total: MEMBERS, succeeded: MEMBERS, failed: 0, skipped: 0 }, credits_charged: 3 * MEMBERS });

    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const charges = await client.query<{ reference: string; amount: string }>(
        `SELECT reference, amount FROM billing.ledger_entries WHERE reference LIKE $1`,
        [`enrichment_standard:${runId}:%`],
      );
      expect(charges.rowCount).toBe(MEMBERS);
      expect(new Set(charges.rows.map((r) => r.reference)).size).toBe(MEMBERS);
      expect(charges.rows.every((r) => Number(r.amount) === -3)).toBe(true);
      const wallet = await client.query<{ balance: string }>(`SELECT balance FROM billing.wallets WHERE owner_id = 'o_lab'`);
      expect(Number(wallet.rows[0]!.balance)).toBe(1000 - 3 * MEMBERS);
      const claims = await client.query<{ attempts: number }>('SELECT attempts FROM enrichment.runs WHERE id = $1', [runId]);
      // Claimed at least twice: by the killed process and by the one that finished it.
      expect(claims.rows[0]!.attempts).toBeGreaterThanOrEqual(2);
      // Enrichment writes: what was finished before the crash stands as written then.
      const byId = new Map((await client.query<Item>(finishedItems, [runId])).rows.map((i) => [i.profile_id, i]));
      expect(byId.size).toBe(MEMBERS);
      for (const item of finishedBefore) {
        expect(byId.get(item.profile_id)?.finished_at.getTime(), item.profile_id).toBe(item.finished_at.getTime());
        expect(byId.get(item.profile_id)?.search_text, item.profile_id).toBe(item.search_text);
      }
    } finally {
      await client.end();
    }

    // Provider calls: everyone was asked about; nobody finished before the crash was asked about
    // after it; at most the people in flight when it died (one per worker slot) were asked again.
    const asked = ids.map((_, i) => requestsNaming(replay.requests, nameOf(i)));
    asked.forEach((requests, i) => expect(requests.length, nameOf(i)).toBeGreaterThan(0));
    for (const item of finishedBefore) {
      const name = nameOf(ids.indexOf(item.profile_id));
      expect(requestsNaming(replay.requests, name).filter((r) => r.at > killedAt), name).toEqual([]);
    }
    const redone = asked.filter((requests) => requests.some((r) => r.at <= killedAt) && requests.some((r) => r.at > killedAt));
    expect(redone.length).toBeLessThanOrEqual(CONCURRENCY);
  }, 240_000);
});
