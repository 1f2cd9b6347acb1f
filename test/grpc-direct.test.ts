// Internal teams call the services directly over gRPC with their own credentials (docs/API-DECISIONS.md
// "Internal teams call the services directly"): an API key or an OAuth access token for the gRPC
// API in the `authorization` metadata, authenticated by identity live on every call, counted in
// the credential's usage and limited by the same bucket as its REST requests; only the public RPCs
// answer it. Caller tokens stay the edge's: one signed by another key, or expired, is refused.
import { SignJWT } from 'jose';
import { createPrivateKey } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { Caller, CredentialKind, OwnerType, RateTier } from '../proto/gen/expertnet/common/v1/common.js';
import { SearchScope } from '../proto/gen/expertnet/search/v1/search_service.js';
import { TokenSigner } from '../services/kit/grpc/caller-token.js';
import { callAs } from '../services/kit/grpc/client.js';
import { GRPC_AUDIENCE } from '../services/kit/grpc-audience.js';
import { generateSecrets } from '../services/kit/secrets.js';
import { SCOPES } from '../services/kit/scopes.js';
import { adminJson } from './helpers/admin-cli.js';
import { asBearer, directClients, outcomeOf, runTeamClient, type DirectClients } from './helpers/direct-grpc.js';
import { bearer, request } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const k = { all: liveKey(), revoked: liveKey(), slow: liveKey(), counted: liveKey(), fenced: liveKey() };
const seed: SeedInput = {
  users: [{ id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' }],
  communities: [{ id: 'c_bio', name: 'Biology', owner: { user: 'u_ada' }, api_writes: true }],
  profiles: [
    { id: 'p_ada', user: 'u_ada', name: 'Ada Lovelace', email: 'ada@example.org' },
    { id: 'p_eco', name: 'Elin Ecologist', headline: 'Freshwater pond ecologist' },
    { id: 'p_chem', name: 'Carl Chemist', headline: 'Organic chemistry and catalysis' },
  ],
  memberships: [
    { community: 'c_bio', profile: 'p_ada', role: 'owner' },
    { community: 'c_bio', profile: 'p_eco' },
    { community: 'c_bio', profile: 'p_chem' },
  ],
  wallets: [{ owner: { user: 'u_ada' }, balance: 1000 }],
  keys: [
    { id: 'k_all', secret: k.all, owner: { user: 'u_ada' }, scopes: [...SCOPES], requested_rate: 6000 },
    { id: 'k_revoked', secret: k.revoked, owner: { user: 'u_ada' }, scopes: ['profile:read'], requested_rate: 6000 },
    { id: 'k_slow', secret: k.slow, owner: { user: 'u_ada' }, scopes: ['profile:read'], requested_rate: 3 },
    { id: 'k_counted', secret: k.counted, owner: { user: 'u_ada' }, scopes: ['profile:read'], requested_rate: 6000 },
    { id: 'k_fenced', secret: k.fenced, owner: { user: 'u_ada' }, scopes: ['search:read'], allowlist: [], requested_rate: 6000 },
  ],
};

/** Ada's k_all as the edge would carry it in a caller token. */
const adaCaller = Caller.fromPartial({
  credentialId: 'k_all',
  credential: CredentialKind.CREDENTIAL_KIND_API_KEY,
  owner: { type: OwnerType.OWNER_TYPE_USER, id: 'u_ada' },
  userId: 'u_ada',
  scopes: [...SCOPES],
  rateTier: RateTier.RATE_TIER_STANDARD,
  requestedRate: 6000,
});

describe('internal teams calling the services directly over gRPC', () => {
  let sys: TestSystem;
  let team: DirectClients;
  const operator = () => callAs(sys.signer, { kind: 'operator', actor: 'grpc-direct-test' }, undefined, 10_000);

  beforeAll(async () => {
    sys = await startTestSystem({ seed });
    team = directClients(sys.grpcAddresses);
  }, 120_000);
  afterAll(async () => {
    team?.close();
    await sys?.stop();
  });

  it('a client in its own process, holding only the addresses and an API key, lists a roster and runs a search', async () => {
    const rest = await request(sys.restUrl, 'GET', '/v1/communities/c_bio/members?limit=50', { headers: bearer(k.all) });
    expect(rest.status).toBe(200);
    const { code, out } = await runTeamClient({
      COMMUNITIES_ADDR: sys.grpcAddresses.communities,
      SEARCH_ADDR: sys.grpcAddresses.search,
      EXPERTNET_API_KEY: k.all,
      COMMUNITY_ID: 'c_bio',
      QUERY: 'pond ecologist',
    });
    expect(out.error, JSON.stringify(out)).toBeUndefined();
    expect(code).toBe(0);
    expect(out.members).toEqual(rest.body.members.map((m: { profile_id: string }) => m.profile_id));
    expect(out.members).toHaveLength(3);
    expect(out.search.status).toBe('SEARCH_STATUS_COMPLETE');
    expect(out.search.matches[0]).toBe('p_eco');
    // The same search, read over REST by the same key: one search, whichever door it came through.
    const polled = await request(sys.restUrl, 'GET', `/v1/search/${out.search.id}`, { headers: bearer(k.all) });
    expect(polled.status).toBe(200);
    expect(polled.body.matches.map((r: { profile_id: string }) => r.profile_id)).toEqual(out.search.matches);
  }, 90_000);

  it('refuses a caller token signed by another Ed25519 key: UNAUTHENTICATED, for a caller and for an operator', async () => {
    const forger = new TokenSigner(generateSecrets());
    const asCaller = await forger.sign({ kind: 'caller', caller: adaCaller });
    const asOperator = await forger.sign({ kind: 'operator', actor: 'forger' });
    expect(await outcomeOf(team.communities.listMembers({ communityId: 'c_bio' }, asBearer(asCaller)))).toMatchObject({
      ok: false, status: 'UNAUTHENTICATED', reason: 'unauthorized',
    });
    expect(await outcomeOf(team.communities.upsertCommunity({ community: { id: 'c_forged', name: 'Forged' } }, asBearer(asOperator)))).toMatchObject({
      ok: false, status: 'UNAUTHENTICATED', reason: 'unauthorized',
    });
    // The same caller signed with the edge's own key is answered.
    const genuine = await sys.signer.sign({ kind: 'caller', caller: adaCaller });
    expect(await outcomeOf(team.communities.listMembers({ communityId: 'c_bio' }, asBearer(genuine)))).toMatchObject({ ok: true });
  });

  it('refuses an expired caller token signed with the edge key: UNAUTHENTICATED', async () => {
    const now = Math.floor(Date.now() / 1000);
    const expired = await new SignJWT({ pk: 'caller', caller: Caller.toJSON(adaCaller) })
      .setProtectedHeader({ alg: 'EdDSA' })
      .setIssuer('expertnet-edge')
      .setAudience('expertnet-internal')
      .setIssuedAt(now - 120)
      .setExpirationTime(now - 60)
      .sign(createPrivateKey(sys.secrets.callerTokenPrivateKey));
    expect(await outcomeOf(team.communities.listMembers({ communityId: 'c_bio' }, asBearer(expired)))).toMatchObject({
      ok: false, status: 'UNAUTHENTICATED', reason: 'unauthorized',
    });
  });

  it('refuses a revoked key on its next call: UNAUTHENTICATED (identity re-checks every call)', async () => {
    const call = () => outcomeOf(team.communities.listMembers({ communityId: 'c_bio' }, asBearer(k.revoked)));
    expect(await call()).toMatchObject({ ok: true });
    await sys.clients.identity.revokeKey({ keyId: 'k_revoked' }, await operator());
    expect(await call()).toMatchObject({ ok: false, status: 'UNAUTHENTICATED', reason: 'unauthorized' });
    expect(await outcomeOf(team.communities.listMembers({ communityId: 'c_bio' }, asBearer('svc_live_not_a_key')))).toMatchObject({
      ok: false, status: 'UNAUTHENTICATED', reason: 'unauthorized',
    });
  });

  it('refuses the plumbing to a direct caller with PERMISSION_DENIED (ErrorInfo forbidden), whatever its scopes', async () => {
    const md = () => asBearer(k.all);
    const refusals = await Promise.all([
      outcomeOf(team.communities.scanMembers({ communityId: 'c_bio' }, md())),
      outcomeOf(team.communities.indexEnrichedMembers({ communityId: 'c_bio', members: [] }, md())),
      outcomeOf(team.communities.authorizeWrite({ communityId: 'c_bio' }, md())),
      outcomeOf(team.communities.upsertCommunity({ community: { id: 'c_new', name: 'New' } }, md())),
      outcomeOf(team.identity.authenticate({ apiKey: k.all }, md())),
      outcomeOf(team.search.indexDocuments({ documents: [] }, md())),
      outcomeOf(team.billing.charge({ payer: { type: OwnerType.OWNER_TYPE_USER, id: 'u_ada' }, operation: 'search', units: 1 }, md())),
      outcomeOf(team.enrichment.listEnrichedAt({ communityId: 'c_bio' }, md())),
    ]);
    for (const refusal of refusals) expect(refusal).toMatchObject({ ok: false, status: 'PERMISSION_DENIED', reason: 'forbidden' });
    expect((refusals[0] as { message: string }).message).toContain('ScanMembers is not a public RPC');
    const community = await sys.clients.communities.getCommunity({ communityId: 'c_new' }, await operator()).catch(() => undefined);
    expect(community?.community).toBeUndefined();
  });

  it('counts a direct call in the key usage like a REST request', async () => {
    const usage = async () => (await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(k.counted) })).body.usage.requests_today;
    const before = await usage();
    for (let i = 0; i < 3; i++) expect(await outcomeOf(team.communities.listMembers({ communityId: 'c_bio' }, asBearer(k.counted)))).toMatchObject({ ok: true });
    // Three direct calls and the GET /v1/me that reads the count.
    expect(await usage()).toBe(before + 4);
    const described = await team.identity.describeCredential({}, asBearer(k.counted));
    expect(described.usage?.requestsToday).toBe(before + 5);
  });

  it('logs each answered direct call in the request log of the key, surface grpc, refusals included', async () => {
    const requestId = 'direct-log-1';
    const options = asBearer(k.counted);
    options.metadata.set('x-request-id', requestId);
    expect(await outcomeOf(team.communities.getMember({ communityId: 'c_bio', profileId: 'p_eco' }, options))).toMatchObject({ ok: true });
    expect(await outcomeOf(team.communities.scanMembers({ communityId: 'c_bio' }, asBearer(k.counted)))).toMatchObject({ ok: false });
    const logged = async () =>
      (await sys.clients.identity.listRequests({ userId: 'u_ada', credentialId: 'k_counted', pageSize: 100 }, await operator())).requests
        .map((r) => r.request!)
        .filter((r) => r.surface === 'grpc');
    await expect.poll(async () => (await logged()).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    const entries = await logged();
    expect(entries.find((r) => r.requestId === requestId)).toMatchObject({
      method: 'gRPC', path: '/expertnet.communities.v1.CommunitiesService/GetMember', status: 200,
    });
    expect(entries.find((r) => r.path.endsWith('/ScanMembers'))).toMatchObject({ status: 403 });
  });

  it('logs a refusal with the status REST answers for it: a search of scope all with no readable community is 422 both ways', async () => {
    const refused = await outcomeOf(team.search.startSearch({ query: 'pond', scope: SearchScope.SEARCH_SCOPE_ALL }, asBearer(k.fenced)));
    expect(refused).toMatchObject({ ok: false, status: 'FAILED_PRECONDITION', reason: 'unprocessable' });
    const rest = await request(sys.restUrl, 'POST', '/v1/search', { headers: bearer(k.fenced), body: { query: 'pond', scope: 'all' } });
    expect(rest.status).toBe(422);
    const logged = async () =>
      (await sys.clients.identity.listRequests({ userId: 'u_ada', credentialId: 'k_fenced', pageSize: 100 }, await operator())).requests.map((r) => r.request!);
    await expect.poll(async () => (await logged()).length, { timeout: 10_000 }).toBe(2);
    expect((await logged()).map((r) => [r.surface, r.status]).sort()).toEqual([['grpc', 422], ['rest', 422]]);
  });

  it('spends one rate-limit bucket across REST and gRPC: the call past the burst is RESOURCE_EXHAUSTED rate_limited, with the RateLimit fields', async () => {
    let header: Record<string, string> = {};
    const onHeader = (h: Iterable<[string, unknown]>) => (header = Object.fromEntries([...h].map(([n, v]) => [n, String(v)])));
    expect((await request(sys.restUrl, 'GET', '/v1/communities', { headers: bearer(k.slow) })).status).toBe(200);
    expect(await outcomeOf(team.communities.listCommunities({}, asBearer(k.slow, onHeader)))).toMatchObject({ ok: true });
    expect(header['ratelimit-limit']).toBe('3');
    expect(header['ratelimit-remaining']).toBe('1');
    expect(await outcomeOf(team.communities.listCommunities({}, asBearer(k.slow)))).toMatchObject({ ok: true });
    const refused = await outcomeOf(team.communities.listCommunities({}, asBearer(k.slow, onHeader)));
    expect(refused).toMatchObject({ ok: false, status: 'RESOURCE_EXHAUSTED', reason: 'rate_limited' });
    expect(Number((refused as { metadata: Record<string, string> }).metadata.retry_after_seconds)).toBeGreaterThanOrEqual(1);
    expect(header['retry-after']).toBeDefined();
    expect((await request(sys.restUrl, 'GET', '/v1/communities', { headers: bearer(k.slow) })).status).toBe(429);
  });

  it('takes an OAuth access token issued for the gRPC API, and refuses one issued for the REST API', async () => {
    const issue = async (resource: string) =>
      (await sys.clients.identity.issueAccessToken({ userId: 'u_ada', scopes: ['search:read'], ttlSeconds: 300, resource }, await operator())).accessToken;
    const search = { query: 'pond ecologist', scope: SearchScope.SEARCH_SCOPE_COMMUNITY, communityId: 'c_bio', limit: 3 };
    const forGrpc = await outcomeOf(team.search.startSearch(search, asBearer(await issue(GRPC_AUDIENCE))));
    expect(forGrpc).toMatchObject({ ok: true });
    const forRest = await outcomeOf(team.search.startSearch(search, asBearer(await issue(''))));
    expect(forRest).toMatchObject({ ok: false, status: 'UNAUTHENTICATED', reason: 'unauthorized' });
    expect((forRest as { message: string }).message).toContain('aud');
  });

  it('takes the token `admin tokens issue --audience grpc` prints, limited to its scopes', async () => {
    const issued = await adminJson(sys.env, ['tokens', 'issue', '--user', 'u_ada', '--scopes', 'profile:read', '--audience', 'grpc']);
    const roster = await outcomeOf(team.communities.listMembers({ communityId: 'c_bio' }, asBearer(issued.access_token)));
    expect(roster).toMatchObject({ ok: true });
    expect((roster as { value: { members: unknown[] } }).value.members).toHaveLength(3);
    const search = await outcomeOf(team.search.startSearch({ query: 'pond', scope: SearchScope.SEARCH_SCOPE_PUBLIC }, asBearer(issued.access_token)));
    expect(search).toMatchObject({ ok: false, status: 'PERMISSION_DENIED', reason: 'forbidden', metadata: { required_scope: 'search:read' } });
  }, 60_000);
});
