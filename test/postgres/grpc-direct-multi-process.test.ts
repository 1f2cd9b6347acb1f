// Internal teams calling the services directly on the multi-process topology (PostgreSQL, Redis):
// the service process that takes the call asks the identity process who the key is, over gRPC, and
// spends the key's bucket in Redis, the one the gateway process spends for its REST requests.
// Where the topology's listeners require mutual TLS, the team holds a certificate from its CA.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchTopology, type Topology } from '../../deploy/local/launch.js';
import type { SeedInput } from '../../deploy/admin/seed-schema.js';
import { SCOPES } from '../../services/kit/scopes.js';
import { SearchScope } from '../../proto/gen/expertnet/search/v1/search_service.js';
import { Depth } from '../../proto/gen/expertnet/enrichment/v1/enrichment_service.js';
import { TokenSigner } from '../../services/kit/grpc/caller-token.js';
import { generateSecrets } from '../../services/kit/secrets.js';
import { asBearer, directClients, outcomeOf, runTeamClient, tlsOf, type DirectClients } from '../helpers/direct-grpc.js';
import { bearer, request } from '../helpers/http.js';
import { liveKey } from '../helpers/keys.js';
import { redisTestPrefix } from '../helpers/redis-prefix.js';
import { freshPostgresDatabase, type FreshDatabase } from '../helpers/stores.js';

const k = { all: liveKey(), slow: liveKey(), counted: liveKey(), relayed: liveKey() };
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
  wallets: [{ owner: { user: 'u_ada' }, balance: 100 }],
  keys: [
    { id: 'k_all', secret: k.all, owner: { user: 'u_ada' }, scopes: [...SCOPES], requested_rate: 6000 },
    { id: 'k_slow', secret: k.slow, owner: { user: 'u_ada' }, scopes: [...SCOPES], requested_rate: 3 },
    { id: 'k_counted', secret: k.counted, owner: { user: 'u_ada' }, scopes: ['profile:read'], requested_rate: 6000 },
    { id: 'k_relayed', secret: k.relayed, owner: { user: 'u_ada' }, scopes: ['search:read', 'enrich:read', 'enrich:write'], requested_rate: 6000 },
  ],
};

describe('internal teams calling the services of the multi-process topology directly', () => {
  const redisPrefix = redisTestPrefix();
  let db: FreshDatabase;
  let topology: Topology;
  let team: DirectClients;
  beforeAll(async () => {
    db = await freshPostgresDatabase({ migrated: true });
    const dataDir = mkdtempSync(join(tmpdir(), 'en-direct-'));
    const seedFile = join(dataDir, 'seed.json');
    writeFileSync(seedFile, JSON.stringify(seed));
    const env = { DATABASE_URL: db.url, REDIS_URL: process.env.REDIS_URL!, ...redisPrefix.env, SEED_FILE: seedFile, DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
    topology = await launchTopology(env, { readyTimeoutMs: 90_000 });
    team = directClients(topology.grpcAddresses, tlsOf(topology.env)?.credentials);
  }, 180_000);
  afterAll(async () => {
    team?.close();
    await topology?.stop();
    await db?.drop();
    await redisPrefix.cleanup();
  });

  it('a client in its own process, holding only the addresses and an API key, lists a roster and runs a search', async () => {
    const { code, out } = await runTeamClient({
      COMMUNITIES_ADDR: topology.grpcAddresses.communities,
      SEARCH_ADDR: topology.grpcAddresses.search,
      EXPERTNET_API_KEY: k.all,
      COMMUNITY_ID: 'c_bio',
      QUERY: 'pond ecologist',
      ...tlsOf(topology.env)?.env,
    });
    expect(out.error, JSON.stringify(out)).toBeUndefined();
    expect(code).toBe(0);
    const rest = await request(topology.restUrl, 'GET', '/v1/communities/c_bio/members?limit=50', { headers: bearer(k.all) });
    expect(out.members).toEqual(rest.body.members.map((m: { profile_id: string }) => m.profile_id));
    expect(out.search).toMatchObject({ status: 'SEARCH_STATUS_COMPLETE' });
    expect(out.search.matches[0]).toBe('p_eco');
  }, 90_000);

  it('spends one bucket in Redis across the gateway process and two service processes', async () => {
    expect((await request(topology.restUrl, 'GET', '/v1/communities', { headers: bearer(k.slow) })).status).toBe(200);
    expect(await outcomeOf(team.communities.listCommunities({}, asBearer(k.slow)))).toMatchObject({ ok: true });
    expect(await outcomeOf(team.billing.getCallerUsage({}, asBearer(k.slow)))).toMatchObject({ ok: true });
    expect(await outcomeOf(team.communities.listCommunities({}, asBearer(k.slow)))).toMatchObject({
      ok: false, status: 'RESOURCE_EXHAUSTED', reason: 'rate_limited',
    });
    expect((await request(topology.restUrl, 'GET', '/v1/communities', { headers: bearer(k.slow) })).status).toBe(429);
  });

  it('counts direct calls in the key usage, which the identity process keeps', async () => {
    for (let i = 0; i < 2; i++) {
      expect(await outcomeOf(team.communities.listMembers({ communityId: 'c_bio' }, asBearer(k.counted)))).toMatchObject({ ok: true });
    }
    const me = await request(topology.restUrl, 'GET', '/v1/me', { headers: bearer(k.counted) });
    expect(me.body.usage.requests_today).toBe(3);
  });

  it("a service acting for a team's caller at another service relays the team's own key, counted once (no service holds a signing key)", async () => {
    // Search asks communities for the key's reach; enrichment asks communities and billing, as the key.
    const search = await outcomeOf(team.search.startSearch({ query: 'pond', scope: SearchScope.SEARCH_SCOPE_COMMUNITY, communityId: 'c_bio', limit: 5, waitSeconds: 0 }, asBearer(k.relayed)));
    expect(search).toMatchObject({ ok: true });
    const dryRun = await outcomeOf(team.enrichment.startCommunityRun({ communityId: 'c_bio', depth: Depth.DEPTH_QUICK, dryRun: true }, asBearer(k.relayed)));
    expect(dryRun).toMatchObject({ ok: true });
    const me = await request(topology.restUrl, 'GET', '/v1/me', { headers: bearer(k.relayed) });
    expect(me.body.usage.requests_today).toBe(3);
  });

  it('refuses a forged caller token and keeps the plumbing from a direct caller', async () => {
    const forged = await new TokenSigner(generateSecrets()).sign({ kind: 'operator', actor: 'forger' });
    expect(await outcomeOf(team.communities.scanMembers({ communityId: 'c_bio' }, asBearer(forged)))).toMatchObject({
      ok: false, status: 'UNAUTHENTICATED', reason: 'unauthorized',
    });
    expect(await outcomeOf(team.communities.scanMembers({ communityId: 'c_bio' }, asBearer(k.all)))).toMatchObject({
      ok: false, status: 'PERMISSION_DENIED', reason: 'forbidden',
    });
  });
});
