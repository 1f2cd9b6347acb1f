// CREDIT_ENFORCEMENT=on: billable work is refused before it starts when the payer cannot cover it —
// 402 in the envelope, naming the payer — and nothing is charged, searched or enriched. Each of the
// three refusals is seen over HTTP: insufficient_credits (search, community enrichment,
// self-enrich), coverage_required and community_over_quota (a member's search in an organization's
// community).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { ownerTypes } from '../services/kit/enums.js';
import { callAs } from '../services/kit/grpc/client.js';
import { bearer, request } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { storeNames } from './helpers/stores.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const brokeKey = liveKey();
const fundedKey = liveKey();
const labKey = liveKey();
const memberKey = liveKey();
const brokeSelfKey = liveKey();

const seed: SeedInput = {
  users: [
    { id: 'u_broke', email: 'broke@example.org', name: 'Broke', plan: 'paid' },
    { id: 'u_funded', email: 'funded@example.org', name: 'Funded', plan: 'paid' },
    { id: 'u_lab', email: 'lab@example.org', name: 'Lab Owner', plan: 'paid' },
    { id: 'u_member', email: 'member@example.org', name: 'Member', plan: 'paid' },
  ],
  organizations: [{ id: 'o_lab', name: 'The Lab', members: [{ user: 'u_lab', role: 'owner' }] }],
  communities: [
    { id: 'c_lab', name: 'Lab', owner: { user: 'u_lab' }, api_writes: true },
    { id: 'c_plain', name: 'Plain', owner: { organization: 'o_lab' } },
    { id: 'c_budget', name: 'Budget', owner: { organization: 'o_lab' } },
  ],
  profiles: [
    { id: 'p_funded', user: 'u_funded', public: true, name: 'Funded Person', headline: 'Protein design' },
    { id: 'p_broke', user: 'u_broke', name: 'Broke Person' },
    { id: 'p_member', user: 'u_member', name: 'Member Person' },
    { id: 'p_a', name: 'A Member' },
    { id: 'p_b', name: 'B Member' },
  ],
  memberships: [
    { community: 'c_lab', profile: 'p_a', role: 'member' },
    { community: 'c_lab', profile: 'p_b', role: 'member' },
    { community: 'c_plain', profile: 'p_member', role: 'member' },
    { community: 'c_budget', profile: 'p_member', role: 'member' },
  ],
  wallets: [
    { owner: { user: 'u_funded' }, balance: 5 },
    { owner: { user: 'u_lab' }, balance: 5 },
    { owner: { user: 'u_member' }, balance: 100 },
    { owner: { organization: 'o_lab' }, balance: 10 },
  ],
  keys: [
    { id: 'k_broke', secret: brokeKey, owner: { user: 'u_broke' }, scopes: ['search:read'] },
    { id: 'k_funded', secret: fundedKey, owner: { user: 'u_funded' }, scopes: ['search:read'] },
    { id: 'k_lab', secret: labKey, owner: { user: 'u_lab' }, scopes: ['enrich:write', 'enrich:read'] },
    { id: 'k_member', secret: memberKey, owner: { user: 'u_member' }, scopes: ['search:read'] },
    { id: 'k_broke_self', secret: brokeSelfKey, owner: { user: 'u_broke' }, scopes: ['self:enrich'] },
  ],
};

