// Reach rules, computed live, through the communities service as each caller (keys authenticated
// by identity exactly as the edge does).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Access } from '../proto/gen/expertnet/communities/v1/communities_service.js';
import { Role } from '../proto/gen/expertnet/common/v1/common.js';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { callAs } from '../services/kit/grpc/client.js';
import { readRemoteError } from '../services/kit/grpc/errors.js';
import { liveKey } from './helpers/keys.js';
import { storeNames } from './helpers/stores.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const k = { member: liveKey(), manager: liveKey(), admin: liveKey(), narrowed: liveKey(), legacy: liveKey(), outsider: liveKey() };

const seed: SeedInput = {
  users: ['u_member', 'u_manager', 'u_admin', 'u_outsider'].map((id) => ({ id, email: `${id}@example.org`, name: id })),
  organizations: [
    { id: 'o_lab', name: 'Lab', members: [{ user: 'u_manager', role: 'admin' }, { user: 'u_member', role: 'member' }] },
    { id: 'o_other', name: 'Other' },
  ],
  communities: [
    { id: 'c_bio', name: 'Biology', owner: { organization: 'o_lab' } },
    { id: 'c_chem', name: 'Chemistry', owner: { organization: 'o_other' } },
    { id: 'c_old', name: 'Old', owner: { organization: 'o_lab' }, archived: true },
    { id: 'c_own', name: 'Own', owner: { user: 'u_admin' } },
  ],
  profiles: [
    { id: 'p_member', user: 'u_member', name: 'Member' },
    { id: 'p_admin', user: 'u_admin', name: 'Admin' },
  ],
  memberships: [
    { community: 'c_bio', profile: 'p_member', role: 'member' },
    { community: 'c_chem', profile: 'p_member', role: 'member' },
    { community: 'c_old', profile: 'p_member', role: 'member' },
    { community: 'c_chem', profile: 'p_admin', role: 'admin' },
  ],
  keys: [
    { id: 'k_member', secret: k.member, owner: { user: 'u_member' }, scopes: ['profile:read'] },
    { id: 'k_manager', secret: k.manager, owner: { user: 'u_manager' }, scopes: ['profile:read'] },
    { id: 'k_admin', secret: k.admin, owner: { user: 'u_admin' }, scopes: ['profile:read'] },
    { id: 'k_narrowed', secret: k.narrowed, owner: { user: 'u_member' }, scopes: ['profile:read'], allowlist: ['c_chem', 'c_own'] },
    { id: 'k_legacy', secret: k.legacy, owner: { organization: 'o_lab' }, scopes: ['profile:read'] },
    { id: 'k_outsider', secret: k.outsider, owner: { user: 'u_outsider' }, scopes: ['profile:read'] },
  ],
};

