// A community enrichment run survives a restart of the one-process mode on the embedded store: the
// system is stopped part-way through a run and started again on the same data directory, and the
// run resumes where it stopped: nobody finished before the stop is asked about again at a provider
// or written again, and every charge is posted once. (The same on
// PostgreSQL with the enrichment process killed: test/postgres/enrichment-resume.test.ts.)
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OwnerType } from '../proto/gen/expertnet/common/v1/common.js';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { openDatabase } from '../services/kit/db/open-database.js';
import { callAs } from '../services/kit/grpc/client.js';
import { bearer, request, type JsonResponse } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { requestsNaming, startProviderReplay, type ProviderReplay } from './helpers/provider-replay.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const secret = liveKey();
const MEMBERS = 30;
const ids = Array.from({ length: MEMBERS }, (_, i) => `p_s${String(i).padStart(2, '0')}`);
const nameOf = (i: number) => `Researcher ${i}`;
const seed: SeedInput = {
  users: [{ id: 'u_owner', email: 'owner@example.org', name: 'Owner', plan: 'paid' }],
  communities: [{ id: 'c_lab', name: 'Lab', owner: { user: 'u_owner' }, api_writes: true }],
  profiles: ids.map((id, i) => ({ id, name: nameOf(i), headline: 'Structural biologist', bio: 'Protein folding.' })),
  memberships: ids.map((id) => ({ community: 'c_lab', profile: id, role: 'member' as const })),
  wallets: [{ owner: { user: 'u_owner' }, balance: 1000 }],
  keys: [{ id: 'k_owner', secret, owner: { user: 'u_owner' }, scopes: ['enrich:write', 'enrich:read'], requested_rate: 6000 }],
};

