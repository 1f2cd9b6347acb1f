// The roster suites' shared world: a seeded system (communities with members in a known order, keys
// of every kind of caller) started per store, and the requests and checks those suites make on it.
import pg from 'pg';
import { afterAll, beforeAll, expect } from 'vitest';
import { Role } from '../../proto/gen/expertnet/common/v1/common.js';
import type { SeedInput } from '../../deploy/admin/seed-schema.js';
import { callAs } from '../../services/kit/grpc/client.js';
import { bearer, request, type JsonResponse } from './http.js';
import { liveKey } from './keys.js';
import type { StoreName } from './stores.js';
import { startTestSystem, type TestSystem } from './test-system.js';

export const k = {
  manager: liveKey(), member: liveKey(), admin: liveKey(), allowOut: liveKey(), legacy: liveKey(),
  revoked: liveKey(), noScope: liveKey(), outsider: liveKey(), writer: liveKey(),
};

/** Hours after 2024-01-01T00:00:00Z. */
export const at = (hours: number) => new Date(Date.UTC(2024, 0, 1) + hours * 3_600_000).toISOString();

// c_bio's seven members in roster order: joined_at, then profile id (p_t1/p_t2 share a joined_at).
export const BIO_ORDER = ['p_admin', 'p_member', 'p_1', 'p_t1', 'p_t2', 'p_3', 'p_4'];
export const FLUX = Array.from({ length: 10 }, (_, i) => `p_f${String(i + 1).padStart(2, '0')}`);
// c_kept's members, read again and again while they change (roster-list.test.ts).
export const KEPT = ['p_k1', 'p_k2', 'p_k3'];

const rate = 6000; // every key standard tier at a high rate: these suites make many requests
const seed: SeedInput = {
  users: ['u_manager', 'u_member', 'u_admin', 'u_outsider'].map((id) => ({ id, email: `${id}@example.org`, name: id, plan: 'paid' as const })),
  organizations: [
    { id: 'o_lab', name: 'Lab', members: [{ user: 'u_manager', role: 'admin' }, { user: 'u_member', role: 'member' }] },
    { id: 'o_other', name: 'Other' },
  ],
  communities: [
    { id: 'c_bio', name: 'Biology', owner: { organization: 'o_lab' } },
    { id: 'c_chem', name: 'Chemistry', owner: { organization: 'o_other' } },
    { id: 'c_arch', name: 'To archive', owner: { organization: 'o_lab' } },
    { id: 'c_flux', name: 'Changing', owner: { organization: 'o_lab' }, api_writes: true },
    { id: 'c_kept', name: 'Read again', owner: { organization: 'o_lab' }, api_writes: true },
  ],
  profiles: [
    { id: 'p_member', user: 'u_member', name: 'Mia Member', headline: 'Ecologist', bio: 'Studies ponds.', organization: 'Lab',
      location: 'Bergen', email: 'mia@example.org', linkedin_url: 'https://www.linkedin.com/in/mia', orcid: '0000-0002-1825-0097',
      avatar_url: 'https://img.example.org/mia.png' },
    { id: 'p_admin', user: 'u_admin', name: 'Adam Admin' },
    ...['p_1', 'p_t1', 'p_t2', 'p_3', 'p_4'].map((id) => ({ id, name: `Placeholder ${id}` })),
    ...FLUX.map((id) => ({ id, name: `Flux ${id}` })),
    ...KEPT.map((id) => ({ id, name: `Kept ${id}`, headline: 'Botanist' })),
    { id: 'p_chem1', name: 'Chem One' },
    { id: 'p_outsider_profile', name: 'Never a member' },
  ],
  memberships: [
    { community: 'c_bio', profile: 'p_admin', role: 'admin', joined_at: at(0) },
    { community: 'c_bio', profile: 'p_member', role: 'member', joined_at: at(1) },
    { community: 'c_bio', profile: 'p_1', joined_at: at(2) },
    { community: 'c_bio', profile: 'p_t2', joined_at: at(3) },
    { community: 'c_bio', profile: 'p_t1', joined_at: at(3) },
    { community: 'c_bio', profile: 'p_3', joined_at: at(4) },
    { community: 'c_bio', profile: 'p_4', joined_at: at(5) },
    { community: 'c_chem', profile: 'p_member', joined_at: at(0) },
    { community: 'c_chem', profile: 'p_chem1', joined_at: at(1) },
    { community: 'c_arch', profile: 'p_member', joined_at: at(0) },
    ...FLUX.map((profile, i) => ({ community: 'c_flux', profile, joined_at: at(10 + i) })),
    ...KEPT.map((profile, i) => ({ community: 'c_kept', profile, joined_at: at(30 + i) })),
  ],
  keys: [
    { id: 'k_manager', secret: k.manager, owner: { user: 'u_manager' }, scopes: ['profile:read'], requested_rate: rate },
    { id: 'k_member', secret: k.member, owner: { user: 'u_member' }, scopes: ['profile:read'], requested_rate: rate },
    { id: 'k_admin', secret: k.admin, owner: { user: 'u_admin' }, scopes: ['profile:read'], requested_rate: rate },
    { id: 'k_allow_out', secret: k.allowOut, owner: { user: 'u_member' }, scopes: ['profile:read'], allowlist: ['c_chem'], requested_rate: rate },
    { id: 'k_legacy', secret: k.legacy, owner: { organization: 'o_lab' }, scopes: ['profile:read'], requested_rate: rate },
    { id: 'k_revoked', secret: k.revoked, owner: { user: 'u_member' }, scopes: ['profile:read'], requested_rate: rate },
    { id: 'k_no_scope', secret: k.noScope, owner: { user: 'u_member' }, scopes: ['search:read'], requested_rate: rate },
    { id: 'k_outsider', secret: k.outsider, owner: { user: 'u_outsider' }, scopes: ['profile:read'], requested_rate: rate },
    { id: 'k_writer', secret: k.writer, owner: { user: 'u_manager' }, scopes: ['profile:read', 'member:write'], requested_rate: rate },
  ],
};

