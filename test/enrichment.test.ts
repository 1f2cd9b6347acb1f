// Enrichment over real HTTP, on every store: community runs (request rules, write gating, dry-run
// estimates, eligibility, runs and their items, billing once per enriched person, results in the
// member read, the roster and the search corpus, Idempotency-Key under 20 parallel starts) and
// self-enrichment (target lock, paid charge, free cooldown, the own profile, no de-duplication).
// The HTTP providers run against a local server replaying the real APIs' documented answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OwnerType } from '../proto/gen/expertnet/common/v1/common.js';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { callAs, type CallOptions } from '../services/kit/grpc/client.js';
import { startEnrichmentSystem, type EnrichmentSystem } from './helpers/enrichment-system.js';
import { bearer, request, type JsonResponse } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { FIXTURE_PEOPLE } from './helpers/provider-replay.js';
import { storeNames } from './helpers/stores.js';

const k = {
  owner: liveKey(), read: liveKey(), poller: liveKey(), outsider: liveKey(), closed: liveKey(), jit: liveKey(),
  selfPaid: liveKey(), selfFree: liveKey(), selfRead: liveKey(), legacy: liveKey(), selfOther: liveKey(), search: liveKey(), noProfile: liveKey(), cadmin: liveKey(), plain: liveKey(),
};
const rate = { requested_rate: 6000 };
const ENRICH = ['enrich:write', 'enrich:read', 'profile:read'];

const people = Array.from({ length: 12 }, (_, i) => ({
  id: `p_m${String(i).padStart(2, '0')}`,
  name: `Member ${i}`,
  headline: i % 2 === 0 ? 'Protein folding researcher and structural biologist' : 'Machine learning engineer building language models',
  bio: 'Works on cryo-electron microscopy, protein design and open-source software for laboratories.',
}));

