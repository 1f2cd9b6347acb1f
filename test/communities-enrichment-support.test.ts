// The communities service's support of enrichment runs, on the real system: ScanMembers (pages in
// profile id order, filters, the unfiltered total, archived communities, service principals only),
// IndexEnrichedMembers (the text lands in the person's community document, non-members are left
// out, a later profile re-index keeps it), ApplyOwnEnrichment (fields, validation before writing,
// the text in the public document only) and AuthorizeWrite's reach_only estimate; a scan of a large
// community costs one statement per page. Search state is checked through POST /v1/search; gating
// state through the operator's consent-request list.
import { Status } from 'nice-grpc';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../proto/gen/expertnet/common/v1/common.js';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { ScanMembersRequest } from '../proto/gen/expertnet/communities/v1/communities_service.js';
import { scanMembers } from '../services/communities/enrichment-support.js';
import { orcidCheckCharacter } from '../services/communities/normalize.js';
import type { Database } from '../services/kit/db/database.js';
import { openPostgres } from '../services/kit/db/postgres-database.js';
import { callAs, type CallOptions } from '../services/kit/grpc/client.js';
import { readRemoteError } from '../services/kit/grpc/errors.js';
import { communitiesContext } from './helpers/communities-context.js';
import { bearer, request, type JsonResponse } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { storeNames } from './helpers/stores.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

/** A valid ORCID iD from 15 digits (the check character computed). */
const orcid = (digits15: string) => {
  const id = digits15 + orcidCheckCharacter(digits15);
  return `${id.slice(0, 4)}-${id.slice(4, 8)}-${id.slice(8, 12)}-${id.slice(12)}`;
};

const k = { manager: liveKey(), member: liveKey(), jit: liveKey(), memberWriteOnly: liveKey() };
const rate = { requested_rate: 6000 };

// c_big: 25 placeholders (p_m01…p_m25; the first 12 joined in 2024, the rest in 2025) and p_pub.
const early = Array.from({ length: 12 }, (_, i) => `p_m${String(i + 1).padStart(2, '0')}`);
const late = Array.from({ length: 13 }, (_, i) => `p_m${String(i + 13).padStart(2, '0')}`);
const bigMembers = [...early, ...late, 'p_pub'];
const SINCE = '2025-01-01T00:00:00.000Z';

const seed: SeedInput = {
  users: [
    { id: 'u_manager', email: 'manager@example.org', name: 'Manager', plan: 'paid' },
    { id: 'u_member', email: 'member@example.org', name: 'Member' },
    { id: 'u_pub', email: 'pub@example.org', name: 'Pia Public' },
    { id: 'u_jit', email: 'jit@example.org', name: 'JIT Owner', jit_consent: true },
  ],
  organizations: [{ id: 'o_lab', name: 'Lab', members: [{ user: 'u_manager', role: 'admin' }] }],
  communities: [
    { id: 'c_big', name: 'Big', owner: { organization: 'o_lab' } },
    { id: 'c_other', name: 'Other', owner: { organization: 'o_lab' }, api_writes: true },
    { id: 'c_old', name: 'Old', owner: { organization: 'o_lab' }, archived: true },
    { id: 'c_jit', name: 'JIT', owner: { user: 'u_jit' } },
  ],
  profiles: [
    ...[...early, ...late].map((id) => ({ id, name: `Member ${id.slice(3)}`, email: `${id}@example.org` })),
    { id: 'p_pub', user: 'u_pub', public: true, name: 'Pia Public', headline: 'Limnologist', organization: 'Old Org' },
    { id: 'p_member', user: 'u_member', name: 'Member' },
    { id: 'p_outsider', name: 'Oscar Outsider', headline: 'Limnologist' },
  ],
  memberships: [
    ...early.map((profile, i) => ({ community: 'c_big', profile, joined_at: `2024-03-${String(i + 1).padStart(2, '0')}T10:00:00Z` })),
    ...late.map((profile, i) => ({ community: 'c_big', profile, joined_at: `2025-05-${String(i + 1).padStart(2, '0')}T10:00:00Z` })),
    { community: 'c_big', profile: 'p_pub', role: 'admin', joined_at: '2025-02-01T00:00:00Z' },
    { community: 'c_other', profile: 'p_pub' },
    { community: 'c_other', profile: 'p_member' },
    { community: 'c_other', profile: 'p_outsider' },
    { community: 'c_old', profile: 'p_m01' },
    { community: 'c_old', profile: 'p_m02' },
  ],
  wallets: [{ owner: { user: 'u_manager' }, balance: 1000 }],
  keys: [
    { id: 'k_manager', secret: k.manager, owner: { user: 'u_manager' }, scopes: ['enrich:write', 'member:write', 'search:read'], ...rate },
    { id: 'k_member', secret: k.member, owner: { user: 'u_member' }, scopes: ['enrich:write'], ...rate },
    { id: 'k_jit', secret: k.jit, owner: { user: 'u_jit' }, scopes: ['enrich:write'], ...rate },
    { id: 'k_mwo', secret: k.memberWriteOnly, owner: { user: 'u_manager' }, scopes: ['member:write'], ...rate },
  ],
};