describe('an enrichment run across a restart (embedded store)', () => {
  let replay: ProviderReplay;
  let first: TestSystem | undefined;
  let second: TestSystem | undefined;
  const dataDir = mkdtempSync(join(tmpdir(), 'en-restart-'));
  beforeAll(async () => {
    // Every provider answer takes a while, so the run is still going when the system stops.
    replay = await startProviderReplay({ latencyMs: 250 });
  });
  afterAll(async () => {
    await first?.stop();
    await second?.stop();
    await replay?.close();
  });

  const env = () => ({
    DATA_DIR: dataDir,
    ORCID_API_URL: replay.orcidUrl,
    OPENALEX_API_URL: replay.openAlexUrl,
    ENRICHMENT_CONCURRENCY: '2',
    ENRICHMENT_RUN_LEASE_MS: '1000',
  });
  const poll = (sys: TestSystem, runId: string): Promise<JsonResponse> =>
    request(sys.restUrl, 'GET', `/v1/communities/c_lab/enrich/runs/${runId}`, { headers: bearer(secret) });

  it('resumes without re-enriching, re-writing or re-charging anyone it had finished', async () => {
    first = await startTestSystem({ store: 'pglite', seed, env: env() });
    const started = await request(first.restUrl, 'POST', '/v1/communities/c_lab/enrich', { headers: bearer(secret), body: { depth: 'standard' } });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const runId: string = started.body.run_id;
    let progress = started;
    for (let i = 0; i < 400 && (progress.body.counts?.succeeded ?? 0) < 3; i++) {
      await new Promise((r) => setTimeout(r, 50));
      progress = await poll(first, runId);
    }
    expect(progress.body.counts.succeeded).toBeGreaterThanOrEqual(3);
    // Stopping pauses the run at the next person: most of it is left for the restarted system.
    expect(progress.body.counts.succeeded).toBeLessThan(MEMBERS / 2);
    // The same server secrets, so the same keys work after the restart.
    const secrets = first.secrets;
    await first.stop();
    first = undefined;

    const stoppedAt = Date.now();

    // Between the two: the run is paused part-way, its lease handed back.
    type Item = { profile_id: string; finished_at: Date; search_text: string };
    const finishedItems = `SELECT profile_id, finished_at, search_text FROM enrichment.run_items WHERE run_id = $1 AND status = 'succeeded' ORDER BY profile_id`;
    let finishedBefore: Item[];
    const store = await openDatabase({ DATA_DIR: dataDir });
    try {
      finishedBefore = await store.query<Item>(finishedItems, [runId]);
      expect(finishedBefore.length).toBeGreaterThanOrEqual(3);
      const [run] = await store.query<{ status: string; lease_until: Date }>('SELECT status, lease_until FROM enrichment.runs WHERE id = $1', [runId]);
      expect(run!.status).toBe('running');
      expect(run!.lease_until.getTime()).toBeLessThanOrEqual(Date.now());
      const [left] = await store.query<{ n: number }>(`SELECT count(*)::int8 AS n FROM enrichment.run_items WHERE run_id = $1 AND status = 'pending'`, [runId]);
      expect(left!.n).toBeGreaterThan(MEMBERS / 2);
    } finally {
      await store.close();
    }

    second = await startTestSystem({
      store: 'pglite',
      env: {
        ...env(),
        API_KEY_PEPPER: secrets.apiKeyPepper,
        CALLER_TOKEN_PRIVATE_KEY: secrets.callerTokenPrivateKey,
        CALLER_TOKEN_PUBLIC_KEY: secrets.callerTokenPublicKey,
        OPERATOR_TOKEN_PRIVATE_KEY: secrets.operatorTokenPrivateKey,
        OPERATOR_TOKEN_PUBLIC_KEY: secrets.operatorTokenPublicKey,
      },
    });
    let done = await poll(second, runId);
    for (let i = 0; i < 600 && done.body.status !== 'succeeded' && done.body.status !== 'failed'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      done = await poll(second, runId);
    }
    expect(done.body).toMatchObject({ status: 'succeeded', counts: { total: MEMBERS, succeeded: MEMBERS, failed: 0 }, credits_charged: 3 * MEMBERS });

    const operator = await callAs(second.signer, { kind: 'operator', actor: 'test' }, undefined, 10_000);
    const owner = { type: OwnerType.OWNER_TYPE_USER, id: 'u_owner' };
    const { entries } = await second.clients.billing.listLedgerEntries({ owner, pageSize: 1000, pageToken: '' }, operator);
    const charges = entries.filter((e) => e.reference.startsWith(`enrichment_standard:${runId}:`));
    expect(charges).toHaveLength(MEMBERS);
    expect(new Set(charges.map((c) => c.reference)).size).toBe(MEMBERS);
    expect((await second.clients.billing.getWallet({ owner }, operator)).wallet!.balance).toBe(1000 - 3 * MEMBERS);

    // Provider calls: everyone was asked about, and nobody finished before the stop again after it.
    ids.forEach((_, i) => expect(requestsNaming(replay.requests, nameOf(i)).length, nameOf(i)).toBeGreaterThan(0));
    for (const item of finishedBefore) {
      const name = nameOf(ids.indexOf(item.profile_id));
      expect(requestsNaming(replay.requests, name).filter((r) => r.at > stoppedAt), name).toEqual([]);
    }
    // Enrichment writes: their results stand as written before the stop.
    await second.stop();
    second = undefined;
    const after = await openDatabase({ DATA_DIR: dataDir });
    try {
      const finishedAfter = await after.query<Item>(finishedItems, [runId]);
      expect(finishedAfter).toHaveLength(MEMBERS);
      const byId = new Map(finishedAfter.map((i) => [i.profile_id, i]));
      for (const item of finishedBefore) {
        expect(byId.get(item.profile_id)?.finished_at.getTime(), item.profile_id).toBe(item.finished_at.getTime());
        expect(byId.get(item.profile_id)?.search_text, item.profile_id).toBe(item.search_text);
      }
    } finally {
      await after.close();
    }
  }, 240_000);
});