const seed: SeedInput = {
  users: [
    { id: 'u_owner', email: 'owner@example.org', name: 'Owner', plan: 'paid' },
    { id: 'u_outsider', email: 'outsider@example.org', name: 'Outsider' },
    { id: 'u_closed', email: 'closed@example.org', name: 'Closed Owner' },
    { id: 'u_jit', email: 'jit@example.org', name: 'JIT Owner', jit_consent: true },
    { id: 'u_paid', email: 'paid@example.org', name: 'Paid Person', plan: 'paid' },
    { id: 'u_free', email: 'free@example.org', name: 'Free Person' },
    { id: 'u_cadmin', email: 'cadmin@example.org', name: 'Community Admin' },
    { id: 'u_plain', email: 'plain@example.org', name: 'Plain Member' },
  ],
  organizations: [{ id: 'o_lab', name: 'Lab', members: [{ user: 'u_owner', role: 'owner' }] }],
  communities: [
    { id: 'c_lab', name: 'Lab Community', owner: { organization: 'o_lab' }, api_writes: true },
    { id: 'c_other', name: 'Other Lab Community', owner: { organization: 'o_lab' }, api_writes: true },
    { id: 'c_closed', name: 'Closed', owner: { user: 'u_closed' } },
    { id: 'c_jit', name: 'JIT', owner: { user: 'u_jit' } },
  ],
  profiles: [
    ...people.map((p) => ({ id: p.id, name: p.name, headline: p.headline, bio: p.bio })),
    {
      id: 'p_researcher',
      name: FIXTURE_PEOPLE.withOrcid.name,
      orcid: FIXTURE_PEOPLE.withOrcid.orcid,
      headline: 'Professor of structural biology',
      bio: 'Studies protein folding.',
    },
    { id: 'p_paid', user: 'u_paid', name: 'paid person', headline: 'Data scientist', bio: 'Builds forecasting models.', public: true },
    { id: 'p_free', user: 'u_free', name: 'Free Person', headline: 'Chemist' },
    { id: 'p_closed', name: 'Closed Member' },
    { id: 'p_cadmin', user: 'u_cadmin', name: 'Community Admin' },
    { id: 'p_plain', user: 'u_plain', name: 'Plain Member' },
    { id: 'p_jit', name: 'JIT Member' },
  ],
  memberships: [
    ...people.map((p, i) => ({ community: 'c_lab', profile: p.id, role: 'member' as const, joined_at: `2026-0${1 + (i % 6)}-15T00:00:00Z` })),
    { community: 'c_lab', profile: 'p_researcher', role: 'member', joined_at: '2026-06-20T00:00:00Z' },
    { community: 'c_other', profile: 'p_m00', role: 'member' },
    { community: 'c_other', profile: 'p_cadmin', role: 'admin' },
    { community: 'c_other', profile: 'p_plain', role: 'member' },
    { community: 'c_closed', profile: 'p_closed', role: 'member' },
    { community: 'c_jit', profile: 'p_jit', role: 'member' },
  ],
  wallets: [
    { owner: { organization: 'o_lab' }, balance: 10_000 },
    { owner: { user: 'u_paid' }, balance: 100 },
  ],
  keys: [
    { id: 'k_owner', secret: k.owner, owner: { user: 'u_owner' }, scopes: ENRICH, ...rate },
    { id: 'k_search', secret: k.search, owner: { user: 'u_owner' }, scopes: ['search:read'], ...rate },
    { id: 'k_read', secret: k.read, owner: { user: 'u_owner' }, scopes: ['profile:read'], ...rate },
    { id: 'k_poller', secret: k.poller, owner: { user: 'u_owner' }, scopes: ['enrich:read'], ...rate },
    { id: 'k_outsider', secret: k.outsider, owner: { user: 'u_outsider' }, scopes: ENRICH, ...rate },
    { id: 'k_closed', secret: k.closed, owner: { user: 'u_closed' }, scopes: ENRICH, ...rate },
    { id: 'k_jit', secret: k.jit, owner: { user: 'u_jit' }, scopes: ENRICH, ...rate },
    { id: 'k_self_paid', secret: k.selfPaid, owner: { user: 'u_paid' }, scopes: ['self:enrich', 'profile:read'], ...rate },
    { id: 'k_self_free', secret: k.selfFree, owner: { user: 'u_free' }, scopes: ['self:enrich', 'profile:read'], ...rate },
    { id: 'k_self_read', secret: k.selfRead, owner: { user: 'u_paid' }, scopes: ['profile:read'], ...rate },
    { id: 'k_cadmin', secret: k.cadmin, owner: { user: 'u_cadmin' }, scopes: ENRICH, ...rate },
    { id: 'k_plain', secret: k.plain, owner: { user: 'u_plain' }, scopes: ENRICH, ...rate },
    { id: 'k_no_profile', secret: k.noProfile, owner: { user: 'u_outsider' }, scopes: ['self:enrich'], ...rate },
    { id: 'k_self_other', secret: k.selfOther, owner: { user: 'u_owner' }, scopes: ['self:enrich'], ...rate },
    { id: 'k_legacy', secret: k.legacy, owner: { organization: 'o_lab' }, scopes: ['self:enrich', ...ENRICH], ...rate },
  ],
};

const LAB_MEMBERS = people.length + 1;

