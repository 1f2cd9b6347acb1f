// REST and the public gRPC surface agree: the same caller (one API key), the same request, the same
// outcome — an answer with the same content, or a refusal with the same API error code (REST's
// `error.code`, gRPC's ErrorInfo reason under the canonical status errors.ts maps it to). The
// rules are those REST is tested against: scopes, reach and the key's allowlist, write gating,
// unknown ids. The request schemas' own rules are the edge's (test/surfaces-agree.test.ts holds
// REST and MCP together on them); a service re-checks what decides access.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { Depth } from '../proto/gen/expertnet/enrichment/v1/enrichment_service.js';
import { SearchScope } from '../proto/gen/expertnet/search/v1/search_service.js';
import { API_ERROR_STATUS, type ApiErrorCode } from '../services/kit/grpc/errors.js';
import { SCOPES } from '../services/kit/scopes.js';
import { Status } from 'nice-grpc';
import { asBearer, directClients, outcomeOf, type DirectClients } from './helpers/direct-grpc.js';
import { bearer, request, type JsonResponse } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const k = { all: liveKey(), search: liveKey(), reader: liveKey(), allow: liveKey() };
const rate = { requested_rate: 6000 };
const seed: SeedInput = {
  users: [
    { id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' },
    { id: 'u_bob', email: 'bob@example.org', name: 'Bob', plan: 'paid' },
  ],
  communities: [
    { id: 'c_bio', name: 'Biology', owner: { user: 'u_ada' }, api_writes: true },
    { id: 'c_chem', name: 'Chemistry', owner: { user: 'u_ada' } },
    { id: 'c_other', name: 'Not Ada’s', owner: { user: 'u_bob' } },
  ],
  profiles: [
    { id: 'p_ada', user: 'u_ada', name: 'Ada Lovelace', email: 'ada@example.org' },
    { id: 'p_bob', user: 'u_bob', name: 'Bob Builder', email: 'bob@example.org' },
    { id: 'p_eco', name: 'Elin Ecologist', headline: 'Freshwater pond ecologist' },
    { id: 'p_one', name: 'One Person', headline: 'Organic chemistry' },
  ],
  memberships: [
    { community: 'c_bio', profile: 'p_ada', role: 'owner' },
    { community: 'c_bio', profile: 'p_eco' },
    { community: 'c_bio', profile: 'p_one' },
    { community: 'c_chem', profile: 'p_ada', role: 'owner' },
    { community: 'c_chem', profile: 'p_eco' },
    { community: 'c_other', profile: 'p_bob', role: 'owner' },
  ],
  wallets: [{ owner: { user: 'u_ada' }, balance: 1000 }],
  keys: [
    { id: 'k_all', secret: k.all, owner: { user: 'u_ada' }, scopes: [...SCOPES], ...rate },
    { id: 'k_search', secret: k.search, owner: { user: 'u_ada' }, scopes: ['search:read'], ...rate },
    { id: 'k_reader', secret: k.reader, owner: { user: 'u_ada' }, scopes: ['profile:read'], ...rate },
    { id: 'k_allow', secret: k.allow, owner: { user: 'u_ada' }, scopes: [...SCOPES], allowlist: ['c_bio'], ...rate },
  ],
};

/** What both surfaces must agree on: an answer's content (as `same` projects it), or the error code. */
type Outcome = { answer: unknown } | { refused: string };

interface Case {
  name: string;
  key: string;
  rest: { method: 'GET' | 'POST' | 'DELETE'; path: string; body?: unknown; idempotencyKey?: string };
  grpc: (team: DirectClients, options: ReturnType<typeof asBearer>) => Promise<unknown>;
  /** The content both answers must share; unset for a case that must be refused on both. */
  same?: { rest: (body: any) => unknown; grpc: (response: any) => unknown };
}

const ids = (items: Array<{ [k: string]: string }>, field: string) => items.map((i) => i[field]).sort();
const bulk = { members: [{ email: 'new.person@example.org', name: 'New Person' }] };

const CASES: Case[] = [
  {
    name: 'communities the key reaches', key: k.all, rest: { method: 'GET', path: '/v1/communities' },
    grpc: (t, o) => t.communities.listCommunities({}, o),
    same: { rest: (b) => ids(b.communities, 'community_id'), grpc: (r) => r.communities.map((c: any) => c.community.id).sort() },
  },
  {
    name: 'communities within the allowlist', key: k.allow, rest: { method: 'GET', path: '/v1/communities' },
    grpc: (t, o) => t.communities.listCommunities({}, o),
    same: { rest: (b) => ids(b.communities, 'community_id'), grpc: (r) => r.communities.map((c: any) => c.community.id).sort() },
  },
  {
    name: 'a roster page', key: k.all, rest: { method: 'GET', path: '/v1/communities/c_bio/members?limit=50' },
    grpc: (t, o) => t.communities.listMembers({ communityId: 'c_bio', pageSize: 50 }, o),
    same: { rest: (b) => b.members.map((m: any) => m.profile_id), grpc: (r) => r.members.map((m: any) => m.profile.id) },
  },
  { name: 'a roster without profile:read', key: k.search, rest: { method: 'GET', path: '/v1/communities/c_bio/members' },
    grpc: (t, o) => t.communities.listMembers({ communityId: 'c_bio' }, o) },
  { name: 'a roster outside the allowlist', key: k.allow, rest: { method: 'GET', path: '/v1/communities/c_chem/members' },
    grpc: (t, o) => t.communities.listMembers({ communityId: 'c_chem' }, o) },
  { name: 'a roster out of reach', key: k.all, rest: { method: 'GET', path: '/v1/communities/c_other/members' },
    grpc: (t, o) => t.communities.listMembers({ communityId: 'c_other' }, o) },
  {
    name: 'a member', key: k.all, rest: { method: 'GET', path: '/v1/communities/c_bio/members/p_one' },
    grpc: (t, o) => t.communities.getMember({ communityId: 'c_bio', profileId: 'p_one', withEnrichment: true }, o),
    same: { rest: (b) => [b.profile_id, b.name, b.headline], grpc: (r) => [r.member.profile.id, r.member.profile.name, r.member.profile.headline] },
  },
  { name: 'a member not in the community', key: k.all, rest: { method: 'GET', path: '/v1/communities/c_bio/members/p_bob' },
    grpc: (t, o) => t.communities.getMember({ communityId: 'c_bio', profileId: 'p_bob', withEnrichment: true }, o) },
  { name: 'a member outside the allowlist', key: k.allow, rest: { method: 'GET', path: '/v1/communities/c_chem/members/p_eco' },
    grpc: (t, o) => t.communities.getMember({ communityId: 'c_chem', profileId: 'p_eco', withEnrichment: true }, o) },
  {
    name: 'a search of a community', key: k.search,
    rest: { method: 'POST', path: '/v1/search', body: { query: 'pond ecologist', scope: 'community', community_id: 'c_bio' } },
    grpc: (t, o) => t.search.startSearch({ query: 'pond ecologist', scope: SearchScope.SEARCH_SCOPE_COMMUNITY, communityId: 'c_bio', waitSeconds: 20 }, o),
    same: { rest: (b) => b.matches.map((m: any) => m.profile_id), grpc: (r) => r.job.matches.map((m: any) => m.profileId) },
  },
  { name: 'a search without search:read', key: k.reader,
    rest: { method: 'POST', path: '/v1/search', body: { query: 'pond', scope: 'public' } },
    grpc: (t, o) => t.search.startSearch({ query: 'pond', scope: SearchScope.SEARCH_SCOPE_PUBLIC }, o) },
  { name: 'a search of a community outside the allowlist', key: k.allow,
    rest: { method: 'POST', path: '/v1/search', body: { query: 'pond', scope: 'community', community_id: 'c_chem' } },
    grpc: (t, o) => t.search.startSearch({ query: 'pond', scope: SearchScope.SEARCH_SCOPE_COMMUNITY, communityId: 'c_chem' }, o) },
  { name: 'a poll of an unknown search', key: k.search, rest: { method: 'GET', path: '/v1/search/srch_unknown' },
    grpc: (t, o) => t.search.getSearch({ searchId: 'srch_unknown' }, o) },
  { name: 'a bulk add without member:write', key: k.reader,
    rest: { method: 'POST', path: '/v1/communities/c_bio/members', body: bulk, idempotencyKey: 'agree-1' },
    grpc: (t, o) => t.communities.addMembers({ communityId: 'c_bio', members: bulk.members }, o) },
  { name: 'a bulk add where API writes are off', key: k.all,
    rest: { method: 'POST', path: '/v1/communities/c_chem/members', body: bulk, idempotencyKey: 'agree-2' },
    grpc: (t, o) => t.communities.addMembers({ communityId: 'c_chem', members: bulk.members }, o) },
  { name: 'a bulk add outside the allowlist', key: k.allow,
    rest: { method: 'POST', path: '/v1/communities/c_chem/members', body: bulk, idempotencyKey: 'agree-3' },
    grpc: (t, o) => t.communities.addMembers({ communityId: 'c_chem', members: bulk.members }, o) },
  { name: 'an erasure without member:write', key: k.reader, rest: { method: 'DELETE', path: '/v1/communities/c_bio/members/p_one' },
    grpc: (t, o) => t.communities.removeMember({ communityId: 'c_bio', profileId: 'p_one' }, o) },
  { name: 'an erasure outside the allowlist', key: k.allow, rest: { method: 'DELETE', path: '/v1/communities/c_chem/members/p_eco' },
    grpc: (t, o) => t.communities.removeMember({ communityId: 'c_chem', profileId: 'p_eco' }, o) },
  { name: 'an enrichment estimate without enrich:write', key: k.reader,
    rest: { method: 'POST', path: '/v1/communities/c_bio/enrich', body: { depth: 'standard', dry_run: true } },
    grpc: (t, o) => t.enrichment.startCommunityRun({ communityId: 'c_bio', depth: Depth.DEPTH_STANDARD, dryRun: true }, o) },
  { name: 'an enrichment run outside the allowlist', key: k.allow,
    rest: { method: 'POST', path: '/v1/communities/c_chem/enrich', body: { depth: 'quick' }, idempotencyKey: 'agree-4' },
    grpc: (t, o) => t.enrichment.startCommunityRun({ communityId: 'c_chem', depth: Depth.DEPTH_QUICK }, o) },
  { name: 'an unknown enrichment run', key: k.all, rest: { method: 'GET', path: '/v1/communities/c_bio/enrich/runs/run_unknown' },
    grpc: (t, o) => t.enrichment.getRun({ communityId: 'c_bio', runId: 'run_unknown' }, o) },
  { name: 'enrichment runs without enrich:read', key: k.search, rest: { method: 'GET', path: '/v1/communities/c_bio/enrich/runs' },
    grpc: (t, o) => t.enrichment.listRuns({ communityId: 'c_bio' }, o) },
  { name: 'a self-enrichment without self:enrich', key: k.reader, rest: { method: 'POST', path: '/v1/me/enrich' },
    grpc: (t, o) => t.enrichment.startSelfRun({}, o) },
  {
    name: 'the balance and the month’s spend', key: k.reader, rest: { method: 'GET', path: '/v1/me' },
    grpc: (t, o) => t.billing.getCallerUsage({}, o),
    same: { rest: (b) => [b.credit_balance, b.usage.credits_spent_this_month], grpc: (r) => [r.creditBalance, r.creditsSpentThisMonth] },
  },
];

describe('REST and the public gRPC surface answer the same caller and request alike', () => {
  let sys: TestSystem;
  let team: DirectClients;

  beforeAll(async () => {
    sys = await startTestSystem({ seed });
    team = directClients(sys.grpcAddresses);
  }, 120_000);
  afterAll(async () => {
    team?.close();
    await sys?.stop();
  });

  async function overRest(c: Case): Promise<{ res: JsonResponse; outcome: Outcome }> {
    const headers = { ...bearer(c.key), ...(c.rest.idempotencyKey && { 'idempotency-key': c.rest.idempotencyKey }) };
    const res = await request(sys.restUrl, c.rest.method, c.rest.path, { headers, ...(c.rest.body !== undefined && { body: c.rest.body }) });
    return { res, outcome: res.status < 300 ? { answer: c.same?.rest(res.body) } : { refused: res.body.error.code } };
  }

  async function overGrpc(c: Case): Promise<Outcome> {
    const outcome = await outcomeOf(c.grpc(team, asBearer(c.key)));
    if (outcome.ok) return { answer: c.same?.grpc(outcome.value) };
    // The canonical status is the one the contract maps the error code to.
    expect(Status[API_ERROR_STATUS[outcome.reason as ApiErrorCode]], `${c.name}: status of ${outcome.reason}`).toBe(outcome.status);
    return { refused: outcome.reason! };
  }

  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const { res, outcome: rest } = await overRest(c);
    const grpc = await overGrpc(c);
    if (!c.same) expect(res.status, `REST refuses ${c.name}`).toBeGreaterThanOrEqual(400);
    expect(grpc, `REST answered ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`).toEqual(rest);
  });
});
