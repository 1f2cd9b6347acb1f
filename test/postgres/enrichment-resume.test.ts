// A community enrichment run survives its worker's crash: in the multi-process topology the
// enrichment process is killed (SIGKILL) part-way through a run, started again, and the run resumes
// from where it stopped — every person enriched once, every charge posted once.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchTopology, type Topology } from '../../deploy/local/launch.js';
import { bearer, request, type JsonResponse } from '../helpers/http.js';
import { liveKey } from '../helpers/keys.js';
import { startProviderReplay, type ProviderReplay } from '../helpers/provider-replay.js';
import { freshPostgresDatabase, type FreshDatabase } from '../helpers/stores.js';
import pg from 'pg';

const secret = liveKey();
const MEMBERS = 30;

describe('an enrichment run killed mid-way', () => {
  let db: FreshDatabase;
  let replay: ProviderReplay;
  let topology: Topology;
  beforeAll(async () => {
    db = await freshPostgresDatabase();
    // Every provider answer takes a while, so the run is still going when its process dies.
    replay = await startProviderReplay({ latencyMs: 120 });
    const seedFile = join(mkdtempSync(join(tmpdir(), 'en-resume-')), 'seed.json');
    const ids = Array.from({ length: MEMBERS }, (_, i) => `p_r${String(i).padStart(2, '0')}`);
    writeFileSync(
      seedFile,
      JSON.stringify({
        users: [{ id: 'u_owner', email: 'owner@example.org', name: 'Owner', plan: 'paid' }],
        organizations: [{ id: 'o_lab', name: 'Lab', members: [{ user: 'u_owner', role: 'owner' }] }],
        communities: [{ id: 'c_lab', name: 'Lab', owner: { organization: 'o_lab' }, api_writes: true }],
        profiles: ids.map((id, i) => ({ id, name: `Researcher ${i}`, headline: 'Structural biologist', bio: 'Protein folding.' })),
        memberships: ids.map((id) => ({ community: 'c_lab', profile: id, role: 'member' })),
        wallets: [{ owner: { organization: 'o_lab' }, balance: 1000 }],
        keys: [{ id: 'k_owner', secret, owner: { user: 'u_owner' }, scopes: ['enrich:write', 'enrich:read'], requested_rate: 6000 }],
      }),
    );
    const env = {
      DATABASE_URL: db.url,
      REDIS_URL: process.env.REDIS_URL!,
      SEED_FILE: seedFile,
      LOG_LEVEL: 'warn',
      ORCID_API_URL: replay.orcidUrl,
      OPENALEX_API_URL: replay.openAlexUrl,
      ENRICHMENT_CONCURRENCY: '2',
      ENRICHMENT_RUN_LEASE_MS: '1500',
    };
    topology = await launchTopology(env, { readyTimeoutMs: 90_000 });
  }, 180_000);
  afterAll(async () => {
    await topology?.stop();
    await replay?.close();
    await db?.drop();
  });

  const poll = (runId: string): Promise<JsonResponse> =>
    request(topology.restUrl, 'GET', `/v1/communities/c_lab/enrich/runs/${runId}`, { headers: bearer(secret) });

  it('resumes after a restart without re-doing or re-charging anyone', async () => {
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
    } finally {
      await client.end();
    }
  }, 120_000);
});
