// Overlapping community enrichment runs over real HTTP, on every store (docs/ENRICHMENT.md
// "Overlapping runs"): many starts at once without an Idempotency-Key charge each person once per
// tier, the answers' eligible_count adds up to what was charged, and a re-enrichment asked for
// after the first run finished is a deliberate new charge — still once per person however many
// starts race for it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OwnerType } from '../proto/gen/expertnet/common/v1/common.js';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { callAs, type CallOptions } from '../services/kit/grpc/client.js';
import { startEnrichmentSystem, type EnrichmentSystem } from './helpers/enrichment-system.js';
import { bearer, request, type JsonResponse } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { storeNames } from './helpers/stores.js';

const ownerKey = liveKey();
const DEEP_RATE = 8;
const STARTING_BALANCE = 100_000;
// Each test has its own pair of members, so each stands alone.
const PAIRS = { race: ['p_a1', 'p_a2'], again: ['p_b1', 'p_b2'], later: ['p_c1', 'p_c2'] };
const ALL = Object.values(PAIRS).flat();

const seed: SeedInput = {
  users: [{ id: 'u_owner', email: 'owner@example.org', name: 'Owner', plan: 'paid' }],
  organizations: [{ id: 'o_lab', name: 'Lab', members: [{ user: 'u_owner', role: 'owner' }] }],
  communities: [{ id: 'c_lab', name: 'Lab', owner: { organization: 'o_lab' }, api_writes: true }],
  profiles: ALL.map((id, i) => ({
    id,
    name: `Person ${id}`,
    headline: i % 2 === 0 ? 'Protein folding researcher' : 'Machine learning engineer',
    bio: 'Works on cryo-electron microscopy and language models.',
  })),
  memberships: ALL.map((profile) => ({ community: 'c_lab', profile, role: 'member' as const })),
  wallets: [{ owner: { organization: 'o_lab' }, balance: STARTING_BALANCE }],
  keys: [{ id: 'k_owner', secret: ownerKey, owner: { user: 'u_owner' }, scopes: ['enrich:write', 'enrich:read'], requested_rate: 6000 }],
};

const LAB = { type: OwnerType.OWNER_TYPE_ORGANIZATION, id: 'o_lab' };

describe.each(storeNames())('overlapping enrichment runs on %s', (store) => {
  let sys: EnrichmentSystem;
  let operator: CallOptions;
  beforeAll(async () => {
    sys = await startEnrichmentSystem({ store, seed });
    operator = await callAs(sys.signer, { kind: 'operator', actor: 'test' }, undefined, 10_000);
  });
  afterAll(async () => sys?.stop());

  const start = (body: unknown) => request(sys.restUrl, 'POST', '/v1/communities/c_lab/enrich', { headers: bearer(ownerKey), body });
  const poll = (runId: string) => request(sys.restUrl, 'GET', `/v1/communities/c_lab/enrich/runs/${runId}`, { headers: bearer(ownerKey) });

  async function finished(runId: string): Promise<JsonResponse> {
    for (let i = 0; i < 600; i++) {
      const res = await poll(runId);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      if (res.body.status === 'succeeded' || res.body.status === 'failed') return res;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`run ${runId} did not finish`);
  }

  const personOf = (reference: string) => reference.split(':')[2]!;
  /** The deep-tier charges in the billing owner's ledger for these people. */
  async function deepChargesOf(people: string[]): Promise<{ reference: string; amount: number }[]> {
    const { entries } = await sys.clients.billing.listLedgerEntries({ owner: LAB, pageSize: 1000, pageToken: '' }, operator);
    return entries
      .filter((e) => e.reference.startsWith('enrichment_deep:') && people.includes(personOf(e.reference)))
      .map((e) => ({ reference: e.reference, amount: e.amount }));
  }
  const balance = async () => (await sys.clients.billing.getWallet({ owner: LAB }, operator)).wallet!.balance;

  /** 20 starts at once, no Idempotency-Key; waits for every run; returns the answers and final polls. */
  async function race(body: unknown): Promise<{ answers: JsonResponse[]; polls: JsonResponse[] }> {
    const answers = await Promise.all(Array.from({ length: 20 }, () => start(body)));
    for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBe(202);
    const polls = await Promise.all(answers.map((a) => finished(a.body.run_id)));
    return { answers, polls };
  }

  it('20 parallel deep starts charge each person once; eligible_count and the runs’ charges add up to the ledger', async () => {
    const people = PAIRS.race;
    const before = await balance();
    const { answers, polls } = await race({ depth: 'deep', profile_ids: people });

    const charges = await deepChargesOf(people);
    expect(charges.map((c) => personOf(c.reference)).sort()).toEqual(people);
    expect(charges.every((c) => c.amount === -DEEP_RATE)).toBe(true);
    expect(before - (await balance())).toBe(people.length * DEEP_RATE);

    expect(answers.reduce((sum, a) => sum + (a.body.eligible_count as number), 0)).toBe(people.length);
    expect(polls.reduce((sum, p) => sum + (p.body.credits_charged as number), 0)).toBe(people.length * DEEP_RATE);
    // Every run accounts for both people: enriched by it, or skipped with the reason.
    for (const p of polls) expect(p.body.counts.total).toBe(people.length);
    const skipped = polls.flatMap((p) => p.body.items.filter((i: { status: string }) => i.status === 'skipped'));
    expect(skipped.length).toBe(20 * people.length - people.length);
    for (const i of skipped) {
      expect(i.reason).toMatch(/^(being enriched at this depth by another run of this community|already enriched by this community at deep depth or deeper)$/);
    }
  });

  it('after a finished run, include_already_enriched re-enriches and charges again — once per person, even from 20 parallel starts', async () => {
    const people = PAIRS.again;
    const first = await start({ depth: 'deep', profile_ids: people });
    expect(first.status).toBe(202);
    await finished(first.body.run_id);
    expect((await deepChargesOf(people)).length).toBe(people.length);

    const before = await balance();
    const { answers, polls } = await race({ depth: 'deep', profile_ids: people, include_already_enriched: true });
    const charges = await deepChargesOf(people);
    expect(charges.length).toBe(2 * people.length);
    const again = charges.filter((c) => !c.reference.includes(`:${first.body.run_id}:`));
    expect(again.map((c) => personOf(c.reference)).sort()).toEqual(people);
    expect(before - (await balance())).toBe(people.length * DEEP_RATE);
    expect(answers.reduce((sum, a) => sum + (a.body.eligible_count as number), 0)).toBe(people.length);
    expect(polls.reduce((sum, p) => sum + (p.body.credits_charged as number), 0)).toBe(people.length * DEEP_RATE);
  });

  it('a finished run holds nobody: a later start without include_already_enriched skips both as already enriched, charging nothing', async () => {
    const people = PAIRS.later;
    const first = await start({ depth: 'deep', profile_ids: people });
    await finished(first.body.run_id);
    const before = await balance();
    const res = await start({ depth: 'deep', profile_ids: people });
    expect(res.status).toBe(202);
    expect(res.body.eligible_count).toBe(0);
    const done = await finished(res.body.run_id);
    expect(done.body.items.map((i: { reason: string }) => i.reason)).toEqual(people.map(() => 'already enriched by this community at deep depth or deeper'));
    expect(await balance()).toBe(before);
    expect((await deepChargesOf(people)).length).toBe(people.length);
  });
});
