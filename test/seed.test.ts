// Seed files end to end: applied at start (SEED_FILE) and again through applySeed, observed over
// real HTTP (GET /v1/me) and, where HTTP cannot see it, through the operator's gRPC calls.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applySeed } from '../deploy/admin/apply-seed.js';
import { SeedError, type SeedInput } from '../deploy/admin/seed-schema.js';
import { checkSecret } from '../services/identity/api-key-secret.js';
import { plans } from '../services/kit/enums.js';
import { callAs } from '../services/kit/grpc/client.js';
import { readRemoteError } from '../services/kit/grpc/errors.js';
import { bearer, request } from './helpers/http.js';
import { liveKey, testKey } from './helpers/keys.js';
import { storeNames } from './helpers/stores.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const secrets = {
  free: liveKey(),
  trial: liveKey(),
  paid: testKey(),
  communityAdmin: liveKey(),
  communityMember: liveKey(),
  orgOwner: liveKey(),
  orgMember: liveKey(),
  orgAdmin: liveKey(),
  communityOwnerMember: liveKey(),
  communityOwner: liveKey(),
  orgKey: liveKey(),
};

const seed: SeedInput = {
  users: [
    { id: 'u_free', name: 'Free', plan: 'free' },
    { id: 'u_trial', name: 'Trial', plan: 'trial' },
    { id: 'u_paid', email: 'paid@example.org', name: 'Paid', plan: 'paid' },
    { id: 'u_cadmin', name: 'Community Admin' }, // plan defaults to free
    { id: 'u_cmember', name: 'Community Member', plan: 'free' },
    { id: 'u_orgowner', name: 'Org Owner', plan: 'free' },
    { id: 'u_orgmember', name: 'Org Member', plan: 'free' },
    { id: 'u_cowner', name: 'Community Owner', plan: 'free' },
    { id: 'u_orgadmin', name: 'Org Admin', plan: 'free' },
    { id: 'u_cownermember', name: 'Owner Member', plan: 'trial' },
  ],
  organizations: [
    {
      id: 'o_acme',
      name: 'Acme',
      members: [
        { user: 'u_orgowner', role: 'owner' },
        { user: 'u_orgmember', role: 'member' },
        { user: 'u_orgadmin', role: 'admin' },
      ],
    },
  ],
  communities: [
    { id: 'c_acme', name: 'Acme community', owner: { organization: 'o_acme' } },
    { id: 'c_direct', name: 'Directly owned', owner: { user: 'u_cowner' } },
    { id: 'c_club', name: 'Club', owner: { user: 'u_paid' } },
  ],
  profiles: [
    { id: 'p_cadmin', user: 'u_cadmin', name: 'Community Admin' },
    { id: 'p_cmember', user: 'u_cmember', name: 'Community Member' },
    { id: 'p_cownermember', user: 'u_cownermember', name: 'Owner Member' },
    { id: 'p_unclaimed', name: 'Nobody Yet' },
  ],
  memberships: [
    { community: 'c_club', profile: 'p_cadmin', role: 'admin' },
    { community: 'c_club', profile: 'p_cmember', role: 'member' },
    { community: 'c_club', profile: 'p_cownermember', role: 'owner' },
    { community: 'c_club', profile: 'p_unclaimed', role: 'admin' },
  ],
  wallets: [{ owner: { user: 'u_paid' }, balance: 100 }],
  keys: [
    { id: 'k_free', secret: secrets.free, owner: { user: 'u_free' }, scopes: ['search:read'] },
    { id: 'k_trial', secret: secrets.trial, owner: { user: 'u_trial' }, scopes: ['search:read'] },
    { id: 'k_paid', secret: secrets.paid, owner: { user: 'u_paid' }, scopes: ['search:read', 'profile:read'] },
    { id: 'k_cadmin', secret: secrets.communityAdmin, owner: { user: 'u_cadmin' }, scopes: ['search:read'] },
    { id: 'k_cmember', secret: secrets.communityMember, owner: { user: 'u_cmember' }, scopes: ['search:read'] },
    { id: 'k_orgowner', secret: secrets.orgOwner, owner: { user: 'u_orgowner' }, scopes: ['search:read'] },
    { id: 'k_orgmember', secret: secrets.orgMember, owner: { user: 'u_orgmember' }, scopes: ['search:read'] },
    { id: 'k_orgadmin', secret: secrets.orgAdmin, owner: { user: 'u_orgadmin' }, scopes: ['search:read'] },
    { id: 'k_cownermember', secret: secrets.communityOwnerMember, owner: { user: 'u_cownermember' }, scopes: ['search:read'] },
    { id: 'k_cowner', secret: secrets.communityOwner, owner: { user: 'u_cowner' }, scopes: ['search:read'] },
    { id: 'k_org', secret: secrets.orgKey, owner: { organization: 'o_acme' }, scopes: ['profile:read'] },
  ],
};

