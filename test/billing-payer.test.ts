// Payer resolution (docs/BILLING.md, "Payer resolution"), one test per rule, through the running
// system: each key is authenticated by identity exactly as the edge does, then ResolvePayer is
// called over gRPC as that caller; the operator settings are made over gRPC as the operator.
//
// The billing service is the real one (createBillingService on its own gRPC server, calling the
// real identity and communities services), started beside the system with a store of its own, as a
// split deployment runs it: that lets the tests count delegated charges with recordDelegatedCharge,
// as metering does, on the embedded store too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PayerSource } from '../proto/gen/expertnet/billing/v1/billing_service.js';
import type { Caller, OwnerRef } from '../proto/gen/expertnet/common/v1/common.js';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { createBillingService } from '../services/billing/billing.service.js';
import { recordDelegatedCharge } from '../services/billing/funding-consumption.js';
import { PAYER_SOURCES } from '../services/billing/resolve-payer.js';
import type { Database } from '../services/kit/db/database.js';
import { ownerTypes } from '../services/kit/enums.js';
import { TokenVerifier } from '../services/kit/grpc/caller-token.js';
import { callAs, type ServiceClients } from '../services/kit/grpc/client.js';
import { readRemoteError } from '../services/kit/grpc/errors.js';
import type { Principal } from '../services/kit/grpc/principal.js';
import { startGrpcServer, type RunningGrpcServer } from '../services/kit/grpc/server.js';
import { createLogger } from '../services/kit/logger.js';
import { generateSecrets } from '../services/kit/secrets.js';
import { liveKey, testKey } from './helpers/keys.js';
import { openTestDatabase, storeNames, type StoreName } from './helpers/stores.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';
import { splitTls } from './helpers/split-tls.js';

const k = {
  ada: liveKey(), ada2: testKey(), bob: liveKey(), carol: liveKey(), dan: liveKey(), dan2: testKey(),
  eve: liveKey(), legacy: liveKey(),
};

const user = (id: string, name: string) => ({ id, email: `${id}@example.org`, name });
const org = (id: string) => ({ organization: id });

