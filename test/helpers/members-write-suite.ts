// The member-write suites' shared setup: keys, a seed of communities with and without writes
// allowed, and per store a running system with the requests and operator reads their tests make.
import { afterAll, beforeAll } from 'vitest';
import type { SeedInput } from '../../deploy/admin/seed-schema.js';
import { orcidCheckCharacter } from '../../services/communities/normalize.js';
import { callAs, type CallOptions } from '../../services/kit/grpc/client.js';
import { readRemoteError } from '../../services/kit/grpc/errors.js';
import { bearer, request } from './http.js';
import { liveKey } from './keys.js';
import { startTestSystem, type TestSystem } from './test-system.js';
import type { StoreName } from './stores.js';

/** A valid ORCID iD from 15 digits (the check character computed). */
export const orcid = (digits15: string) => {
  const id = digits15 + orcidCheckCharacter(digits15);
  return `${id.slice(0, 4)}-${id.slice(4, 8)}-${id.slice(8, 12)}-${id.slice(12)}`;
};

export const k = {
  manager: liveKey(), cadmin: liveKey(), member: liveKey(), narrow: liveKey(), legacy: liveKey(),
  read: liveKey(), jit: liveKey(), orgjit: liveKey(), closed: liveKey(),
};

const WRITE = ['member:write'];
export const rate = { requested_rate: 6000 };

export const seed: SeedInput = {
  users: [
    { id: 'u_manager', email: 'manager@example.org', name: 'Manager' },
    { id: 'u_cadmin', email: 'cadmin@example.org', name: 'Community Admin' },
    { id: 'u_member', email: 'member@example.org', name: 'Member' },
    { id: 'u_claimed', email: 'claimed@example.org', name: 'Claimed Person' },
    { id: 'u_jit', email: 'jit@example.org', name: 'JIT Owner', jit_consent: true },
    { id: 'u_closed', email: 'closed@example.org', name: 'Closed Owner' },
    { id: 'u_orgjit', email: 'orgjit@example.org', name: 'JIT Org Admin' },
  ],
  organizations: [
    { id: 'o_lab', name: 'Lab', members: [{ user: 'u_manager', role: 'admin' }] },
    { id: 'o_other', name: 'Other' },
    { id: 'o_jit', name: 'JIT Org', jit_consent: true, members: [{ user: 'u_orgjit', role: 'owner' }] },
  ],
  communities: [
    { id: 'c_bio', name: 'Biology', owner: { organization: 'o_lab' }, api_writes: true },
    { id: 'c_chem', name: 'Chemistry', owner: { organization: 'o_lab' }, api_writes: true },
    { id: 'c_old', name: 'Old', owner: { organization: 'o_lab' }, archived: true, api_writes: true },
    { id: 'c_foreign', name: 'Foreign', owner: { organization: 'o_other' }, api_writes: true },
    { id: 'c_jit', name: 'JIT', owner: { user: 'u_jit' } },
    { id: 'c_orgjit', name: 'Org JIT', owner: { organization: 'o_jit' } },
    { id: 'c_closed', name: 'Closed', owner: { user: 'u_closed' } },
  ],
  profiles: [
    { id: 'p_cadmin', user: 'u_cadmin', name: 'Community Admin' },
    { id: 'p_member', user: 'u_member', name: 'Member' },
    { id: 'p_claimed', user: 'u_claimed', name: 'Claimed Person', email: 'Claimed@Example.org', public: true },
    { id: 'p_seeded', name: 'Seeded Placeholder', email: 'seeded@example.org' },
  ],
  memberships: [
    { community: 'c_bio', profile: 'p_cadmin', role: 'admin' },
    { community: 'c_bio', profile: 'p_member', role: 'member' },
    { community: 'c_bio', profile: 'p_claimed', role: 'member' },
    { community: 'c_chem', profile: 'p_claimed', role: 'member' },
    { community: 'c_bio', profile: 'p_seeded', role: 'member' },
  ],
  keys: [
    { id: 'k_manager', secret: k.manager, owner: { user: 'u_manager' }, scopes: WRITE, ...rate },
    { id: 'k_cadmin', secret: k.cadmin, owner: { user: 'u_cadmin' }, scopes: WRITE, ...rate },
    { id: 'k_member', secret: k.member, owner: { user: 'u_member' }, scopes: WRITE },
    { id: 'k_narrow', secret: k.narrow, owner: { user: 'u_manager' }, scopes: WRITE, allowlist: ['c_chem'], ...rate },
    { id: 'k_legacy', secret: k.legacy, owner: { organization: 'o_lab' }, scopes: WRITE, ...rate },
    { id: 'k_read', secret: k.read, owner: { user: 'u_manager' }, scopes: ['profile:read'], ...rate },
    { id: 'k_jit', secret: k.jit, owner: { user: 'u_jit' }, scopes: WRITE, ...rate },
    { id: 'k_orgjit', secret: k.orgjit, owner: { user: 'u_orgjit' }, scopes: WRITE, ...rate },
    { id: 'k_closed', secret: k.closed, owner: { user: 'u_closed' }, scopes: WRITE, ...rate },
  ],
};


/** One running system per store for a describe block; state is read through the operator's own reads. */
export function membersWriteSuite(store: StoreName) {
  let sys: TestSystem;
  let operator: CallOptions;
  let service: CallOptions;
  beforeAll(async () => {
    sys = await startTestSystem({ store, seed });
    operator = await callAs(sys.signer, { kind: 'operator', actor: 'test' }, undefined, 10_000);
    service = await callAs(sys.signer, { kind: 'service', service: 'test' }, undefined, 10_000);
  });
  afterAll(async () => sys?.stop());

  const add = (secret: string, community: string, body: unknown, headers: Record<string, string> = {}) =>
    request(sys.restUrl, 'POST', `/v1/communities/${community}/members`, { headers: { ...bearer(secret), ...headers }, body });
  const erase = (secret: string, community: string, profile: string) =>
    request(sys.restUrl, 'DELETE', `/v1/communities/${community}/members/${profile}`, { headers: bearer(secret) });
  const count = async (community: string) => (await sys.clients.communities.countMembers({ communityId: community }, operator)).count;
  const membership = (community: string, profile: string) =>
    sys.clients.communities.getMembership({ communityId: community, profileId: profile }, operator).then(
      (r) => r.membership!,
      (error) => {
        if (readRemoteError(error)?.code === 'not_found') return undefined;
        throw error;
      },
    );
  const profile = (id: string) =>
    sys.clients.communities.getProfile({ profileId: id }, operator).then(
      (r) => r.profile!,
      (error) => {
        if (readRemoteError(error)?.code === 'not_found') return undefined;
        throw error;
      },
    );
  const user = (id: string) =>
    sys.clients.identity.getUser({ userId: id }, operator).then(
      (r) => r.user!,
      (error) => {
        if (readRemoteError(error)?.code === 'not_found') return undefined;
        throw error;
      },
    );
  async function asCaller(secret: string): Promise<CallOptions> {
    const edge = await callAs(sys.signer, { kind: 'edge' }, 'r', 10_000);
    const { caller } = await sys.clients.identity.authenticate({ apiKey: secret, accessToken: '' }, edge);
    return callAs(sys.signer, { kind: 'caller', caller: caller! }, 'r', 10_000);
  }

  return { system: () => sys, operator: () => operator, service: () => service, add, erase, count, membership, profile, user, asCaller };
}