describe.each(storeNames())('credit enforcement on %s', (store) => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem({ store, seed, env: { CREDIT_ENFORCEMENT: 'on' } });
  });
  afterAll(async () => sys?.stop());

  it('refuses a search its payer cannot cover with 402 insufficient_credits naming the payer, charging nothing', async () => {
    const res = await request(sys.restUrl, 'POST', '/v1/search', { headers: bearer(brokeKey), body: { query: 'protein', scope: 'public' } });
    expect(res.status).toBe(402);
    expect(res.body.error).toMatchObject({
      code: 'insufficient_credits',
      request_id: res.headers.get('x-request-id'),
      payer: { type: 'user', id: 'u_broke', name: 'Broke' },
    });
    const operator = await callAs(sys.signer, { kind: 'operator', actor: 'test' }, undefined, 5000);
    const { entries } = await sys.clients.billing.listLedgerEntries(
      { owner: { type: ownerTypes.toEnum('user'), id: 'u_broke' }, pageSize: 10, pageToken: '' },
      operator,
    );
    expect(entries).toEqual([]);
  });

  const ledgerOf = async (type: 'user' | 'organization', id: string) => {
    const operator = await callAs(sys.signer, { kind: 'operator', actor: 'test' }, undefined, 5000);
    const { entries } = await sys.clients.billing.listLedgerEntries({ owner: { type: ownerTypes.toEnum(type), id }, pageSize: 50, pageToken: '' }, operator);
    // The charges (the seed's opening credit aside).
    return entries.filter((e) => e.amount < 0);
  };

  it('refuses a community enrichment run its billing owner cannot cover (402, nothing started); a cheaper one starts', async () => {
    // Two members at standard depth: 6 credits, the owner has 5.
    const refused = await request(sys.restUrl, 'POST', '/v1/communities/c_lab/enrich', { headers: bearer(labKey), body: { depth: 'standard' } });
    expect(refused.status).toBe(402);
    expect(refused.body.error).toMatchObject({ code: 'insufficient_credits', payer: { type: 'user', id: 'u_lab', name: 'Lab Owner' } });
    // Nothing started: both members are still eligible, nobody was charged.
    const estimate = await request(sys.restUrl, 'POST', '/v1/communities/c_lab/enrich', { headers: bearer(labKey), body: { depth: 'standard', dry_run: true } });
    expect(estimate.body).toMatchObject({ eligible_count: 2, estimated_max_credits: 6 });
    expect(await ledgerOf('user', 'u_lab')).toEqual([]);
    const quick = await request(sys.restUrl, 'POST', '/v1/communities/c_lab/enrich', { headers: bearer(labKey), body: { depth: 'quick' } });
    expect(quick.status).toBe(202);
    expect(quick.body.eligible_count).toBe(2);
  });

  it('refuses a paid self-enrich without credits with 402, creating no run and charging nothing', async () => {
    const res = await request(sys.restUrl, 'POST', '/v1/me/enrich', { headers: bearer(brokeSelfKey) });
    expect(res.status).toBe(402);
    expect(res.body.error).toMatchObject({ code: 'insufficient_credits', payer: { type: 'user', id: 'u_broke' } });
    expect(await ledgerOf('user', 'u_broke')).toEqual([]);
  });

  it('coverage_required: a member’s search in an organization community the organization does not cover', async () => {
    const res = await request(sys.restUrl, 'POST', '/v1/search', {
      headers: bearer(memberKey),
      body: { query: 'protein', scope: 'community', community_id: 'c_plain' },
    });
    expect(res.status).toBe(402);
    expect(res.body.error).toMatchObject({ code: 'coverage_required', payer: { type: 'organization', id: 'o_lab', name: 'The Lab' } });
    expect(await ledgerOf('user', 'u_member')).toEqual([]);
  });

  it('community_over_quota: the month’s delegation budget is used up', async () => {
    const operator = await callAs(sys.signer, { kind: 'operator', actor: 'test' }, undefined, 5000);
    await sys.clients.billing.setOrganizationFunding({ organizationId: 'o_lab', communityId: 'c_budget', standingFunding: false, delegationBudgetPerMonth: 1 }, operator);
    const search = () =>
      request(sys.restUrl, 'POST', '/v1/search', { headers: bearer(memberKey), body: { query: 'protein', scope: 'community', community_id: 'c_budget' } });
    const first = await search();
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const res = await search();
    expect(res.status).toBe(402);
    expect(res.body.error).toMatchObject({ code: 'community_over_quota', payer: { type: 'organization', id: 'o_lab', name: 'The Lab' } });
  });

  it('lets a payer with credits search, and charges the search once', async () => {
    const res = await request(sys.restUrl, 'POST', '/v1/search', { headers: bearer(fundedKey), body: { query: 'protein', scope: 'public' } });
    expect(res.status).toBe(200);
    const me = await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(fundedKey) });
    expect(me.body.credit_balance).toBe(4);
  });
});