const seed: SeedInput = {
  users: [
    user('u_ada', 'Ada Lovelace'), user('u_bob', 'Bob Boole'), user('u_carol', 'Carol Cray'), user('u_dan', 'Dan Dijkstra'),
    user('u_eve', 'Eve Euler'),
  ],
  organizations: [
    {
      id: 'o_lab', name: 'Lab',
      members: [
        { user: 'u_bob', role: 'member', joined_at: '2021-01-01T00:00:00Z' },
        { user: 'u_carol', role: 'member', joined_at: '2022-01-01T00:00:00Z' },
      ],
    },
    { id: 'o_wide', name: 'Wide Org' },
    { id: 'o_legacy', name: 'Legacy Org' },
    // Dan's organizations: by id o_alpha comes first, by join time o_zulu does; o_broke joined
    // earliest of all but has nothing to spend.
    { id: 'o_alpha', name: 'Alpha', members: [{ user: 'u_dan', role: 'member', joined_at: '2023-03-01T00:00:00Z' }] },
    { id: 'o_zulu', name: 'Zulu', members: [{ user: 'u_dan', role: 'admin', joined_at: '2020-06-01T00:00:00Z' }] },
    { id: 'o_broke', name: 'Broke', members: [{ user: 'u_dan', role: 'member', joined_at: '2019-01-01T00:00:00Z' }] },
    { id: 'o_poor', name: 'Poor', members: [{ user: 'u_eve', role: 'member', joined_at: '2020-01-01T00:00:00Z' }] },
  ],
  communities: [
    { id: 'c_ada', name: 'Ada’s circle', owner: { user: 'u_ada' } },
    { id: 'c_lab', name: 'Lab', owner: org('o_lab') },
    { id: 'c_standing', name: 'Standing', owner: org('o_lab') },
    { id: 'c_budget', name: 'Budget', owner: org('o_lab') },
    { id: 'c_spent', name: 'Spent', owner: org('o_lab') },
    { id: 'c_plain', name: 'Plain', owner: org('o_lab') },
    { id: 'c_wide1', name: 'Wide one', owner: org('o_wide') },
    { id: 'c_wide2', name: 'Wide two', owner: org('o_wide') },
    { id: 'c_legacy', name: 'Legacy', owner: org('o_legacy') },
  ],
  wallets: [
    { owner: { user: 'u_ada' }, balance: 10 },
    { owner: { user: 'u_carol' }, balance: 10 },
    { owner: { user: 'u_dan' }, balance: 0 },
    { owner: { user: 'u_eve' }, balance: -3 },
    { owner: org('o_lab'), balance: 100 },
    { owner: org('o_alpha'), balance: 50 },
    { owner: org('o_zulu'), balance: 20 },
    { owner: org('o_broke'), balance: 0 },
    { owner: org('o_poor'), balance: 0 },
    { owner: org('o_legacy'), balance: 0 },
  ],
  keys: [
    { id: 'k_ada', secret: k.ada, owner: { user: 'u_ada' }, scopes: ['profile:read'] },
    { id: 'k_ada2', secret: k.ada2, owner: { user: 'u_ada' }, scopes: ['profile:read'], allowlist: ['c_ada'] },
    { id: 'k_bob', secret: k.bob, owner: { user: 'u_bob' }, scopes: ['profile:read'] },
    { id: 'k_carol', secret: k.carol, owner: { user: 'u_carol' }, scopes: ['profile:read'] },
    { id: 'k_dan', secret: k.dan, owner: { user: 'u_dan' }, scopes: ['profile:read'] },
    { id: 'k_dan2', secret: k.dan2, owner: { user: 'u_dan' }, scopes: ['profile:read'], environment: 'test' },
    { id: 'k_eve', secret: k.eve, owner: { user: 'u_eve' }, scopes: ['profile:read'] },
    { id: 'k_legacy', secret: k.legacy, owner: org('o_legacy'), scopes: ['profile:read'] },
  ],
};

const sourceNames = new Map(Object.entries(PAYER_SOURCES).map(([name, value]) => [value, name]));

/** A resolved payer, compactly: `type:id`, its name and why. */
interface Payer {
  payer: string;
  name: string;
  source: string | undefined;
}

/** The system, with the billing service on a store the test can reach. */
async function startSystemWithBilling(store: StoreName): Promise<{ sys: TestSystem; billingDb: Database; stop(): Promise<void> }> {
  const secrets = generateSecrets();
  const billingStore = await openTestDatabase(store);
  const logger = createLogger('silent');
  let clients: ServiceClients | undefined;
  // The billing service's clients of the other services exist once the system has started.
  const lazyClients = new Proxy({} as ServiceClients, {
    get: (_t, name) => (clients as unknown as Record<string | symbol, unknown>)[name],
  });
  let server: RunningGrpcServer | undefined;
  try {
    const billing = createBillingService({ db: billingStore.db, clients: lazyClients, deadlineMs: 10_000, logger, enforcement: false });
    const tls = splitTls('billing', ['gateway', 'identity', 'communities', 'search', 'enrichment']);
    server = await startGrpcServer({
      address: '127.0.0.1:0', services: [billing.registration], verifier: new TokenVerifier(secrets), logger, tls: tls.serverTls,
    });
    const sys = await startTestSystem({
      store,
      seed,
      env: {
        API_KEY_PEPPER: secrets.apiKeyPepper,
        CALLER_TOKEN_PRIVATE_KEY: secrets.callerTokenPrivateKey,
        CALLER_TOKEN_PUBLIC_KEY: secrets.callerTokenPublicKey,
        OPERATOR_TOKEN_PRIVATE_KEY: secrets.operatorTokenPrivateKey,
        OPERATOR_TOKEN_PUBLIC_KEY: secrets.operatorTokenPublicKey,
        ...tls.systemEnv,
        BILLING_GRPC_ADDR: server.address,
      },
    });
    clients = sys.clients;
    const running = server;
    return {
      sys,
      billingDb: billingStore.db,
      async stop() {
        await sys.stop();
        await running.shutdown();
        await billingStore.close();
      },
    };
  } catch (error) {
    await server?.shutdown();
    await billingStore.close();
    throw error;
  }
}