describe.each(storeNames())('reach on %s', (store) => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem({ store, seed });
  });
  afterAll(async () => sys?.stop());

  async function authenticate(secret: string) {
    const { caller } = await sys.clients.identity.authenticate({ apiKey: secret, accessToken: '' }, await callAs(sys.signer, { kind: 'edge' }, 'r', 5000));
    return caller!;
  }

  async function reach(secret: string): Promise<{ read: string[]; write: string[] }> {
    const as = await callAs(sys.signer, { kind: 'caller', caller: await authenticate(secret) }, 'r', 5000);
    const [read, write] = await Promise.all([
      sys.clients.communities.getReach({ access: Access.ACCESS_READ }, as),
      sys.clients.communities.getReach({ access: Access.ACCESS_WRITE }, as),
    ]);
    return { read: read.communityIds, write: write.communityIds };
  }

  it('a plain member reads every non-archived community it belongs to, writes none', async () => {
    expect(await reach(k.member)).toEqual({ read: ['c_bio', 'c_chem'], write: [] });
  });

  it('an organization admin reads and writes its organization’s communities without being a member', async () => {
    expect(await reach(k.manager)).toEqual({ read: ['c_bio'], write: ['c_bio'] });
  });

  it('a community admin and a direct owner write their communities', async () => {
    expect(await reach(k.admin)).toEqual({ read: ['c_chem', 'c_own'], write: ['c_chem', 'c_own'] });
  });

  it('an allowlist only narrows: listed communities outside reach stay out', async () => {
    expect(await reach(k.narrowed)).toEqual({ read: ['c_chem'], write: [] });
  });

  it('a legacy organization key acts on ownership only', async () => {
    expect(await reach(k.legacy)).toEqual({ read: ['c_bio'], write: ['c_bio'] });
  });

  it('an outsider reaches nothing', async () => {
    expect(await reach(k.outsider)).toEqual({ read: [], write: [] });
  });

  it('starts from the organizations the user behind a personal key or an access token manages, read by identity with the credential', async () => {
    expect((await authenticate(k.manager)).managedOrganizations).toEqual({ organizationIds: ['o_lab'] });
    expect((await authenticate(k.member)).managedOrganizations).toEqual({ organizationIds: [] });
    expect((await authenticate(k.legacy)).managedOrganizations).toBeUndefined();
    const operator = await callAs(sys.signer, { kind: 'operator', actor: 'test' }, undefined, 5000);
    const { accessToken } = await sys.clients.identity.issueAccessToken({ userId: 'u_manager', scopes: ['profile:read'], clientId: 'reach-test', ttlSeconds: 300, requestedRate: 0 }, operator);
    const { caller } = await sys.clients.identity.authenticate({ apiKey: '', accessToken }, await callAs(sys.signer, { kind: 'edge' }, 'r', 5000));
    expect(caller!.managedOrganizations).toEqual({ organizationIds: ['o_lab'] });
  });

  it('the roster reads, which check reach in their own statement, admit exactly the communities of the read reach', async () => {
    const communities = ['c_bio', 'c_chem', 'c_old', 'c_own', 'c_nowhere'];
    for (const [name, secret] of Object.entries(k)) {
      const { read } = await reach(secret);
      const as = await callAs(sys.signer, { kind: 'caller', caller: await authenticate(secret) }, 'r', 5000);
      for (const communityId of communities) {
        const admitted = await sys.clients.communities.listMembers({ communityId, pageSize: 1, pageToken: '' }, as).then(() => true, () => false);
        const member = await sys.clients.communities.getMember({ communityId, profileId: 'p_member' }, as).then(
          () => 'read',
          (error: unknown) => readRemoteError(error)?.code,
        );
        expect({ name, communityId, admitted, member: member !== 'forbidden' }).toEqual({ name, communityId, admitted: read.includes(communityId), member: read.includes(communityId) });
      }
    }
  });

  it('is computed live: an organization admin demoted to member loses its organization’s communities at once', async () => {
    const operator = await callAs(sys.signer, { kind: 'operator', actor: 'test' }, undefined, 5000);
    const lab = (role: Role) => ({
      organization: { id: 'o_lab', name: 'Lab', jitConsent: false, members: [{ userId: 'u_manager', role, joinedAt: '' }, { userId: 'u_member', role: Role.ROLE_MEMBER, joinedAt: '' }] },
    });
    await sys.clients.identity.upsertOrganization(lab(Role.ROLE_MEMBER), operator);
    expect(await reach(k.manager)).toEqual({ read: [], write: [] });
    await sys.clients.identity.upsertOrganization(lab(Role.ROLE_OWNER), operator);
    expect(await reach(k.manager)).toEqual({ read: ['c_bio'], write: ['c_bio'] });
    await sys.clients.identity.upsertOrganization(lab(Role.ROLE_ADMIN), operator);
  });

  it('is computed live: archiving removes a community at once, the membership survives', async () => {
    const operator = await callAs(sys.signer, { kind: 'operator', actor: 'test' }, undefined, 5000);
    await sys.clients.communities.archiveCommunity({ communityId: 'c_chem', archived: true }, operator);
    expect((await reach(k.member)).read).toEqual(['c_bio']);
    await sys.clients.communities.archiveCommunity({ communityId: 'c_chem', archived: false }, operator);
    expect((await reach(k.member)).read).toEqual(['c_bio', 'c_chem']);
  });
});
