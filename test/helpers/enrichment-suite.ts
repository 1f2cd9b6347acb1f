// The enrichment suites' shared setup: keys, a seeded lab of twelve members plus closed and
// self-enrichment users, and per store an enrichment system with the requests and ledger reads
// its tests make. The HTTP providers run against a local server replaying the real APIs' answers.
import { afterAll, beforeAll, expect } from 'vitest';
import { OwnerType } from '../../proto/gen/expertnet/common/v1/common.js';
import type { SeedInput } from '../../deploy/admin/seed-schema.js';
import { callAs, type CallOptions } from '../../services/kit/grpc/client.js';
import { startEnrichmentSystem, type EnrichmentSystem } from './enrichment-system.js';
import { bearer, request, type JsonResponse } from './http.js';
import { liveKey } from './keys.js';
import { FIXTURE_PEOPLE } from './provider-replay.js';
import type { StoreName } from './stores.js';

export const k = {
  owner: liveKey(), read: liveKey(), poller: liveKey(), outsider: liveKey(), closed: liveKey(), jit: liveKey(),
  selfPaid: liveKey(), selfFree: liveKey(), selfRead: liveKey(), legacy: liveKey(), selfOther: liveKey(), search: liveKey(), noProfile: liveKey(), cadmin: liveKey(), plain: liveKey(),
};
export const rate = { requested_rate: 6000 };
const ENRICH = ['enrich:write', 'enrich:read', 'profile:read'];

export const people = Array.from({ length: 12 }, (_, i) => ({
  id: `p_m${String(i).padStart(2, '0')}`,
  name: `Member ${i}`,
  headline: i % 2 === 0 ? 'Protein folding researcher and structural biologist' : 'Machine learning engineer building language models',
  bio: 'Works on cryo-electron microscopy, protein design and open-source software for laboratories.',
}));

export const seed: SeedInput = {
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

export const LAB_MEMBERS = people.length + 1;

/** One enrichment system per store for a describe block, and the requests its tests make. */
export function enrichmentSuite(store: StoreName) {
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
  return { system: () => sys, enrich, communityPoll, selfEnrich, selfPoll, until, ledger, LAB, labCharges, consentRequests };
}