describe.each(storeNames())('payer resolution on %s', (store) => {
  let sys: TestSystem;
  let billingDb: Database;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ sys, billingDb, stop } = await startSystemWithBilling(store));
  });
  afterAll(async () => stop?.());

  const as = (principal: Principal) => callAs(sys.signer, principal, 'req_payer_test', 10_000);
  const operator = () => as({ kind: 'operator', actor: 'test' });

  async function callerOf(secret: string): Promise<Caller> {
    const { caller } = await sys.clients.identity.authenticate({ apiKey: secret, accessToken: '' }, await as({ kind: 'edge' }));
    return caller!;
  }

  async function payer(secret: string, operation: string, communityId = ''): Promise<Payer> {
    const caller = await callerOf(secret);
    const res = await sys.clients.billing.resolvePayer({ operation, communityId, caller: undefined }, await as({ kind: 'caller', caller }));
    return {
      payer: `${ownerTypes.toName(res.payer!.type)}:${res.payer!.id}`,
      name: res.payerName,
      source: sourceNames.get(res.source),
    };
  }

  async function failure(promise: Promise<unknown>) {
    try {
      await promise;
    } catch (error) {
      const remote = readRemoteError(error);
      if (remote) return { code: remote.code, message: remote.message };
      throw error;
    }
    throw new Error('expected the call to fail');
  }

  const ref = (type: 'user' | 'organization', id: string): OwnerRef => ({ type: ownerTypes.toEnum(type), id });

  async function setFunding(organizationId: string, communityId: string, standingFunding: boolean, budget: number) {
    await sys.clients.billing.setOrganizationFunding(
      { organizationId, communityId, standingFunding, delegationBudgetPerMonth: budget },
      await operator(),
    );
  }

  async function setPreference(userId: string, wallet: OwnerRef | undefined) {
    await sys.clients.billing.setGlobalSearchPreference({ userId, wallet }, await operator());
  }

  it('a community enrichment run is charged to the target community’s billing owner', async () => {
    // Whoever starts it, whatever the tier, and even with funding settings in place.
    for (const tier of ['enrichment_quick', 'enrichment_standard', 'enrichment_deep']) {
      expect(await payer(k.bob, tier, 'c_lab')).toEqual({ payer: 'organization:o_lab', name: 'Lab', source: 'community_owner' });
    }
    expect(await payer(k.bob, 'enrichment_deep', 'c_ada')).toEqual({ payer: 'user:u_ada', name: 'Ada Lovelace', source: 'community_owner' });
    expect(await payer(k.ada, 'enrichment_quick', 'c_ada')).toEqual({ payer: 'user:u_ada', name: 'Ada Lovelace', source: 'community_owner' });
  });

  it('a search in the caller’s own (user-owned) community is charged to the caller', async () => {
    expect(await payer(k.ada, 'search', 'c_ada')).toEqual({ payer: 'user:u_ada', name: 'Ada Lovelace', source: 'caller' });
  });

  it('a search in another user’s community is charged to the caller, not to that user', async () => {
    expect(await payer(k.bob, 'search', 'c_ada')).toEqual({ payer: 'user:u_bob', name: 'Bob Boole', source: 'caller' });
  });

  it('an organization with standing funding for the community pays searches named to it', async () => {
    await setFunding('o_lab', 'c_standing', true, 0);
    expect(await payer(k.bob, 'search', 'c_standing')).toEqual({ payer: 'organization:o_lab', name: 'Lab', source: 'standing_funding' });
    // Standing funding has no limit: recorded delegated charges do not matter to it.
    await recordDelegatedCharge(billingDb, { organizationId: 'o_lab', communityId: 'c_standing', credits: 1_000 });
    expect((await payer(k.bob, 'search', 'c_standing')).source).toBe('standing_funding');
    // Another community of the same organization is not covered.
    expect((await payer(k.bob, 'search', 'c_plain')).payer).toBe('user:u_bob');
  });

  it('standing funding for all its communities covers each community the organization owns', async () => {
    await setFunding('o_wide', '', true, 0);
    expect(await payer(k.bob, 'search', 'c_wide1')).toEqual({ payer: 'organization:o_wide', name: 'Wide Org', source: 'standing_funding' });
    expect((await payer(k.carol, 'search', 'c_wide2')).payer).toBe('organization:o_wide');
    // A community's own setting wins over the organization-wide one, a setting of nothing included.
    await setFunding('o_wide', 'c_wide2', false, 0);
    expect(await payer(k.carol, 'search', 'c_wide2')).toEqual({ payer: 'user:u_carol', name: 'Carol Cray', source: 'caller' });
    expect((await payer(k.carol, 'search', 'c_wide1')).payer).toBe('organization:o_wide');
  });

  it('a delegation budget with room left this UTC month makes the organization pay', async () => {
    await setFunding('o_lab', 'c_budget', false, 10);
    expect(await payer(k.bob, 'search', 'c_budget')).toEqual({ payer: 'organization:o_lab', name: 'Lab', source: 'delegation_budget' });
    await recordDelegatedCharge(billingDb, { organizationId: 'o_lab', communityId: 'c_budget', credits: 9, reference: 'search:b1' });
    // Last month's charges and other communities' charges do not use this month's room.
    const lastMonth = new Date();
    lastMonth.setUTCDate(1);
    lastMonth.setUTCMonth(lastMonth.getUTCMonth() - 1);
    await recordDelegatedCharge(billingDb, { organizationId: 'o_lab', communityId: 'c_budget', credits: 50, at: lastMonth });
    await recordDelegatedCharge(billingDb, { organizationId: 'o_lab', communityId: 'c_plain', credits: 50 });
    expect((await payer(k.bob, 'search', 'c_budget')).source).toBe('delegation_budget');
  });

  it('a delegation budget used up this month leaves the charge to the caller', async () => {
    await setFunding('o_lab', 'c_spent', false, 5);
    expect((await payer(k.bob, 'search', 'c_spent')).source).toBe('delegation_budget');
    expect(await recordDelegatedCharge(billingDb, { organizationId: 'o_lab', communityId: 'c_spent', credits: 3, reference: 'search:s1' })).toBe(true);
    // The same charge reported twice counts once.
    expect(await recordDelegatedCharge(billingDb, { organizationId: 'o_lab', communityId: 'c_spent', credits: 3, reference: 'search:s1' })).toBe(false);
    expect((await payer(k.bob, 'search', 'c_spent')).source).toBe('delegation_budget');
    await recordDelegatedCharge(billingDb, { organizationId: 'o_lab', communityId: 'c_spent', credits: 2, reference: 'search:s2' });
    expect(await payer(k.bob, 'search', 'c_spent')).toEqual({ payer: 'user:u_bob', name: 'Bob Boole', source: 'caller' });
    // Raising the budget makes room again.
    await setFunding('o_lab', 'c_spent', false, 6);
    expect((await payer(k.bob, 'search', 'c_spent')).source).toBe('delegation_budget');
  });

  it('an organization’s community without funding leaves the charge to the caller', async () => {
    expect(await payer(k.bob, 'search', 'c_plain')).toEqual({ payer: 'user:u_bob', name: 'Bob Boole', source: 'caller' });
    expect(await payer(k.carol, 'enrichment_self', 'c_plain')).toEqual({ payer: 'user:u_carol', name: 'Carol Cray', source: 'caller' });
  });

  it('a self-enrich follows the community it names, and without one is the caller’s own', async () => {
    await setFunding('o_lab', 'c_standing', true, 0);
    expect(await payer(k.carol, 'enrichment_self', 'c_standing')).toEqual({ payer: 'organization:o_lab', name: 'Lab', source: 'standing_funding' });
    // The global-search preference is for searches only.
    await setPreference('u_carol', ref('organization', 'o_lab'));
    expect(await payer(k.carol, 'enrichment_self')).toEqual({ payer: 'user:u_carol', name: 'Carol Cray', source: 'caller' });
    await setPreference('u_carol', undefined);
  });

  it('a global search uses the caller’s saved preference first', async () => {
    // Carol has personal credits, but prefers the organization's wallet.
    await setPreference('u_carol', ref('organization', 'o_lab'));
    expect(await payer(k.carol, 'search')).toEqual({ payer: 'organization:o_lab', name: 'Lab', source: 'global_preference' });
    // Dan prefers his own (empty) wallet over his organizations' credits.
    await setPreference('u_dan', ref('user', 'u_dan'));
    expect(await payer(k.dan, 'search')).toEqual({ payer: 'user:u_dan', name: 'Dan Dijkstra', source: 'global_preference' });
    // Unset clears it.
    await setPreference('u_carol', undefined);
    await setPreference('u_dan', undefined);
    expect((await payer(k.carol, 'search')).source).toBe('caller');
    expect((await payer(k.dan, 'search')).source).toBe('earliest_organization');
  });

  it('a global search without a preference uses the personal wallet when it holds credits', async () => {
    expect(await payer(k.carol, 'search')).toEqual({ payer: 'user:u_carol', name: 'Carol Cray', source: 'caller' });
    expect(await payer(k.ada, 'search')).toEqual({ payer: 'user:u_ada', name: 'Ada Lovelace', source: 'caller' });
  });

  it('with an empty personal wallet, the earliest-joined organization with credits pays', async () => {
    // o_broke joined first but has nothing; o_zulu (2020) comes before o_alpha (2023) though both have credits.
    expect(await payer(k.dan, 'search')).toEqual({ payer: 'organization:o_zulu', name: 'Zulu', source: 'earliest_organization' });
  });

  it('when no wallet has credits, the personal wallet pays anyway (post-hoc, may go negative)', async () => {
    expect(await payer(k.eve, 'search')).toEqual({ payer: 'user:u_eve', name: 'Eve Euler', source: 'caller' });
  });

  it('depends on the person, not the key: two keys of one user resolve the same payer', async () => {
    for (const [operation, community] of [['search', ''], ['search', 'c_plain'], ['search', 'c_standing'], ['enrichment_self', ''], ['enrichment_deep', 'c_lab']] as const) {
      expect(await payer(k.dan2, operation, community)).toEqual(await payer(k.dan, operation, community));
    }
    expect(await payer(k.ada2, 'search')).toEqual(await payer(k.ada, 'search'));
    expect(await payer(k.ada2, 'search', 'c_ada')).toEqual(await payer(k.ada, 'search', 'c_ada'));
  });

  it('a legacy organization key’s global search is charged to its organization', async () => {
    expect(await payer(k.legacy, 'search')).toEqual({ payer: 'organization:o_legacy', name: 'Legacy Org', source: 'caller' });
    // Even with no credits in that wallet: it is never refused and never moved to someone else.
    expect((await payer(k.legacy, 'enrichment_self')).payer).toBe('organization:o_legacy');
  });

  it('a legacy organization key resolves operations on its community from the community: the organization', async () => {
    expect(await payer(k.legacy, 'search', 'c_legacy')).toEqual({ payer: 'organization:o_legacy', name: 'Legacy Org', source: 'caller' });
    expect(await payer(k.legacy, 'enrichment_standard', 'c_legacy')).toEqual({ payer: 'organization:o_legacy', name: 'Legacy Org', source: 'community_owner' });
    // On another organization's unfunded community it falls back to its own organization.
    expect((await payer(k.legacy, 'search', 'c_plain')).payer).toBe('organization:o_legacy');
  });

  it('a service asks on a caller’s behalf and gets the same answer as the caller itself', async () => {
    const caller = await callerOf(k.dan);
    const res = await sys.clients.billing.resolvePayer({ operation: 'search', communityId: '', caller }, await as({ kind: 'service', service: 'search' }));
    expect(res.payer).toEqual(ref('organization', 'o_zulu'));
    expect(res.source).toBe(PayerSource.PAYER_SOURCE_EARLIEST_ORGANIZATION);
  });

  it('refuses invalid inputs with invalid_request', async () => {
    const dan = await as({ kind: 'caller', caller: await callerOf(k.dan) });
    expect(await failure(sys.clients.billing.resolvePayer({ operation: 'teleport', communityId: '', caller: undefined }, dan)))
      .toMatchObject({ code: 'invalid_request', message: expect.stringContaining('unknown operation') });
    expect(await failure(sys.clients.billing.resolvePayer({ operation: 'enrichment_deep', communityId: '', caller: undefined }, dan)))
      .toMatchObject({ code: 'invalid_request', message: expect.stringContaining('community_id is required') });
    expect(await failure(sys.clients.billing.resolvePayer({ operation: 'search', communityId: 'c_nowhere', caller: undefined }, dan)))
      .toMatchObject({ code: 'not_found' });
    // A service must say whom it asks for; a caller may not ask for someone else.
    expect(await failure(sys.clients.billing.resolvePayer({ operation: 'search', communityId: '', caller: undefined }, await as({ kind: 'service', service: 'search' }))))
      .toMatchObject({ code: 'invalid_request', message: 'caller is required' });
    expect(await failure(sys.clients.billing.resolvePayer({ operation: 'search', communityId: '', caller: await callerOf(k.carol) }, dan)))
      .toMatchObject({ code: 'forbidden' });

    // Preferences: only the user's own wallet or an organization the user belongs to.
    const op = await operator();
    expect(await failure(sys.clients.billing.setGlobalSearchPreference({ userId: 'u_dan', wallet: ref('organization', 'o_lab') }, op)))
      .toMatchObject({ code: 'invalid_request', message: expect.stringContaining('an organization the user belongs to') });
    expect(await failure(sys.clients.billing.setGlobalSearchPreference({ userId: 'u_dan', wallet: ref('user', 'u_carol') }, op)))
      .toMatchObject({ code: 'invalid_request' });
    expect(await failure(sys.clients.billing.setGlobalSearchPreference({ userId: 'u_nobody', wallet: ref('user', 'u_nobody') }, op)))
      .toMatchObject({ code: 'invalid_request', message: 'unknown user u_nobody' });
    expect((await payer(k.dan, 'search')).source).toBe('earliest_organization');

    // Funding: a known organization, a community it owns, a budget of 0 or more.
    const funding = (organizationId: string, communityId: string, budget: number) =>
      failure(sys.clients.billing.setOrganizationFunding({ organizationId, communityId, standingFunding: false, delegationBudgetPerMonth: budget }, op));
    expect(await funding('o_nowhere', '', 5)).toMatchObject({ code: 'invalid_request', message: 'unknown organization o_nowhere' });
    expect(await funding('o_lab', 'c_wide1', 5)).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('not owned by') });
    expect(await funding('o_lab', 'c_ada', 5)).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('not owned by') });
    expect(await funding('o_lab', 'c_nowhere', 5)).toMatchObject({ code: 'invalid_request', message: 'unknown community c_nowhere' });
    expect(await funding('o_lab', 'c_plain', -1)).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('0 or more') });
    expect((await payer(k.bob, 'search', 'c_plain')).source).toBe('caller');
  });

  it('keeps the settings to the operator', async () => {
    const dan = await as({ kind: 'caller', caller: await callerOf(k.dan) });
    const error = await failure(sys.clients.billing.setGlobalSearchPreference({ userId: 'u_dan', wallet: ref('user', 'u_dan') }, dan));
    expect(error.code).toBe('forbidden');
    expect(error.message).toContain('may not call');
  });
});