/** The 4xx a caller must get: its status, error code, and the request id echoed from the header. */
export function expectError(res: JsonResponse, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.error.code).toBe(code);
  expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
}

/**
 * Starts the seeded system on `store` for the enclosing describe (stopped after it) and answers the
 * calls the roster suites make on it. `sql` is direct SQL on the PostgreSQL run only (PGlite in
 * memory lives inside the system).
 */
export function rosterSystem(store: StoreName) {
  let sys: TestSystem;
  let sql: pg.Client | undefined;

  beforeAll(async () => {
    sys = await startTestSystem({ store, seed });
    if (store === 'postgres') {
      sql = new pg.Client({ connectionString: sys.env.DATABASE_URL });
      await sql.connect();
    }
  });
  afterAll(async () => {
    await sql?.end();
    await sys?.stop();
  });

  const operator = () => callAs(sys.signer, { kind: 'operator', actor: 'roster-test' }, undefined, 5000);
  const get = (secret: string, path: string) => request(sys.restUrl, 'GET', path, { headers: bearer(secret) });
  const roster = (secret: string, community: string, query = '') => get(secret, `/v1/communities/${community}/members${query}`);
  const member = (secret: string, community: string, profile: string) => get(secret, `/v1/communities/${community}/members/${profile}`);

  /** Every page of a roster, following next_cursor; fails on a non-200. */
  async function allPages(secret: string, community: string, limit: number): Promise<string[][]> {
    const pages: string[][] = [];
    let after: string | null = null;
    do {
      const res: JsonResponse = await roster(secret, community, `?limit=${limit}${after ? `&after=${encodeURIComponent(after)}` : ''}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      pages.push(res.body.members.map((m: { profile_id: string }) => m.profile_id));
      after = res.body.next_cursor;
      expect(pages.length).toBeLessThan(50);
    } while (after !== null);
    return pages;
  }

  async function addMember(community: string, profileId: string, joinedAt: string) {
    const options = await operator();
    await sys.clients.communities.upsertProfile(
      { profile: { id: profileId, name: `Added ${profileId}`, public: false } },
      options,
    );
    await sys.clients.communities.upsertMembership(
      { membership: { communityId: community, profileId, role: Role.ROLE_MEMBER, joinedAt, sourceIdentifier: '' } },
      options,
    );
  }

  return { system: () => sys, sql: () => sql, operator, roster, member, allPages, addMember };
}