describe.each(storeNames())('enrichment on %s', (store) => {
  let sys: EnrichmentSystem;
  let operator: CallOptions;
  beforeAll(async () => {
    sys = await startEnrichmentSystem({ store, seed });
    operator = await callAs(sys.signer, { kind: 'operator', actor: 'test' }, undefined, 10_000);
  });
  afterAll(async () => sys?.stop());

  const enrich = (secret: string, community: string, body?: unknown, headers: Record<string, string> = {}) =>
    request(sys.restUrl, 'POST', `/v1/communities/${community}/enrich`, { headers: { ...bearer(secret), ...headers }, body });
  const communityPoll = (secret: string, community: string, runId: string, query = '') =>
    request(sys.restUrl, 'GET', `/v1/communities/${community}/enrich/runs/${runId}${query}`, { headers: bearer(secret) });
  const selfEnrich = (secret: string, body?: unknown, headers: Record<string, string> = {}) =>
    request(sys.restUrl, 'POST', '/v1/me/enrich', { headers: { ...bearer(secret), ...headers }, body });
  const selfPoll = (secret: string, runId: string) => request(sys.restUrl, 'GET', `/v1/me/enrich/runs/${runId}`, { headers: bearer(secret) });

  async function until(poll: () => Promise<JsonResponse>): Promise<JsonResponse> {
    for (let i = 0; i < 300; i++) {
      const res = await poll();
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      if (res.body.status === 'succeeded' || res.body.status === 'failed') return res;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('the run did not finish');
  }

  async function ledger(owner: { type: OwnerType; id: string }, prefix: string): Promise<{ reference: string; amount: number }[]> {
    const { entries } = await sys.clients.billing.listLedgerEntries({ owner, pageSize: 1000, pageToken: '' }, operator);
    return entries.filter((e) => e.reference.startsWith(prefix)).map((e) => ({ reference: e.reference, amount: e.amount }));
  }
  const LAB = { type: OwnerType.OWNER_TYPE_ORGANIZATION, id: 'o_lab' };
  const labCharges = (runId: string) => ledger(LAB, '').then((es) => es.filter((e) => e.reference.includes(`:${runId}:`)));

  async function consentRequests(community: string) {
    return (await sys.clients.communities.listConsentRequests({ communityId: community, pageSize: 0, pageToken: '', status: 0 }, operator)).requests;
  }

  describe('request rules (400, nothing started)', () => {
    it.each([
      ['a start without depth', {}],
      ['an unknown depth', { depth: 'extreme' }],
      ['a workflow other than smart_enrich', { depth: 'quick', workflow_key: 'other' }],
      ['an unknown field', { depth: 'quick', everyone: true }],
      ['a malformed joined_since', { depth: 'quick', joined_since: 'yesterday' }],
      ['profile_ids that are not ids', { depth: 'quick', profile_ids: [''] }],
      ['more than 10,000 profile_ids', { depth: 'quick', profile_ids: Array.from({ length: 10_001 }, (_, i) => `p_${i}`) }],
    ])('%s', async (_what, body) => {
      const before = await ledger(LAB, 'enrichment_');
      const res = await enrich(k.owner, 'c_lab', body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
      expect(await ledger(LAB, 'enrichment_')).toEqual(before);
    });

    it('says that depth is what a start lacks', async () => {
      const res = await enrich(k.owner, 'c_lab', { dry_run: false });
      expect(res.body.error.message).toMatch(/depth is required/);
    });
  });

  describe('scopes and write gating', () => {
    it('a key without enrich:write is 403 naming the scope', async () => {
      const res = await enrich(k.read, 'c_lab', { depth: 'quick' });
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'forbidden', required_scope: 'enrich:write' });
    });

    it('a community outside the write reach is 403, a dry run too', async () => {
      expect((await enrich(k.outsider, 'c_lab', { depth: 'quick' })).status).toBe(403);
      expect((await enrich(k.outsider, 'c_lab', { depth: 'quick', dry_run: true })).status).toBe(403);
    });

    it('writes not attested: 422 unprocessable, and nothing queued', async () => {
      const res = await enrich(k.closed, 'c_closed', { depth: 'quick' });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('unprocessable');
      expect(await consentRequests('c_closed')).toEqual([]);
    });

    it('with just-in-time consent: 422 owner_consent_required queues one request', async () => {
      const res = await enrich(k.jit, 'c_jit', { depth: 'quick' });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('owner_consent_required');
      expect(await consentRequests('c_jit')).toHaveLength(1);
    });

    it('a community admin (personal key) may start a run, charged to the community’s billing owner; a plain member may not', async () => {
      expect((await enrich(k.plain, 'c_other', { depth: 'quick', dry_run: true })).status).toBe(403);
      expect((await enrich(k.plain, 'c_other', { depth: 'quick' })).status).toBe(403);
      const run = await enrich(k.cadmin, 'c_other', { depth: 'quick', profile_ids: ['p_plain'] });
      expect(run.status, JSON.stringify(run.body)).toBe(202);
      const done = await until(() => communityPoll(k.cadmin, 'c_other', run.body.run_id));
      expect(done.body).toMatchObject({ status: 'succeeded', counts: { succeeded: 1 }, credits_charged: 1 });
      expect((await labCharges(run.body.run_id)).map((c) => c.reference)).toEqual([`enrichment_quick:${run.body.run_id}:p_plain`]);
      expect(await ledger({ type: OwnerType.OWNER_TYPE_USER, id: 'u_cadmin' }, 'enrichment_')).toEqual([]);
    });

    it('a dry run needs no attestation and queues no consent request', async () => {
      const res = await enrich(k.jit, 'c_jit', { depth: 'deep', dry_run: true });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ eligible_count: 1, total_members: 1, estimated_max_credits_per_profile: 8, estimated_max_credits: 8 });
      expect(await consentRequests('c_jit')).toHaveLength(1);
    });
  });

  describe('dry runs (200, nothing started, nothing charged)', () => {
    it('without depth: counts, and null estimates', async () => {
      const res = await enrich(k.owner, 'c_other', { dry_run: true, profile_ids: ['p_m00'] });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ eligible_count: 1, total_members: 3, estimated_max_credits_per_profile: null, estimated_max_credits: null });
    });

    it.each([
      ['quick', 1],
      ['standard', 3],
      ['deep', 8],
    ])('at %s depth: the exact flat charge per profile and in all', async (depth, price) => {
      const before = await ledger(LAB, 'enrichment_');
      const res = await enrich(k.owner, 'c_lab', { depth, dry_run: true, joined_since: '2026-03-01T00:00:00Z' });
      expect(res.status).toBe(200);
      // Members joined from March on: months 3–6 of the twelve (two each) and the researcher.
      expect(res.body).toEqual({ eligible_count: 9, total_members: LAB_MEMBERS, estimated_max_credits_per_profile: price, estimated_max_credits: 9 * price });
      expect(await ledger(LAB, 'enrichment_')).toEqual(before);
    });

    it('profile_ids narrow the estimate; a non-member is not eligible', async () => {
      const res = await enrich(k.owner, 'c_lab', { depth: 'quick', dry_run: true, profile_ids: ['p_m01', 'p_m02', 'p_closed'] });
      expect(res.body).toMatchObject({ eligible_count: 2, total_members: LAB_MEMBERS, estimated_max_credits: 2 });
    });
  });

  describe('community runs', () => {
    // The first run, started by whichever test needs it first: each test stands alone.
    let firstRunStart: Promise<JsonResponse> | undefined;
    const startFirstRun = () =>
      (firstRunStart ??= enrich(k.owner, 'c_lab', { depth: 'quick', profile_ids: people.slice(0, 6).map((p) => p.id).concat('p_closed') }));
    const firstRunFinished = async () => {
      const run = await startFirstRun();
      expect(run.status, JSON.stringify(run.body)).toBe(202);
      await until(() => communityPoll(k.poller, 'c_lab', run.body.run_id));
      return run;
    };

    it('starts: 202 with the queued run, Location and Retry-After; the poll shows it finished with every person', async () => {
      const firstRun = await startFirstRun();
      expect(firstRun.status, JSON.stringify(firstRun.body)).toBe(202);
      const runId = firstRun.body.run_id;
      expect(firstRun.body).toMatchObject({
        kind: 'community',
        community_id: 'c_lab',
        status: 'queued',
        depth: 'quick',
        eligible_count: 6,
        credits_charged: 0,
        started_at: null,
        finished_at: null,
      });
      expect(Math.abs(Date.parse(firstRun.body.created_at) - Date.now())).toBeLessThan(60_000);
      expect(firstRun.headers.get('location')).toBe(`/v1/communities/c_lab/enrich/runs/${runId}`);
      expect(firstRun.headers.get('retry-after')).toBe('2');

      const done = await until(() => communityPoll(k.poller, 'c_lab', runId));
      expect(done.body).toMatchObject({
        run_id: runId,
        status: 'succeeded',
        depth: 'quick',
        counts: { total: 7, succeeded: 6, failed: 0, skipped: 1 },
        credits_charged: 6,
        next_items_after: null,
      });
      expect(done.body.started_at).not.toBeNull();
      expect(done.body.finished_at).not.toBeNull();
      expect(done.body.items.find((i: { profile_id: string }) => i.profile_id === 'p_closed')).toEqual({
        profile_id: 'p_closed',
        status: 'skipped',
        reason: 'not a member of this community',
        credits_charged: 0,
      });
      expect(done.body.items.filter((i: { status: string }) => i.status === 'succeeded').every((i: { credits_charged: number }) => i.credits_charged === 1)).toBe(true);
    });

    it('charges the community billing owner one flat marker per enriched person, exactly once', async () => {
      const firstRun = await firstRunFinished();
      const charges = await labCharges(firstRun.body.run_id);
      expect(charges.map((c) => c.reference).sort()).toEqual(people.slice(0, 6).map((p) => `enrichment_quick:${firstRun.body.run_id}:${p.id}`).sort());
      expect(charges.every((c) => c.amount === -1)).toBe(true);
    });

    it('the results land in the member read and the roster', async () => {
      await firstRunFinished();
      const member = await request(sys.restUrl, 'GET', '/v1/communities/c_lab/members/p_m00', { headers: bearer(k.owner) });
      expect(member.status).toBe(200);
      expect(member.body.enrichment).toMatchObject({ depth: 'quick' });
      expect(member.body.enrichment.data.topics).toEqual(expect.arrayContaining([expect.stringMatching(/protein/)]));
      // Only this community's enrichment: p_m00 is also in c_other, never enriched there.
      const other = await request(sys.restUrl, 'GET', '/v1/communities/c_other/members/p_m00', { headers: bearer(k.owner) });
      expect(other.body.enrichment).toBeNull();
      const roster = await request(sys.restUrl, 'GET', '/v1/communities/c_lab/members?limit=200', { headers: bearer(k.owner) });
      const enriched = roster.body.members.filter((m: { enriched_at: string | null }) => m.enriched_at !== null).map((m: { profile_id: string }) => m.profile_id);
      expect(enriched.sort()).toEqual(people.slice(0, 6).map((p) => p.id));
    });

    it('already enriched members are skipped unless asked for; a deeper tier makes them eligible again', async () => {
      await firstRunFinished();
      const ids = people.slice(0, 3).map((p) => p.id);
      expect((await enrich(k.owner, 'c_lab', { depth: 'quick', dry_run: true, profile_ids: ids })).body.eligible_count).toBe(0);
      expect((await enrich(k.owner, 'c_lab', { depth: 'quick', dry_run: true, profile_ids: ids, include_already_enriched: true })).body.eligible_count).toBe(3);
      expect((await enrich(k.owner, 'c_lab', { depth: 'standard', dry_run: true, profile_ids: ids })).body.eligible_count).toBe(3);

      const run = await enrich(k.owner, 'c_lab', { depth: 'quick', profile_ids: ids });
      expect(run.status).toBe(202);
      expect(run.body.eligible_count).toBe(0);
      const done = await until(() => communityPoll(k.owner, 'c_lab', run.body.run_id));
      expect(done.body).toMatchObject({ status: 'succeeded', counts: { total: 3, succeeded: 0, skipped: 3 }, credits_charged: 0 });
      expect(done.body.items[0].reason).toMatch(/already enriched/);
      expect(await labCharges(run.body.run_id)).toEqual([]);
    });

    it('a standard run calls ORCID and OpenAlex; a step that cannot run is skipped with its reason, and still charged the flat price', async () => {
      const run = await enrich(k.owner, 'c_lab', { depth: 'standard', profile_ids: ['p_researcher', 'p_m07'] });
      expect(run.status).toBe(202);
      const done = await until(() => communityPoll(k.owner, 'c_lab', run.body.run_id));
      expect(done.body).toMatchObject({ status: 'succeeded', counts: { total: 2, succeeded: 2 }, credits_charged: 6 });
      const researcher = await request(sys.restUrl, 'GET', '/v1/communities/c_lab/members/p_researcher', { headers: bearer(k.owner) });
      expect(researcher.body.enrichment.depth).toBe('standard');
      expect(researcher.body.enrichment.data.orcid).toBeDefined();
      expect(researcher.body.enrichment.data.openalex).toBeDefined();
      const plain = await request(sys.restUrl, 'GET', '/v1/communities/c_lab/members/p_m07', { headers: bearer(k.owner) });
      const orcidStep = plain.body.enrichment.data.steps.find((s: { step: string }) => s.step === 'orcid');
      expect(orcidStep).toMatchObject({ status: 'skipped' });
      expect(orcidStep.reason).toBeTruthy();
      expect((await labCharges(run.body.run_id)).map((c) => c.amount)).toEqual([-3, -3]);
    });

    it('joined_since selects the members a started run is about', async () => {
      const run = await enrich(k.owner, 'c_lab', { depth: 'deep', joined_since: '2026-06-01T00:00:00Z' });
      expect(run.status).toBe(202);
      // Joined in June: the two members of month 6 and the researcher.
      expect(run.body.eligible_count).toBe(3);
      const done = await until(() => communityPoll(k.owner, 'c_lab', run.body.run_id));
      expect(done.body.items.map((i: { profile_id: string }) => i.profile_id).sort()).toEqual(['p_m05', 'p_m11', 'p_researcher']);
      expect(done.body).toMatchObject({ status: 'succeeded', depth: 'deep', credits_charged: 24 });
    });

    it('the enrichment text reaches the community search corpus', async () => {
      const res = await request(sys.restUrl, 'POST', '/v1/search', {
        headers: bearer(k.search),
        body: { query: 'cryo-electron microscopy', scope: 'community', community_id: 'c_lab', wait_seconds: 10 },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.matches.map((m: { profile_id: string }) => m.profile_id)).toEqual(expect.arrayContaining(['p_m00']));
      // Credit enforcement is off: the search is served and debited although the payer had no
      // credits, leaving the balance below zero.
      const me = await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(k.search) });
      expect(me.body.credit_balance).toBe(-1);
    });

    it('a poll is fenced: another community, an unknown id → 404; outside the read reach → 403; without enrich:read → 403', async () => {
      const firstRun = await firstRunFinished();
      const runId = firstRun.body.run_id;
      expect((await communityPoll(k.owner, 'c_other', runId)).status).toBe(404);
      expect((await communityPoll(k.owner, 'c_lab', 'run_unknown')).status).toBe(404);
      expect((await communityPoll(k.outsider, 'c_lab', runId)).status).toBe(403);
      const noScope = await communityPoll(k.read, 'c_lab', runId);
      expect(noScope.status).toBe(403);
      expect(noScope.body.error.required_scope).toBe('enrich:read');
      // Not a self run either.
      expect((await selfPoll(k.selfOther, runId)).status).toBe(404);
    });

    it('pages the items of a large run with items_after', async () => {
      const run = await enrich(k.owner, 'c_lab', { depth: 'quick', include_already_enriched: true });
      expect(run.status).toBe(202);
      const done = await until(() => communityPoll(k.owner, 'c_lab', run.body.run_id));
      expect(done.body.counts.total).toBe(LAB_MEMBERS);
      expect(done.body.items).toHaveLength(LAB_MEMBERS);
      const page = await communityPoll(k.owner, 'c_lab', run.body.run_id, `?items_after=${done.body.items[4].profile_id}`);
      expect(page.body.items[0].profile_id).toBe(done.body.items[5].profile_id);
      expect((await communityPoll(k.owner, 'c_lab', run.body.run_id, '?items_after=')).status).toBe(400);
    });

    it('20 parallel identical starts under one Idempotency-Key: one run, charged once per person', async () => {
      const body = { depth: 'quick', profile_ids: ['p_m08', 'p_m09'], include_already_enriched: true };
      const headers = { 'idempotency-key': `enrich-${store}-race` };
      const answers = await Promise.all(Array.from({ length: 20 }, () => enrich(k.owner, 'c_lab', body, headers)));
      const accepted = answers.filter((a) => a.status === 202);
      // Any call that found the first still in flight is told to retry (409); none started another run.
      expect(answers.every((a) => a.status === 202 || a.status === 409)).toBe(true);
      expect(new Set(accepted.map((a) => a.body.run_id)).size).toBe(1);
      const runId = accepted[0]!.body.run_id;
      const retry = await enrich(k.owner, 'c_lab', body, headers);
      expect(retry.status).toBe(202);
      expect(retry.body.run_id).toBe(runId);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      await until(() => communityPoll(k.owner, 'c_lab', runId));
      expect((await labCharges(runId)).length).toBe(2);
      const different = await enrich(k.owner, 'c_lab', { ...body, depth: 'deep' }, headers);
      expect(different.status).toBe(422);
    });
  });

  describe('self-enrichment', () => {
    it('needs self:enrich: a read key is 403', async () => {
      const res = await selfEnrich(k.selfRead);
      expect(res.status).toBe(403);
      expect(res.body.error.required_scope).toBe('self:enrich');
    });

    it('is target-locked: a body naming a profile is 400', async () => {
      const res = await selfEnrich(k.selfPaid, { profile_id: 'p_m00' });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
    });

    it('a legacy organization key has no own profile: 403; a user without a profile: 404', async () => {
      expect((await selfEnrich(k.legacy)).status).toBe(403);
      const none = await selfEnrich(k.noProfile);
      expect(none.status).toBe(404);
      expect(none.body.error.code).toBe('not_found');
    });

    it('a paid owner: 202, charged 1 credit under enrichment_self, own profile enriched and normalised', async () => {
      const started = await selfEnrich(k.selfPaid);
      expect(started.status, JSON.stringify(started.body)).toBe(202);
      expect(started.body).toMatchObject({ kind: 'self', community_id: null, status: 'queued', depth: 'standard', credits_charged: 1 });
      expect(started.headers.get('location')).toBe(`/v1/me/enrich/runs/${started.body.run_id}`);
      const done = await until(() => selfPoll(k.selfPaid, started.body.run_id));
      expect(done.body).toMatchObject({ status: 'succeeded', counts: { total: 1, succeeded: 1 }, credits_charged: 1 });
      // One charge, one figure: the run's, its only item's and the ledger's.
      expect(done.body.items).toEqual([expect.objectContaining({ status: 'succeeded', credits_charged: 1 })]);
      const charges = await ledger({ type: OwnerType.OWNER_TYPE_USER, id: 'u_paid' }, 'enrichment_self:');
      expect(charges).toEqual([{ reference: `enrichment_self:${started.body.run_id}`, amount: -1 }]);
      const profile = await request(sys.restUrl, 'GET', '/v1/me/profile', { headers: bearer(k.selfPaid) });
      expect(profile.body.name).toBe('Paid Person');
      expect(profile.body.enrichment).toMatchObject({ depth: 'standard' });
      expect(profile.body.enrichment.data.topics.length).toBeGreaterThan(0);
    });

    it('ignores Idempotency-Key: a retried POST starts and charges a second run', async () => {
      const headers = { 'idempotency-key': `self-${store}` };
      const first = await selfEnrich(k.selfPaid, {}, headers);
      const second = await selfEnrich(k.selfPaid, {}, headers);
      expect(first.status).toBe(202);
      expect(second.status).toBe(202);
      expect(second.body.run_id).not.toBe(first.body.run_id);
      expect(second.headers.get('idempotent-replayed')).toBeNull();
      const charges = await ledger({ type: OwnerType.OWNER_TYPE_USER, id: 'u_paid' }, 'enrichment_self:');
      expect(charges.map((c) => c.reference)).toEqual(expect.arrayContaining([first.body.run_id, second.body.run_id].map((id) => `enrichment_self:${id}`)));
    });

    it('a free owner: not charged, then 429 rate_limited with available_at inside the 30-day cooldown', async () => {
      const first = await selfEnrich(k.selfFree);
      expect(first.status).toBe(202);
      expect(first.body.credits_charged).toBe(0);
      await until(() => selfPoll(k.selfFree, first.body.run_id));
      const second = await selfEnrich(k.selfFree);
      expect(second.status).toBe(429);
      expect(second.body.error.code).toBe('rate_limited');
      const availableAt = Date.parse(second.body.error.available_at);
      expect(availableAt - Date.now()).toBeGreaterThan(29 * 86_400_000);
      expect(await ledger({ type: OwnerType.OWNER_TYPE_USER, id: 'u_free' }, '')).toEqual([]);
    });

    it('a poll is fenced to the caller', async () => {
      const started = await selfEnrich(k.selfPaid);
      expect((await selfPoll(k.selfOther, started.body.run_id)).status).toBe(404);
      expect((await selfPoll(k.selfPaid, 'run_unknown')).status).toBe(404);
    });
  });
});
