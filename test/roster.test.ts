// The roster list and the member read over real HTTP: shapes, keyset paging (sizes, clamping,
// tamper-proof cursors, changes between pages) and the authorization matrix of both endpoints.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type { MemberView, RosterPageView } from '../gateway/core/members-read.js';
import type { CommunityMember, RosterPage } from '../gateway/core/contract/members.js';
import { OwnerType, Role } from '../proto/gen/expertnet/common/v1/common.js';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { Status } from 'nice-grpc';
import { callAs } from '../services/kit/grpc/client.js';
import { readRemoteError } from '../services/kit/grpc/errors.js';
import { bearer, request, type JsonResponse } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { storeNames } from './helpers/stores.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const k = {
  manager: liveKey(), member: liveKey(), admin: liveKey(), allowOut: liveKey(), legacy: liveKey(),
  revoked: liveKey(), noScope: liveKey(), outsider: liveKey(), writer: liveKey(),
};

/** Hours after 2024-01-01T00:00:00Z. */
const at = (hours: number) => new Date(Date.UTC(2024, 0, 1) + hours * 3_600_000).toISOString();

// c_bio's seven members in roster order: joined_at, then profile id (p_t1/p_t2 share a joined_at).
const BIO_ORDER = ['p_admin', 'p_member', 'p_1', 'p_t1', 'p_t2', 'p_3', 'p_4'];
const FLUX = Array.from({ length: 10 }, (_, i) => `p_f${String(i + 1).padStart(2, '0')}`);