describe.each(storeNames())('seed files on %s', (store) => {
  let sys: TestSystem;
  const operator = () => callAs(sys.signer, { kind: 'operator', actor: 'test' }, undefined, 10_000);
  const me = (secret: string) => request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(secret) });
  const tierOf = async (secret: string) => {
    const res = await me(secret);
    expect(res.status).toBe(200);
    return res.body.key.rate_tier as string;
  };
  /** Whether identity knows the user (asked as the operator). */
  const userExists = async (userId: string) => {
    try {
      await sys.clients.identity.getUser({ userId }, await operator());
      return true;
    } catch (error) {
      if (readRemoteError(error)?.code === 'not_found') return false;
      throw error;
    }
  };

  beforeAll(async () => {
    sys = await startTestSystem({ store, seed });
  });
  afterAll(async () => sys?.stop());

  it('uses a seed key secret verbatim and shows the seeded owner', async () => {
    const res = await me(secrets.paid);
    expect(res.status).toBe(200);
    expect(res.body.key).toMatchObject({ id: 'k_paid', prefix: secrets.paid.slice(0, 15), environment: 'test', kind: 'personal' });
    expect(res.body.owner).toEqual({ type: 'user', id: 'u_paid', name: 'Paid' });
    expect(res.body.scopes).toEqual(['search:read', 'profile:read']);
    // keys seeded with a secret are not reported as minted
    expect(sys.mintedKeys).toEqual({});
  });

  it('decides each key tier from its owner at seed time', async () => {
    expect(await tierOf(secrets.free), 'free user, no standing').toBe('restricted');
    expect(await tierOf(secrets.trial), 'trial is not a paid plan').toBe('restricted');
    expect(await tierOf(secrets.paid), 'paid plan').toBe('standard');
    expect(await tierOf(secrets.communityAdmin), 'admin member of a community via a claimed profile').toBe('standard');
    expect(await tierOf(secrets.communityMember), 'a plain member does not administer').toBe('restricted');
    expect(await tierOf(secrets.orgOwner), 'owner of an organization that owns a community').toBe('standard');
    expect(await tierOf(secrets.orgMember), 'a plain organization member does not manage it').toBe('restricted');
    expect(await tierOf(secrets.orgAdmin), 'admin of an organization that owns a community').toBe('standard');
    expect(await tierOf(secrets.communityOwnerMember), 'trial user with an owner membership').toBe('standard');
    expect(await tierOf(secrets.communityOwner), 'direct owner of a community').toBe('standard');
  });

  it('makes an organization-owned seed key a legacy organization key', async () => {
    const res = await me(secrets.orgKey);
    expect(res.status).toBe(200);
    expect(res.body.key).toMatchObject({ id: 'k_org', kind: 'organization', rate_tier: 'standard' });
    expect(res.body.owner).toEqual({ type: 'organization', id: 'o_acme', name: 'Acme' });
  });

  it('changes nothing observable when the same seed is applied again', async () => {
    const before = await me(secrets.paid);
    expect(before.body.credit_balance).toBe(100);

    expect(await applySeed(sys.clients, sys.signer, seed)).toEqual({ keys: {} });

    const after = await me(secrets.paid);
    expect(after.status).toBe(200);
    expect(after.body.credit_balance).toBe(100); // set, not added again
    expect(after.body.key).toEqual({ ...before.body.key });
    expect(await tierOf(secrets.free)).toBe('restricted');
    expect(await tierOf(secrets.communityAdmin)).toBe('standard');
    expect((await me(secrets.orgKey)).body.key.kind).toBe('organization');
  });

  it('keeps an existing key tier after a plan upgrade; a key minted afterwards is standard', async () => {
    const upgraded = await sys.clients.identity.setUserPlan({ userId: 'u_free', plan: plans.toEnum('paid') }, await operator());
    expect(upgraded.user?.plan).toBe(plans.toEnum('paid'));

    expect(await tierOf(secrets.free)).toBe('restricted');

    const minted = await sys.clients.identity.mintKey({ userId: 'u_free', scopes: ['search:read'] }, await operator());
    expect(checkSecret(minted.secret)).toBe('live');
    expect(minted.key?.id).not.toBe('k_free');
    const res = await me(minted.secret);
    expect(res.status).toBe(200);
    expect(res.body.key).toMatchObject({ id: minted.key!.id, rate_tier: 'standard' });
    expect(res.body.owner).toMatchObject({ type: 'user', id: 'u_free' });
    // the old key is untouched
    expect(await tierOf(secrets.free)).toBe('restricted');
  });

  it('grants a wallet its seed balance through the ledger: 100 seeded, 250 after re-seeding with 250', async () => {
    expect((await me(secrets.paid)).body.credit_balance).toBe(100);
    await applySeed(sys.clients, sys.signer, { wallets: [{ owner: { user: 'u_paid' }, balance: 250 }] });
    expect((await me(secrets.paid)).body.credit_balance).toBe(250);
    // the same balance again posts nothing new
    await applySeed(sys.clients, sys.signer, { wallets: [{ owner: { user: 'u_paid' }, balance: 250 }] });
    expect((await me(secrets.paid)).body.credit_balance).toBe(250);
  });

  it('mints a seed key without a secret once, returning its secret only the first time', async () => {
    const doc: SeedInput = { keys: [{ id: 'k_generated', owner: { user: 'u_trial' }, scopes: ['profile:read'], environment: 'test' }] };
    const first = await applySeed(sys.clients, sys.signer, doc);
    expect(Object.keys(first.keys)).toEqual(['k_generated']);
    const secret = first.keys.k_generated!;
    expect(secret).toMatch(/^svc_test_[0-9A-Za-z]{49}$/);
    expect(checkSecret(secret)).toBe('test');

    const res = await me(secret);
    expect(res.status).toBe(200);
    expect(res.body.key).toMatchObject({ id: 'k_generated', environment: 'test', rate_tier: 'restricted' });
    expect(res.body.scopes).toEqual(['profile:read']);

    const again = await applySeed(sys.clients, sys.signer, doc);
    expect(again).toEqual({ keys: {} });
    expect((await me(secret)).status).toBe(200);
  });

  it('refuses to change an existing key secret or owner by re-seeding its id', async () => {
    const otherSecret = liveKey();
    const changedSecret = await applySeed(sys.clients, sys.signer, {
      keys: [{ id: 'k_paid', secret: otherSecret, owner: { user: 'u_paid' }, scopes: ['search:read'] }],
    }).catch((e: unknown) => e);
    expect(changedSecret).toBeInstanceOf(SeedError);
    expect((changedSecret as SeedError).message).toContain('k_paid already exists');
    const changedOwner = await applySeed(sys.clients, sys.signer, {
      keys: [{ id: 'k_paid', secret: secrets.paid, owner: { user: 'u_trial' }, scopes: ['search:read'] }],
    }).catch((e: unknown) => e);
    expect(changedOwner).toBeInstanceOf(SeedError);
    expect((await me(otherSecret)).status).toBe(401);
    const res = await me(secrets.paid);
    expect(res.status).toBe(200);
    expect(res.body.owner.id).toBe('u_paid');
    expect(res.body.scopes).toEqual(['search:read', 'profile:read']);
  });

  it('refuses a schema-invalid seed listing every problem, writing nothing', async () => {
    const ghostKey = liveKey();
    const bad = {
      users: [{ id: 'u_ghost', name: 'Ghost' }],
      wallets: [{ owner: { user: 'u_paid' }, balance: 999 }],
      keys: [
        { id: 'k_ghost', secret: ghostKey, owner: { user: 'u_ghost' }, scopes: ['search:read'] },
        { id: 'k_badtype', owner: { user: 'u_free' }, scopes: [42] },
      ],
      bogus: true,
    };
    const error = await applySeed(sys.clients, sys.signer, bad).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SeedError);
    const problems = (error as SeedError).problems;
    expect(problems.length).toBeGreaterThanOrEqual(2);
    expect(problems.some((p) => p.includes('bogus'))).toBe(true);
    expect(problems.some((p) => p.startsWith('keys.1.scopes.0'))).toBe(true);
    expect((error as SeedError).message).toContain('bogus');

    expect(await userExists('u_ghost')).toBe(false);
    expect((await me(ghostKey)).status).toBe(401);
    expect((await me(secrets.paid)).body.credit_balance).toBe(250);
  });

  it('refuses a seed key whose secret has a wrong checksum', async () => {
    const good = liveKey();
    const broken = good.slice(0, -1) + (good.endsWith('A') ? 'B' : 'A');
    const error = await applySeed(sys.clients, sys.signer, {
      keys: [{ id: 'k_broken', secret: broken, owner: { user: 'u_free' }, scopes: ['search:read'] }],
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SeedError);
    expect((error as SeedError).problems).toEqual([expect.stringMatching(/^invalid_request: .*well-formed/)]);
    const listed = await sys.clients.identity.listKeys({ userId: 'u_free', pageSize: 200 }, await operator());
    expect(listed.keys.map((k) => k.id)).not.toContain('k_broken');
  });

  it('refuses a seed key with an unknown scope, naming it', async () => {
    const secret = liveKey();
    const error = await applySeed(sys.clients, sys.signer, {
      keys: [{ id: 'k_admin', secret, owner: { user: 'u_free' }, scopes: ['search:read', 'admin:all'] }],
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SeedError);
    expect((error as SeedError).message).toContain('admin:all');
    expect((await me(secret)).status).toBe(401);
  });

  it('refuses a key of an unknown user, naming the user; fixing the file and applying again completes it', async () => {
    const secret = liveKey();
    const doc: SeedInput = {
      users: [{ id: 'u_partial', name: 'Partial' }],
      keys: [{ id: 'k_orphan', secret, owner: { user: 'u_nobody' }, scopes: ['search:read'] }],
    };
    const error = await applySeed(sys.clients, sys.signer, doc).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SeedError);
    expect((error as SeedError).message).toContain('unknown user u_nobody');
    expect((await me(secret)).status).toBe(401);
    // Seed application is an idempotent sequence of upserts, not one transaction: the users before
    // the bad key may already be written (u_partial is, today). Re-applying a fixed file converges.
    const fixed: SeedInput = { ...doc, users: [...doc.users!, { id: 'u_nobody', name: 'Somebody' }] };
    expect(await applySeed(sys.clients, sys.signer, fixed)).toEqual({ keys: {} });
    expect(await userExists('u_partial')).toBe(true);
    const res = await me(secret);
    expect(res.status).toBe(200);
    expect(res.body.owner).toEqual({ type: 'user', id: 'u_nobody', name: 'Somebody' });
  });

  it('never un-archives a community, even from a file that changes its record; the other changes apply', async () => {
    await sys.clients.communities.archiveCommunity({ communityId: 'c_direct', archived: true }, await operator());
    await applySeed(sys.clients, sys.signer, { communities: [{ id: 'c_direct', name: 'Directly owned, renamed', owner: { user: 'u_cowner' } }] });
    const community = (await sys.clients.communities.getCommunity({ communityId: 'c_direct' }, await operator())).community!;
    expect(community).toMatchObject({ name: 'Directly owned, renamed', archived: true });
  });
});