describe.each(storeNames())('communities enrichment support on %s', (store) => {
  let sys: TestSystem;
  let operator: CallOptions;
  let service: CallOptions;
  beforeAll(async () => {
    sys = await startTestSystem({ store, seed });
    operator = await callAs(sys.signer, { kind: 'operator', actor: 'test' }, undefined, 10_000);
    service = await callAs(sys.signer, { kind: 'service', service: 'enrichment' }, undefined, 10_000);
  });
  afterAll(async () => sys?.stop());

  const communities = () => sys.clients.communities;
  const failure = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => readRemoteError(error));
  async function asCaller(secret: string): Promise<CallOptions> {
    const edge = await callAs(sys.signer, { kind: 'edge' }, 'r', 10_000);
    const { caller } = await sys.clients.identity.authenticate({ apiKey: secret, accessToken: '' }, edge);
    return callAs(sys.signer, { kind: 'caller', caller: caller! }, 'r', 10_000);
  }
  const search = (body: Record<string, unknown>) => request(sys.restUrl, 'POST', '/v1/search', { headers: bearer(k.manager), body: { limit: 50, ...body } });
  async function found(body: Record<string, unknown>): Promise<string[]> {
    const res: JsonResponse = await search(body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return (res.body.matches as Array<{ profile_id: string }>).map((m) => m.profile_id);
  }
  const inCommunity = (community: string, query: string) => found({ query, scope: 'community', community_id: community });
  const inPublic = (query: string) => found({ query, scope: 'public' });

  describe('ScanMembers', () => {
    const scan = (request: { communityId: string; profileIds?: string[]; joinedSince?: string; afterProfileId?: string; pageSize?: number; omitTotal?: boolean }) =>
      communities().scanMembers(request, service);

    it('pages through every member in profile id order, with the unfiltered total on every page', async () => {
      const seen: string[] = [];
      let after = '';
      let pages = 0;
      do {
        const page = await scan({ communityId: 'c_big', afterProfileId: after, pageSize: 10 });
        expect(page.totalMembers).toBe(bigMembers.length);
        expect(page.members.length).toBeLessThanOrEqual(10);
        seen.push(...page.members.map((m) => m.profile!.id));
        after = page.nextAfterProfileId;
        pages++;
      } while (after !== '');
      expect(pages).toBe(3);
      expect(seen).toEqual([...bigMembers].sort());
    });

    it('answers total_members 0 with omit_total, and the same members and pages', async () => {
      const counted = await scan({ communityId: 'c_big', profileIds: ['p_m03', 'p_m20'], pageSize: 1 });
      const omitted = await scan({ communityId: 'c_big', profileIds: ['p_m03', 'p_m20'], pageSize: 1, omitTotal: true });
      expect(counted.totalMembers).toBe(bigMembers.length);
      expect(omitted).toEqual({ ...counted, totalMembers: 0 });
      // Still not_found for an unknown community.
      expect(await failure(communities().scanMembers({ communityId: 'c_nope', omitTotal: true }, service))).toMatchObject({ status: Status.NOT_FOUND });
    });

    it('names the next page only when there is one: an exact last page ends the scan', async () => {
      const first = await scan({ communityId: 'c_big', pageSize: 13 });
      expect(first.nextAfterProfileId).toBe('p_m13');
      const second = await scan({ communityId: 'c_big', afterProfileId: first.nextAfterProfileId, pageSize: 13 });
      expect(second.members.map((m) => m.profile!.id)).toEqual([...late.slice(1), 'p_pub']);
      expect(second.nextAfterProfileId).toBe('');
    });

    it('hands services the whole record: profile (email included) and membership (source identifier included)', async () => {
      const page = await scan({ communityId: 'c_big', profileIds: ['p_pub', 'p_m01'] });
      expect(page.members.map((m) => m.profile!.id)).toEqual(['p_m01', 'p_pub']);
      const [m01, pub] = page.members;
      expect(m01!.profile).toMatchObject({ id: 'p_m01', name: 'Member 01', email: 'p_m01@example.org', userId: undefined });
      expect(m01!.membership).toMatchObject({ communityId: 'c_big', profileId: 'p_m01', role: Role.ROLE_MEMBER, joinedAt: '2024-03-01T10:00:00.000Z' });
      expect(m01!.membership!.sourceIdentifier).not.toBe('');
      expect(pub!.profile).toMatchObject({ userId: 'u_pub', public: true, headline: 'Limnologist' });
      expect(pub!.membership!.role).toBe(Role.ROLE_ADMIN);
    });

    it('filters by profile ids (non-members are simply absent) and by joined_since, combined with paging', async () => {
      const picked = await scan({ communityId: 'c_big', profileIds: ['p_m20', 'p_outsider', 'p_m03', 'p_nobody', 'p_m20'] });
      expect(picked.members.map((m) => m.profile!.id)).toEqual(['p_m03', 'p_m20']);
      expect(picked.totalMembers).toBe(bigMembers.length);
      expect(picked.nextAfterProfileId).toBe('');

      const recent = await scan({ communityId: 'c_big', joinedSince: SINCE });
      expect(recent.members.map((m) => m.profile!.id)).toEqual([...late, 'p_pub']);
      expect(recent.totalMembers).toBe(bigMembers.length);
      // joined_since is inclusive.
      const exact = await scan({ communityId: 'c_big', joinedSince: '2025-02-01T00:00:00Z' });
      expect(exact.members.map((m) => m.profile!.id)).toContain('p_pub');

      const both = await scan({ communityId: 'c_big', joinedSince: SINCE, profileIds: ['p_m01', 'p_m14', 'p_m15', 'p_m16'], afterProfileId: 'p_m14', pageSize: 1 });
      expect(both.members.map((m) => m.profile!.id)).toEqual(['p_m15']);
      expect(both.nextAfterProfileId).toBe('p_m15');
      const rest = await scan({ communityId: 'c_big', joinedSince: SINCE, profileIds: ['p_m01', 'p_m14', 'p_m15', 'p_m16'], afterProfileId: 'p_m15', pageSize: 1 });
      expect(rest.members.map((m) => m.profile!.id)).toEqual(['p_m16']);
      expect(rest.nextAfterProfileId).toBe('');
    });

    it('uses the default page for 0, allows 2000 and refuses more', async () => {
      const all = await scan({ communityId: 'c_big', pageSize: 0 });
      expect(all.members).toHaveLength(bigMembers.length);
      expect(all.nextAfterProfileId).toBe('');
      expect((await scan({ communityId: 'c_big', pageSize: 2000 })).members).toHaveLength(bigMembers.length);
      expect(await failure(scan({ communityId: 'c_big', pageSize: 2001 }))).toMatchObject({ code: 'invalid_request' });
    });

    it('answers an empty page with the total past the last member, not_found for an unknown community, and lists archived ones', async () => {
      const past = await scan({ communityId: 'c_big', afterProfileId: 'p_zzz' });
      expect(past).toEqual({ members: [], nextAfterProfileId: '', totalMembers: bigMembers.length });
      expect(await failure(scan({ communityId: 'c_nope' }))).toMatchObject({ code: 'not_found' });
      const old = await scan({ communityId: 'c_old' });
      expect(old.members.map((m) => m.profile!.id)).toEqual(['p_m01', 'p_m02']);
      expect(old.totalMembers).toBe(2);
    });

    it('is for services only: a caller (even the community’s manager) and an operator are refused', async () => {
      const asManager = await asCaller(k.manager);
      expect(await failure(communities().scanMembers({ communityId: 'c_big' }, asManager))).toMatchObject({ status: Status.PERMISSION_DENIED });
      expect(await failure(communities().scanMembers({ communityId: 'c_big' }, operator))).toMatchObject({ status: Status.PERMISSION_DENIED });
      expect(await failure(communities().indexEnrichedMembers({ communityId: 'c_big', members: [] }, asManager))).toMatchObject({ status: Status.PERMISSION_DENIED });
      expect(await failure(communities().applyOwnEnrichment({ profileId: 'p_pub', name: 'Hijack' }, asManager))).toMatchObject({ status: Status.PERMISSION_DENIED });
    });

    it('CountMembers answers services too', async () => {
      expect((await communities().countMembers({ communityId: 'c_big' }, service)).count).toBe(bigMembers.length);
    });

    if (store === 'postgres') {
      // A community of 10 000 members (written straight into the store), scanned in 5 pages of 2000
      // through the system; then scanned again by the service's own scan over the same store,
      // counting what it sends: one statement per page, never one per member.
      it('scans a 10 000-member community in full pages, one statement per page', async () => {
        const client = new pg.Client({ connectionString: sys.env.DATABASE_URL });
        await client.connect();
        try {
          await client.query(`INSERT INTO communities.communities (id, name, owner_type, owner_id) VALUES ('c_huge', 'Huge', 'organization', 'o_lab')`);
          await client.query(`INSERT INTO communities.profiles (id, name) SELECT 'p_h' || lpad(g::text, 5, '0'), 'Huge ' || g FROM generate_series(1, 10000) g`);
          await client.query(
            `INSERT INTO communities.memberships (community_id, profile_id, role, source_identifier)
             SELECT 'c_huge', 'p_h' || lpad(g::text, 5, '0'), 'member', 'src_h' || g FROM generate_series(1, 10000) g`,
          );
        } finally {
          await client.end();
        }
        const scanAll = async (scanPage: typeof scan) => {
          const ids: string[] = [];
          let after = '';
          let pages = 0;
          do {
            const page = await scanPage({ communityId: 'c_huge', afterProfileId: after, pageSize: 2000 });
            expect(page.totalMembers).toBe(10_000);
            ids.push(...page.members.map((m) => m.profile!.id));
            after = page.nextAfterProfileId;
            pages++;
          } while (after !== '');
          return { ids, pages };
        };
        const { ids, pages } = await scanAll(scan);
        expect(pages).toBe(5);
        expect(ids).toHaveLength(10_000);
        expect(new Set(ids).size).toBe(10_000);
        expect(ids).toEqual([...ids].sort());

        const db = openPostgres(sys.env.DATABASE_URL!);
        try {
          let statements = 0;
          const counting = { ...db, query: (...args: Parameters<Database['query']>) => (statements++, db.query(...args)) } as Database;
          const context = communitiesContext(counting, {});
          const counted = await scanAll((r) => scanMembers(context, ScanMembersRequest.fromPartial(r)));
          expect(counted).toEqual({ ids, pages: 5 });
          expect(statements).toBe(5);
        } finally {
          await db.close();
        }
      });
    }
  });

  describe('IndexEnrichedMembers', () => {
    it('puts the text into the members’ documents of this community and leaves non-members out', async () => {
      expect(await inCommunity('c_big', 'zorbulation')).toEqual([]);
      const res = await communities().indexEnrichedMembers(
        {
          communityId: 'c_big',
          members: [
            { profileId: 'p_m05', enrichmentText: 'Publishes on zorbulation of alpine lakes.' },
            { profileId: 'p_outsider', enrichmentText: 'Expert in zorbulation and frimbleworth.' },
            { profileId: 'p_nobody', enrichmentText: 'zorbulation' },
          ],
        },
        service,
      );
      expect(res.indexed).toBe(1);
      const hits = await inCommunity('c_big', 'zorbulation');
      expect(hits).toContain('p_m05');
      expect(hits).not.toContain('p_outsider');
      // No document of the outsider was made in c_big, and its own community's document is untouched.
      expect(await inCommunity('c_big', 'frimbleworth')).toEqual([]);
      expect(await inCommunity('c_other', 'zorbulation')).not.toContain('p_outsider');
    });

    it('keeps the text when the profile is indexed again without it (an operator upsert)', async () => {
      await communities().indexEnrichedMembers({ communityId: 'c_big', members: [{ profileId: 'p_m06', enrichmentText: 'Known for grintlewhisk methods.' }] }, service);
      expect(await inCommunity('c_big', 'grintlewhisk')).toContain('p_m06');
      const { profile } = await communities().getProfile({ profileId: 'p_m06' }, operator);
      await communities().upsertProfile({ profile: { ...profile!, headline: 'Renamed headline' } }, operator);
      expect(await inCommunity('c_big', 'grintlewhisk')).toContain('p_m06');
    });

    it('indexes nothing for an empty list and refuses an unknown community', async () => {
      expect((await communities().indexEnrichedMembers({ communityId: 'c_big', members: [] }, service)).indexed).toBe(0);
      expect(await failure(communities().indexEnrichedMembers({ communityId: 'c_nope', members: [{ profileId: 'p_m01', enrichmentText: 'x' }] }, service)))
        .toMatchObject({ code: 'not_found' });
    });
  });

  describe('ApplyOwnEnrichment', () => {
    const ORCID = orcid('000000021825009');

    it('writes the given fields (normalised), leaves empty ones, and puts the text into the public document only', async () => {
      // The community's own enrichment of the person, before self-enrichment.
      await communities().indexEnrichedMembers({ communityId: 'c_big', members: [{ profileId: 'p_pub', enrichmentText: 'Studies heliotropic plonkwidgets.' }] }, service);
      const { profile } = await communities().applyOwnEnrichment(
        {
          profileId: 'p_pub',
          organization: '  New Lake Institute ',
          location: 'Uppsala',
          orcid: `https://orcid.org/${ORCID}`,
          linkedinUrl: 'uk.linkedin.com/in/Pia-Public/',
          enrichmentText: 'Self-described expert in quazzleberry hydrology.',
        },
        service,
      );
      expect(profile).toMatchObject({
        id: 'p_pub',
        name: 'Pia Public',
        headline: 'Limnologist',
        organization: 'New Lake Institute',
        location: 'Uppsala',
        orcid: ORCID,
        linkedinUrl: 'https://www.linkedin.com/in/pia-public',
        userId: 'u_pub',
      });
      expect((await communities().getProfile({ profileId: 'p_pub' }, operator)).profile).toEqual(profile);

      expect(await inPublic('quazzleberry')).toContain('p_pub');
      expect(await inCommunity('c_big', 'quazzleberry')).not.toContain('p_pub');
      expect(await inCommunity('c_other', 'quazzleberry')).not.toContain('p_pub');
      // The community document kept the community's text, and took the new organization.
      expect(await inCommunity('c_big', 'plonkwidgets')).toContain('p_pub');
      expect(await inPublic('plonkwidgets')).not.toContain('p_pub');
      expect(await inCommunity('c_other', 'New Lake Institute')).toContain('p_pub');
    });

    it('refuses a bad ORCID iD or LinkedIn URL and writes nothing', async () => {
      const before = (await communities().getProfile({ profileId: 'p_m07' }, operator)).profile!;
      const badOrcid = await failure(
        communities().applyOwnEnrichment({ profileId: 'p_m07', name: 'Changed', organization: 'Changed Org', orcid: '0000-0002-1825-0098' }, service),
      );
      expect(badOrcid).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('checksum') });
      const badLinkedin = await failure(
        communities().applyOwnEnrichment({ profileId: 'p_m07', name: 'Changed', linkedinUrl: 'https://www.linkedin.com/company/acme' }, service),
      );
      expect(badLinkedin).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('LinkedIn') });
      expect((await communities().getProfile({ profileId: 'p_m07' }, operator)).profile).toEqual(before);
    });

    it('is not_found for an unknown profile', async () => {
      expect(await failure(communities().applyOwnEnrichment({ profileId: 'p_nobody', name: 'X' }, service))).toMatchObject({ code: 'not_found' });
    });
  });

  describe('AuthorizeWrite reach_only', () => {
    const authorize = async (secret: string, communityId: string, reachOnly: boolean, operation = 'enrichment.start') =>
      communities().authorizeWrite({ communityId, operation, reachOnly }, await asCaller(secret));
    const pending = async (communityId: string) =>
      (await communities().listConsentRequests({ communityId }, operator)).requests;

    it('passes without the API-write attestation, where the full check refuses', async () => {
      expect((await authorize(k.manager, 'c_big', true)).community).toMatchObject({ id: 'c_big', apiWrites: false });
      expect(await failure(authorize(k.manager, 'c_big', false))).toMatchObject({ code: 'unprocessable' });
    });

    it('queues no consent request, where the full check queues one', async () => {
      expect((await authorize(k.jit, 'c_jit', true)).community?.id).toBe('c_jit');
      expect(await pending('c_jit')).toEqual([]);
      expect(await failure(authorize(k.jit, 'c_jit', false))).toMatchObject({ code: 'owner_consent_required' });
      expect(await pending('c_jit')).toHaveLength(1);
      await authorize(k.jit, 'c_jit', true);
      expect(await pending('c_jit')).toHaveLength(1);
    });

    it('still refuses a caller without write reach or without the scope (forbidden)', async () => {
      expect(await failure(authorize(k.member, 'c_other', true))).toMatchObject({ code: 'forbidden' });
      expect(await failure(authorize(k.manager, 'c_old', true))).toMatchObject({ code: 'forbidden' });
      expect(await failure(authorize(k.manager, 'c_nope', true))).toMatchObject({ code: 'forbidden' });
      expect(await failure(authorize(k.memberWriteOnly, 'c_big', true))).toMatchObject({ code: 'forbidden', metadata: { required_scope: 'enrich:write' } });
    });
  });
});