const rate = 6000; // every key standard tier at a high rate: this suite makes many requests
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
  ],
  profiles: [
    { id: 'p_member', user: 'u_member', name: 'Mia Member', headline: 'Ecologist', bio: 'Studies ponds.', organization: 'Lab',
      location: 'Bergen', email: 'mia@example.org', linkedin_url: 'https://www.linkedin.com/in/mia', orcid: '0000-0002-1825-0097',
      avatar_url: 'https://img.example.org/mia.png' },
    { id: 'p_admin', user: 'u_admin', name: 'Adam Admin' },
    ...['p_1', 'p_t1', 'p_t2', 'p_3', 'p_4'].map((id) => ({ id, name: `Placeholder ${id}` })),
    ...FLUX.map((id) => ({ id, name: `Flux ${id}` })),
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

it('the core views are the shapes the contract publishes', () => {
  expectTypeOf<RosterPageView>().toExtend<z.output<typeof RosterPage>>();
  expectTypeOf<MemberView>().toExtend<z.output<typeof CommunityMember>>();
});

describe.each(storeNames())('roster reads on %s', (store) => {
  let sys: TestSystem;
  /** Direct SQL on the PostgreSQL run only (PGlite in memory lives inside the system). */
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

  function expectError(res: JsonResponse, status: number, code: string) {
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body.error.code).toBe(code);
    expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
  }

  async function addMember(community: string, profileId: string, joinedAt: string) {
    const options = await operator();
    await sys.clients.communities.upsertProfile(
      { profile: { id: profileId, name: `Added ${profileId}`, userId: '', placeholderUserId: '', public: false, headline: '', bio: '',
        organization: '', location: '', email: '', linkedinUrl: '', orcid: '', avatarUrl: '' } },
      options,
    );
    await sys.clients.communities.upsertMembership(
      { membership: { communityId: community, profileId, role: Role.ROLE_MEMBER, joinedAt, sourceIdentifier: '' } },
      options,
    );
  }

  describe('GET /v1/communities/{id}/members', () => {
    it('answers a page of roster items in the published shape', async () => {
      const res = await roster(k.member, 'c_bio', '?limit=2');
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['members', 'next_cursor']);
      expect(res.body.members).toEqual([
        { profile_id: 'p_admin', user_id: 'u_admin', name: 'Adam Admin', headline: null, organization: null, location: null,
          avatar_url: null, role: 'admin', joined_at: at(0), enriched_at: null },
        { profile_id: 'p_member', user_id: 'u_member', name: 'Mia Member', headline: 'Ecologist', organization: 'Lab',
          location: 'Bergen', avatar_url: 'https://img.example.org/mia.png', role: 'member', joined_at: at(1), enriched_at: null },
      ]);
      expect(typeof res.body.next_cursor).toBe('string');
      // Nothing beyond the roster item leaks: no email, source identifier or placeholder account.
      expect(JSON.stringify(res.body.members)).not.toMatch(/mia@example\.org|src_|placeholder_user/);
    });

    it('pages 7 members with limit 3 as 3, 3, 1 in keyset order, next_cursor null exactly on the last page', async () => {
      const pages = await allPages(k.member, 'c_bio', 3);
      expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
      expect(pages.flat()).toEqual(BIO_ORDER);
      // A page that ends exactly at the end still announces a next page only if one exists.
      expect((await allPages(k.member, 'c_bio', 7)).map((p) => p.length)).toEqual([7]);
      expect((await allPages(k.member, 'c_bio', 200)).flat()).toEqual(BIO_ORDER);
    });

    it('defaults limit to 50 and clamps larger values to 200', async () => {
      const defaulted = await roster(k.member, 'c_bio');
      expect(defaulted.status).toBe(200);
      expect(defaulted.body.members).toHaveLength(7);
      expect(defaulted.body.next_cursor).toBeNull();

      // 250 members: limit 500 serves 200 and a cursor, then the remaining 50.
      const profiles = Array.from({ length: 250 }, (_, i) => `p_big${String(i).padStart(3, '0')}`);
      const options = await operator();
      await sys.clients.communities.upsertCommunity(
        { community: { id: 'c_big', name: 'Big', billingOwner: { type: OwnerType.OWNER_TYPE_ORGANIZATION, id: 'o_lab' }, archived: false, apiWrites: false, createdAt: undefined } },
        options,
      );
      for (let i = 0; i < profiles.length; i += 25) {
        await Promise.all(profiles.slice(i, i + 25).map((id, j) => addMember('c_big', id, at(i + j))));
      }
      const first = await roster(k.manager, 'c_big', '?limit=500');
      expect(first.status).toBe(200);
      expect(first.body.members).toHaveLength(200);
      const second = await roster(k.manager, 'c_big', `?limit=500&after=${encodeURIComponent(first.body.next_cursor)}`);
      expect(second.body.members).toHaveLength(50);
      expect(second.body.next_cursor).toBeNull();
      expect([...first.body.members, ...second.body.members].map((m: { profile_id: string }) => m.profile_id)).toEqual(profiles);
    });

    it('refuses limit below 1 or not a whole number: 400 invalid_request', async () => {
      for (const query of ['?limit=0', '?limit=-5', '?limit=2.5', '?limit=ten']) {
        const res = await roster(k.member, 'c_bio', query);
        expectError(res, 400, 'invalid_request');
        expect(res.body.error.message).toContain('query.limit');
      }
    });

    it('refuses a tampered, truncated, forged or foreign cursor with the same 400, revealing nothing', async () => {
      const page = await roster(k.member, 'c_bio', '?limit=2');
      const cursor: string = page.body.next_cursor;
      const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
      const [body] = cursor.split('.');
      const forgedBody = Buffer.from(JSON.stringify({ v: 1, c: 'c_bio', t: '2000-01-01T00:00:00.000000Z', p: 'p_0' })).toString('base64url');
      const bad = [
        flip(cursor, 0), // payload
        flip(cursor, cursor.length - 1), // tag
        flip(cursor, body!.length + 5),
        cursor.slice(0, -1),
        cursor.slice(0, body!.length),
        `${forgedBody}.${cursor.split('.')[1]}`,
        'not-a-cursor',
        `${cursor}.x`,
      ];
      const messages = new Set<string>();
      for (const after of bad) {
        const res = await roster(k.member, 'c_bio', `?limit=2&after=${encodeURIComponent(after)}`);
        expectError(res, 400, 'invalid_request');
        messages.add(res.body.error.message);
      }
      // A genuine cursor of c_chem (the same caller reads both) is not a cursor of c_bio.
      const chem = await roster(k.member, 'c_chem', '?limit=1');
      expect(chem.body.next_cursor).toEqual(expect.any(String));
      const foreign = await roster(k.member, 'c_bio', `?limit=2&after=${encodeURIComponent(chem.body.next_cursor)}`);
      expectError(foreign, 400, 'invalid_request');
      messages.add(foreign.body.error.message);
      expect(messages.size).toBe(1);
      expect([...messages][0]).not.toMatch(/hmac|signature|c_chem|json/i);
      // The genuine cursor still works, for any caller who reads the community.
      const next = await roster(k.manager, 'c_bio', `?limit=2&after=${encodeURIComponent(cursor)}`);
      expect(next.body.members.map((m: { profile_id: string }) => m.profile_id)).toEqual(['p_1', 'p_t1']);
    });

    it('stays correct while members are added and erased between pages: no repeat, no skip', async () => {
      const seen: string[] = [];
      const first = await roster(k.manager, 'c_flux', '?limit=4');
      seen.push(...first.body.members.map((m: { profile_id: string }) => m.profile_id));
      expect(seen).toEqual(FLUX.slice(0, 4));

      // Between pages: one joins before the cursor (never shown: it sorts into pages already
      // served), one later than everybody (shown once, at the end), one ties the cursor's
      // joined_at with a larger id (shown next), and two members leave — one already seen and
      // one not reached yet.
      await addMember('c_flux', 'p_new_past', at(-1));
      await addMember('c_flux', 'p_new_future', at(1000));
      await addMember('c_flux', 'p_f04z', at(13));
      const erased = ['p_f02', 'p_f07'];
      for (const profile of erased) {
        const res = await request(sys.restUrl, 'DELETE', `/v1/communities/c_flux/members/${profile}`, { headers: bearer(k.writer) });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expectError(await member(k.manager, 'c_flux', profile), 404, 'not_found');
      }

      let after: string | null = first.body.next_cursor;
      while (after) {
        const res: JsonResponse = await roster(k.manager, 'c_flux', `?limit=4&after=${encodeURIComponent(after)}`);
        expect(res.status).toBe(200);
        seen.push(...res.body.members.map((m: { profile_id: string }) => m.profile_id));
        after = res.body.next_cursor;
      }
      expect(new Set(seen).size, `repeated: ${seen}`).toBe(seen.length);
      const throughout = FLUX.filter((id) => !erased.includes(id));
      for (const id of throughout) expect(seen.filter((s) => s === id), id).toHaveLength(1);
      expect(seen).toContain('p_new_future');
      expect(seen).toContain('p_f04z');
      expect(seen).not.toContain('p_new_past');
      expect(seen).not.toContain('p_f07');
    });

    // Needs a second connection to the same database, which an in-memory PGlite cannot give.
    if (store === 'postgres') {
      it('orders members who joined within the same millisecond exactly (microsecond cursor)', async () => {
        const ids = ['p_us_c', 'p_us_a', 'p_us_b'];
        for (const id of ids) await addMember('c_bio', id, at(500));
        // Same millisecond, different microseconds, reverse of id order: the keyset must follow joined_at.
        await sql!.query(
          `UPDATE communities.memberships SET joined_at = '2024-03-01T00:00:00.000300Z'::timestamptz - (array_position($1::text[], profile_id) * interval '100 microseconds')
            WHERE community_id = 'c_bio' AND profile_id = ANY($1)`,
          [ids],
        );
        try {
          const pages = await allPages(k.member, 'c_bio', 1);
          expect(pages.every((p) => p.length === 1)).toBe(true);
          // p_us_b (.000000), p_us_a (.000100), p_us_c (.000200)
          expect(pages.flat()).toEqual([...BIO_ORDER, 'p_us_b', 'p_us_a', 'p_us_c']);
        } finally {
          await sql!.query(`DELETE FROM communities.memberships WHERE community_id = 'c_bio' AND profile_id = ANY($1)`, [ids]);
        }
      });
    }
  });

  describe('GET /v1/communities/{id}/members/{profile_id}', () => {
    it('answers the member with its membership, claimed state and null enrichment when never enriched here', async () => {
      const res = await member(k.admin, 'c_bio', 'p_member');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        profile_id: 'p_member', user_id: 'u_member', name: 'Mia Member', headline: 'Ecologist', bio: 'Studies ponds.',
        organization: 'Lab', location: 'Bergen', avatar_url: 'https://img.example.org/mia.png',
        linkedin_url: 'https://www.linkedin.com/in/mia', orcid: '0000-0002-1825-0097', role: 'member', joined_at: at(1),
        claimed: true, enrichment: null,
      });
      const placeholder = await member(k.admin, 'c_bio', 'p_1');
      expect(placeholder.body).toMatchObject({ profile_id: 'p_1', user_id: null, claimed: false, role: 'member', enrichment: null });
    });

    // Needs a second connection to the same database, which an in-memory PGlite cannot give.
    if (store === 'postgres') {
      it("carries this community's enrichment only", async () => {
        // No enrichment writer in this release: rows are placed as a run would store them.
        await sql!.query(
          `INSERT INTO enrichment.member_enrichment (community_id, profile_id, depth, data, enriched_at) VALUES
             ('c_bio', 'p_member', 'standard', '{"skills": ["limnology"], "source": "bio"}', '2025-02-03T04:05:06Z'),
             ('c_chem', 'p_member', 'deep', '{"source": "chem"}', '2025-03-01T00:00:00Z')`,
        );
        const bio = await member(k.member, 'c_bio', 'p_member');
        expect(bio.status).toBe(200);
        expect(bio.body.enrichment).toEqual({ depth: 'standard', enriched_at: '2025-02-03T04:05:06.000Z', data: { skills: ['limnology'], source: 'bio' } });
        const chem = await member(k.member, 'c_chem', 'p_member');
        expect(chem.body.enrichment).toEqual({ depth: 'deep', enriched_at: '2025-03-01T00:00:00.000Z', data: { source: 'chem' } });
        // The roster shows the same community's enrichment time, and null for people never enriched there.
        const page = await roster(k.member, 'c_bio', '?limit=200');
        const items = page.body.members as Array<{ profile_id: string; enriched_at: string | null }>;
        expect(items.find((m) => m.profile_id === 'p_member')!.enriched_at).toBe('2025-02-03T04:05:06.000Z');
        expect(items.filter((m) => m.profile_id !== 'p_member').every((m) => m.enriched_at === null)).toBe(true);
      });
    }

    it('is 404 not_found for a profile that is not a member (existing or not)', async () => {
      for (const profile of ['p_outsider_profile', 'p_chem1', 'p_nobody']) {
        expectError(await member(k.member, 'c_bio', profile), 404, 'not_found');
      }
    });

    it('refuses a malformed id with 400', async () => {
      expectError(await member(k.member, 'c_bio', 'bad%20id'), 400, 'invalid_request');
      expectError(await roster(k.member, 'bad%20id'), 400, 'invalid_request');
    });
  });

  describe('authorization matrix (both endpoints)', () => {
    const both = (secret: string, community: string, profile: string) => Promise.all([roster(secret, community, '?limit=1'), member(secret, community, profile)]);

    async function expectBoth(secret: string, community: string, profile: string, status: number, code?: string) {
      for (const res of await both(secret, community, profile)) {
        expect(res.status, `${community}: ${JSON.stringify(res.body)}`).toBe(status);
        if (code) expect(res.body.error.code).toBe(code);
      }
    }

    it('an organization manager who is not a member reads its organization’s community', async () => {
      await expectBoth(k.manager, 'c_bio', 'p_member', 200);
    });

    it('a plain member and a community admin read it', async () => {
      await expectBoth(k.member, 'c_bio', 'p_admin', 200);
      await expectBoth(k.admin, 'c_bio', 'p_member', 200);
    });

    it('a community outside reach is 403: an outsider, and a key whose allowlist leaves it out', async () => {
      await expectBoth(k.outsider, 'c_bio', 'p_member', 403, 'forbidden');
      await expectBoth(k.allowOut, 'c_bio', 'p_member', 403, 'forbidden');
      await expectBoth(k.allowOut, 'c_chem', 'p_member', 200);
    });

    it('an archived community is 403; the membership survives and unarchiving restores access', async () => {
      await expectBoth(k.member, 'c_arch', 'p_member', 200);
      const options = await operator();
      await sys.clients.communities.archiveCommunity({ communityId: 'c_arch', archived: true }, options);
      try {
        await expectBoth(k.member, 'c_arch', 'p_member', 403, 'forbidden');
        await expectBoth(k.manager, 'c_arch', 'p_member', 403, 'forbidden');
      } finally {
        await sys.clients.communities.archiveCommunity({ communityId: 'c_arch', archived: false }, options);
      }
      await expectBoth(k.member, 'c_arch', 'p_member', 200);
    });

    it('a legacy organization key reads its organization’s community only', async () => {
      await expectBoth(k.legacy, 'c_bio', 'p_member', 200);
      await expectBoth(k.legacy, 'c_chem', 'p_chem1', 403, 'forbidden');
    });

    it('an unknown community is 403, never 404', async () => {
      await expectBoth(k.member, 'c_nowhere', 'p_member', 403, 'forbidden');
    });

    it('a key without profile:read is 403 naming the scope', async () => {
      for (const res of await both(k.noScope, 'c_bio', 'p_member')) {
        expect(res.status).toBe(403);
        expect(res.body.error).toMatchObject({ code: 'forbidden', required_scope: 'profile:read' });
        expect(res.body.error.message).toContain('profile:read');
      }
    });

    it('a revoked key is 401 on the next request', async () => {
      await expectBoth(k.revoked, 'c_bio', 'p_member', 200);
      await sys.clients.identity.revokeKey({ keyId: 'k_revoked' }, await operator());
      await expectBoth(k.revoked, 'c_bio', 'p_member', 401, 'unauthorized');
    });
  });

  describe('the service re-checks what the edge checked', () => {
    it('refuses a caller outside reach (forbidden), a cursor of another community (invalid_request) and an operator, over gRPC too', async () => {
      const edge = await callAs(sys.signer, { kind: 'edge' }, 'r', 5000);
      const as = async (apiKey: string) => {
        const { caller } = await sys.clients.identity.authenticate({ apiKey, accessToken: '' }, edge);
        return callAs(sys.signer, { kind: 'caller', caller: caller! }, 'r', 5000);
      };
      const refusal = (call: Promise<unknown>) => call.then(() => undefined, (error: unknown) => readRemoteError(error));
      const outsider = await as(k.outsider);
      // One call at a time: a refusal that lands while another is awaited would go unhandled.
      for (const call of [
        () => sys.clients.communities.listMembers({ communityId: 'c_bio', pageSize: 1, pageToken: '' }, outsider),
        () => sys.clients.communities.getMember({ communityId: 'c_bio', profileId: 'p_member' }, outsider),
      ]) {
        expect(await refusal(call())).toMatchObject({ status: Status.PERMISSION_DENIED, code: 'forbidden', message: expect.stringMatching(/read reach/) });
      }
      // A genuine cursor of c_chem (this caller reads both) is not a cursor of c_bio.
      const member = await as(k.member);
      const chem = await sys.clients.communities.listMembers({ communityId: 'c_chem', pageSize: 1, pageToken: '' }, member);
      expect(chem.nextPageToken).not.toBe('');
      expect(await refusal(sys.clients.communities.listMembers({ communityId: 'c_bio', pageSize: 2, pageToken: chem.nextPageToken }, member)))
        .toMatchObject({ status: Status.INVALID_ARGUMENT, code: 'invalid_request' });
      // An operator is not an end user: the roster methods act for callers only.
      expect(await refusal(sys.clients.communities.listMembers({ communityId: 'c_bio', pageSize: 1, pageToken: '' }, await operator())))
        .toMatchObject({ status: Status.PERMISSION_DENIED });
    });
  });
});
