// Member writes over real HTTP: bulk add (per-item results, matching, placeholders, concurrency),
// write gating (reach, attestation, just-in-time consent) and community-scoped erasure. State is
// checked through the services' own operator reads (and, on PostgreSQL, the rows themselves).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEASE_SECONDS } from '../gateway/core/idempotency/policy.js';
import { ConsentStatus } from '../proto/gen/expertnet/communities/v1/communities_service.js';
import { Role } from '../proto/gen/expertnet/common/v1/common.js';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { orcidCheckCharacter } from '../services/communities/normalize.js';
import { callAs, type CallOptions } from '../services/kit/grpc/client.js';
import { readRemoteError } from '../services/kit/grpc/errors.js';
import { bearer, request } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { storeNames } from './helpers/stores.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

/** A valid ORCID iD from 15 digits (the check character computed). */
const orcid = (digits15: string) => {
  const id = digits15 + orcidCheckCharacter(digits15);
  return `${id.slice(0, 4)}-${id.slice(4, 8)}-${id.slice(8, 12)}-${id.slice(12)}`;
};

const k = {
  manager: liveKey(), cadmin: liveKey(), member: liveKey(), narrow: liveKey(), legacy: liveKey(),
  read: liveKey(), jit: liveKey(), orgjit: liveKey(), closed: liveKey(),
};

const WRITE = ['member:write'];
const rate = { requested_rate: 6000 };

const seed: SeedInput = {
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

describe.each(storeNames())('member writes on %s', (store) => {
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

  describe('bulk add', () => {
    it('answers one result per item, in order; a bad item is rejected while the others are added', async () => {
      const res = await add(k.manager, 'c_bio', {
        members: [
          { email: 'grace@example.org', name: 'Grace Hopper', headline: 'Compilers', bio: 'Wrote one.', organization: 'Navy', location: 'Arlington' },
          { name: 'Only A Name' },
          { orcid: '0000-0002-1825-0098', name: 'Bad Checksum' },
          { linkedin_url: 'https://example.com/in/nobody' },
          { email: 'hedy@example.org' },
        ],
      });
      expect(res.status).toBe(200);
      const results = res.body.results;
      expect(results).toHaveLength(5);
      expect(results.map((r: { index: number }) => r.index)).toEqual([0, 1, 2, 3, 4]);
      expect(results.map((r: { status: string }) => r.status)).toEqual(['added', 'added', 'rejected', 'rejected', 'added']);
      expect(Object.keys(results[0]).sort()).toEqual(['error', 'index', 'profile_id', 'status']);
      expect(results[0]).toMatchObject({ error: null, profile_id: expect.stringMatching(/^p_/) });
      expect(results[2]).toEqual({ index: 2, status: 'rejected', profile_id: null, error: { code: 'invalid_request', message: expect.stringContaining('checksum') } });
      expect(results[3].error).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('LinkedIn') });
    });

    it('makes an unclaimed placeholder with the seed fields, a placeholder auth account and a source identifier', async () => {
      const res = await add(k.manager, 'c_bio', { members: [{ email: 'ada.placeholder@example.org', name: 'Ada P', headline: 'Enzymes', location: 'Oslo' }] });
      const id = res.body.results[0].profile_id;
      const p = (await profile(id))!;
      expect(p).toMatchObject({ userId: '', name: 'Ada P', headline: 'Enzymes', location: 'Oslo', email: 'ada.placeholder@example.org' });
      expect(p.placeholderUserId).not.toBe('');
      expect(await user(p.placeholderUserId)).toMatchObject({ name: 'Ada P', email: 'ada.placeholder@example.org' });
      const m = (await membership('c_bio', id))!;
      expect(m.role).toBe(Role.ROLE_MEMBER);
      expect(m.sourceIdentifier).toMatch(/^src_[0-9a-f-]{36}$/);
    });

    it('names a new person without a name after the identifier it came with', async () => {
      const res = await add(k.manager, 'c_bio', { members: [{ email: 'no.name@example.org' }, { linkedin_url: 'https://www.linkedin.com/in/just-a-slug' }] });
      expect((await profile(res.body.results[0].profile_id))!.name).toBe('no.name');
      expect((await profile(res.body.results[1].profile_id))!.name).toBe('just-a-slug');
    });

    it('grants admin when asked, and leaves an existing member’s role as it is', async () => {
      const res = await add(k.manager, 'c_chem', { role: 'admin', members: [{ email: 'new.admin@example.org' }, { email: 'claimed@example.org' }] });
      expect(res.body.results.map((r: { status: string }) => r.status)).toEqual(['added', 'already_member']);
      expect((await membership('c_chem', res.body.results[0].profile_id))!.role).toBe(Role.ROLE_ADMIN);
      expect((await membership('c_chem', 'p_claimed'))!.role).toBe(Role.ROLE_MEMBER);
    });

    describe('matching existing people', () => {
      it('matches an email whatever its letter case, in this and other communities, claimed profiles included', async () => {
        const first = await add(k.manager, 'c_bio', { members: [{ email: 'Match.Me@Example.org', name: 'Match Me' }] });
        const id = first.body.results[0].profile_id;
        const again = await add(k.manager, 'c_bio', { members: [{ email: 'match.me@EXAMPLE.ORG' }] });
        expect(again.body.results[0]).toEqual({ index: 0, status: 'already_member', profile_id: id, error: null });
        const other = await add(k.manager, 'c_chem', { members: [{ email: 'MATCH.ME@example.org' }] });
        expect(other.body.results[0]).toMatchObject({ status: 'added', profile_id: id });
        // The seeded claimed profile's email is stored with capitals.
        const claimed = await add(k.manager, 'c_bio', { members: [{ email: 'claimed@example.ORG' }] });
        expect(claimed.body.results[0]).toMatchObject({ status: 'already_member', profile_id: 'p_claimed' });
      });

      it('matches LinkedIn URL variants (scheme, www, subdomain, case, trailing slash, query)', async () => {
        const first = await add(k.manager, 'c_bio', { members: [{ linkedin_url: 'https://www.linkedin.com/in/alan-turing', name: 'Alan' }] });
        const id = first.body.results[0].profile_id;
        expect((await profile(id))!.linkedinUrl).toBe('https://www.linkedin.com/in/alan-turing');
        const variants = ['http://linkedin.com/in/Alan-Turing/?trk=public', 'https://uk.linkedin.com/in/alan-turing/', 'https://WWW.LINKEDIN.COM/in/ALAN-TURING#about'];
        const res = await add(k.manager, 'c_bio', { members: variants.map((linkedin_url) => ({ linkedin_url })) });
        for (const r of res.body.results) expect(r).toMatchObject({ status: 'already_member', profile_id: id });
      });

      it('matches an ORCID iD in bare and URL form; an invalid checksum rejects only its item', async () => {
        const id15 = '000000015109370';
        const bare = orcid(id15);
        const first = await add(k.manager, 'c_bio', { members: [{ orcid: `https://orcid.org/${bare}`, name: 'Laure' }] });
        const id = first.body.results[0].profile_id;
        expect((await profile(id))!.orcid).toBe(bare);
        const wrong = bare.slice(0, -1) + (bare.endsWith('0') ? '1' : '0');
        const res = await add(k.manager, 'c_bio', { members: [{ orcid: bare }, { orcid: wrong, name: 'Wrong' }, { email: 'after.bad.orcid@example.org' }] });
        expect(res.body.results.map((r: { status: string }) => r.status)).toEqual(['already_member', 'rejected', 'added']);
        expect(res.body.results[0].profile_id).toBe(id);
      });

      it('tries email first, then LinkedIn, then ORCID; a name alone always makes a new person', async () => {
        const a = (await add(k.manager, 'c_chem', { members: [{ email: 'prio.a@example.org' }] })).body.results[0].profile_id;
        const b = (await add(k.manager, 'c_chem', { members: [{ orcid: orcid('000000029999999') }] })).body.results[0].profile_id;
        const both = await add(k.manager, 'c_chem', { members: [{ email: 'prio.a@example.org', orcid: orcid('000000029999999') }] });
        expect(both.body.results[0].profile_id).toBe(a);
        const byOrcid = await add(k.manager, 'c_chem', { members: [{ email: 'unknown.prio@example.org', orcid: orcid('000000029999999') }] });
        expect(byOrcid.body.results[0]).toMatchObject({ status: 'already_member', profile_id: b });
        const names = await add(k.manager, 'c_chem', { members: [{ name: 'Same Name' }, { name: 'Same Name' }] });
        const [x, y] = names.body.results;
        expect([x.status, y.status]).toEqual(['added', 'added']);
        expect(x.profile_id).not.toBe(y.profile_id);
      });
    });

    describe('refused whole, nothing added', () => {
      it('more than 100 items → 400 invalid_request', async () => {
        const before = await count('c_bio');
        const members = Array.from({ length: 101 }, (_, i) => ({ email: `bulk${i}@example.org` }));
        const res = await add(k.manager, 'c_bio', { members });
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('invalid_request');
        expect(await count('c_bio')).toBe(before);
      });

      it('role owner → 400 invalid_request', async () => {
        const before = await count('c_bio');
        const res = await add(k.manager, 'c_bio', { role: 'owner', members: [{ email: 'would.be.owner@example.org' }] });
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('invalid_request');
        expect(await count('c_bio')).toBe(before);
      });

      it('the service re-checks both rules itself', async () => {
        const before = await count('c_bio');
        const as = await asCaller(k.manager);
        const item = (i: number) => ({ email: `grpc${i}@example.org`, linkedinUrl: '', orcid: '', name: '', headline: '', bio: '', organization: '', location: '' });
        const tooMany = sys.clients.communities.addMembers({ communityId: 'c_bio', role: Role.ROLE_MEMBER, members: Array.from({ length: 101 }, (_, i) => item(i)) }, as);
        await expect(tooMany).rejects.toSatisfy((e) => readRemoteError(e)?.code === 'invalid_request');
        const owner = sys.clients.communities.addMembers({ communityId: 'c_bio', role: Role.ROLE_OWNER, members: [item(1)] }, as);
        await expect(owner).rejects.toSatisfy((e) => readRemoteError(e)?.code === 'invalid_request');
        expect(await count('c_bio')).toBe(before);
      });
    });

    it('honours Idempotency-Key on the add (the stored response is replayed) and ignores it on the erasure', async () => {
      const headers = { 'idempotency-key': `add-${store}-1` };
      const body = { members: [{ email: 'idem@example.org' }] };
      const first = await add(k.manager, 'c_bio', body, headers);
      const replay = await add(k.manager, 'c_bio', body, headers);
      expect(first.body.results[0].status).toBe('added');
      expect(replay.body).toEqual(first.body);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      const id = first.body.results[0].profile_id;
      const del = (h: Record<string, string>) =>
        request(sys.restUrl, 'DELETE', `/v1/communities/c_bio/members/${id}`, { headers: { ...bearer(k.manager), ...h } });
      expect((await del({ 'idempotency-key': `erase-${store}` })).status).toBe(200);
      const again = await del({ 'idempotency-key': `erase-${store}` });
      expect(again.status).toBe(404);
      expect(again.headers.get('idempotent-replayed')).toBeNull();
    });

    it('20 parallel identical requests with one Idempotency-Key execute once: the rest replay it or get 409', async () => {
      const before = await count('c_chem');
      const headers = { 'idempotency-key': `burst-${store}` };
      const body = { members: [{ email: 'burst.one@example.org' }, { name: 'Burst Two' }] };
      const responses = await Promise.all(Array.from({ length: 20 }, () => add(k.manager, 'c_chem', body, headers)));
      const executed = responses.filter((r) => r.status === 200 && r.headers.get('idempotent-replayed') === null);
      const replayed = responses.filter((r) => r.headers.get('idempotent-replayed') === 'true');
      const conflicts = responses.filter((r) => r.status === 409);
      expect(executed).toHaveLength(1);
      expect(replayed.length + conflicts.length).toBe(19);
      expect(executed[0]!.body.results.map((r: { status: string }) => r.status)).toEqual(['added', 'added']);
      for (const r of replayed) expect(r.body).toEqual(executed[0]!.body);
      for (const r of conflicts) {
        expect(r.body.error.code).toBe('conflict');
        // The seconds left on the running request's lease (docs/IDEMPOTENCY.md).
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(Number(r.headers.get('retry-after'))).toBeLessThanOrEqual(LEASE_SECONDS);
      }
      // A name alone always makes a new person: a second execution would have added a third member.
      expect(await count('c_chem')).toBe(before + 2);
      const different = await add(k.manager, 'c_chem', { members: [{ email: 'other@example.org' }] }, headers);
      expect(different.status).toBe(422);
      expect(different.body.error.code).toBe('unprocessable');
    });

    it('20 parallel identical requests (no Idempotency-Key) add each person once', async () => {
      const before = await count('c_chem');
      const body = {
        members: [
          { email: 'parallel.one@example.org', name: 'Parallel One' },
          { linkedin_url: 'https://www.linkedin.com/in/parallel-two' },
          { orcid: orcid('000000031234567') },
        ],
      };
      const responses = await Promise.all(Array.from({ length: 20 }, () => add(k.manager, 'c_chem', body)));
      for (const r of responses) expect(r.status).toBe(200);
      for (const index of [0, 1, 2]) {
        const items = responses.map((r) => r.body.results[index]);
        expect(new Set(items.map((i) => i.profile_id)).size).toBe(1);
        expect(items.filter((i) => i.status === 'added')).toHaveLength(1);
        expect(items.filter((i) => i.status === 'already_member')).toHaveLength(19);
      }
      expect(await count('c_chem')).toBe(before + 3);
    });
  });

  describe('write gating', () => {
    const one = (email: string) => ({ members: [{ email }] });

    it('lets the owning organization’s manager and a delegated community admin write', async () => {
      expect((await add(k.manager, 'c_bio', one('gate.manager@example.org'))).status).toBe(200);
      expect((await add(k.cadmin, 'c_bio', one('gate.cadmin@example.org'))).status).toBe(200);
      expect((await add(k.legacy, 'c_bio', one('gate.legacy@example.org'))).status).toBe(200);
    });

    it.each([
      ['a plain member', 'member', 'c_bio'],
      ['a key whose allowlist leaves the community out', 'narrow', 'c_bio'],
      ['an archived community', 'manager', 'c_old'],
      ['a legacy organization key on a community its organization does not own', 'legacy', 'c_foreign'],
      ['an unknown community', 'manager', 'c_nowhere'],
    ] as const)('refuses %s with 403, adding nothing', async (_label, key, community) => {
      const res = await add(k[key], community, one(`gate.${key}.${community}@example.org`));
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
      expect((await erase(k[key], community, 'p_claimed')).status).toBe(403);
    });

    it('refuses a key without member:write with 403 naming the scope', async () => {
      const res = await add(k.read, 'c_bio', one('gate.read@example.org'));
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'forbidden', required_scope: 'member:write' });
    });

    it('answers 422 unprocessable while writes are not attested and the owner has no just-in-time consent', async () => {
      const res = await add(k.closed, 'c_closed', one('gate.closed@example.org'));
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('unprocessable');
      expect((await sys.clients.communities.listConsentRequests({ communityId: 'c_closed', pageSize: 0, pageToken: '', status: 0 }, operator)).requests).toEqual([]);
      expect(await count('c_closed')).toBe(0);
    });

    it('queues exactly one consent request across retries (owner_consent_required); approval lets the retry through', async () => {
      for (let i = 0; i < 3; i++) {
        const res = await add(k.jit, 'c_jit', one('jit.person@example.org'));
        expect(res.status).toBe(422);
        expect(res.body.error.code).toBe('owner_consent_required');
      }
      const list = async () => (await sys.clients.communities.listConsentRequests({ communityId: 'c_jit', pageSize: 0, pageToken: '', status: 0 }, operator)).requests;
      const pending = await list();
      expect(pending).toHaveLength(1);
      expect(pending[0]).toMatchObject({ communityId: 'c_jit', operation: 'members.add', status: ConsentStatus.CONSENT_STATUS_PENDING, requestedBy: 'k_jit' });
      expect(await count('c_jit')).toBe(0);

      // Another operation gets its own request.
      expect((await erase(k.jit, 'c_jit', 'p_claimed')).body.error.code).toBe('owner_consent_required');
      expect((await list()).map((r) => r.operation).sort()).toEqual(['members.add', 'members.remove']);

      const { request: approved } = await sys.clients.communities.resolveConsentRequest({ consentRequestId: pending[0]!.id, approve: true, actor: 'u_jit' }, operator);
      expect(approved).toMatchObject({ status: ConsentStatus.CONSENT_STATUS_APPROVED, resolvedBy: 'u_jit' });
      const retry = await add(k.jit, 'c_jit', one('jit.person@example.org'));
      expect(retry.status).toBe(200);
      expect(retry.body.results[0].status).toBe('added');
      // The approval covers members.add only.
      expect((await erase(k.jit, 'c_jit', retry.body.results[0].profile_id)).body.error.code).toBe('owner_consent_required');
      // Repeating the decision is harmless; reversing it is a conflict.
      await sys.clients.communities.resolveConsentRequest({ consentRequestId: pending[0]!.id, approve: true, actor: 'u_jit' }, operator);
      await expect(sys.clients.communities.resolveConsentRequest({ consentRequestId: pending[0]!.id, approve: false, actor: 'u_jit' }, operator))
        .rejects.toSatisfy((e) => readRemoteError(e)?.code === 'conflict');

      // A later attestation decision supersedes the approval: on, then off again.
      await sys.clients.communities.setApiWrites({ communityId: 'c_jit', enabled: true, actor: 'u_jit' }, operator);
      expect((await add(k.jit, 'c_jit', one('jit.second@example.org'))).status).toBe(200);
      await sys.clients.communities.setApiWrites({ communityId: 'c_jit', enabled: false, actor: 'u_jit' }, operator);
      expect((await add(k.jit, 'c_jit', one('jit.third@example.org'))).body.error.code).toBe('owner_consent_required');
    });

    it('a denied request keeps the write refused (422), and the next retry queues one new request', async () => {
      const first = await add(k.orgjit, 'c_orgjit', one('orgjit.person@example.org'));
      expect(first.status).toBe(422);
      expect(first.body.error.code).toBe('owner_consent_required');
      const [pending] = (await sys.clients.communities.listConsentRequests({ communityId: 'c_orgjit', pageSize: 0, pageToken: '', status: ConsentStatus.CONSENT_STATUS_PENDING }, operator)).requests;
      await sys.clients.communities.resolveConsentRequest({ consentRequestId: pending!.id, approve: false, actor: 'u_orgjit' }, operator);
      for (let i = 0; i < 2; i++) {
        const res = await add(k.orgjit, 'c_orgjit', one('orgjit.person@example.org'));
        expect(res.status).toBe(422);
        expect(res.body.error.code).toBe('owner_consent_required');
      }
      const all = (await sys.clients.communities.listConsentRequests({ communityId: 'c_orgjit', pageSize: 0, pageToken: '', status: 0 }, operator)).requests;
      expect(all.map((r) => r.status)).toEqual([ConsentStatus.CONSENT_STATUS_DENIED, ConsentStatus.CONSENT_STATUS_PENDING]);
      expect(await count('c_orgjit')).toBe(0);
    });

    it('pages the consent queue', async () => {
      // Its own requests, one per just-in-time community (a pending one is reused), so that it
      // stands alone: the queue has at least two to page through whatever ran before.
      for (const [key, community] of [[k.jit, 'c_jit'], [k.orgjit, 'c_orgjit']] as const) {
        const res = await add(key, community, one(`queue.${community}@example.org`));
        expect(res.body.error?.code).toBe('owner_consent_required');
      }
      const first = await sys.clients.communities.listConsentRequests({ communityId: '', pageSize: 1, pageToken: '', status: 0 }, operator);
      expect(first.requests).toHaveLength(1);
      expect(first.nextPageToken).not.toBe('');
      const seen = [first.requests[0]!.id];
      let token = first.nextPageToken;
      while (token) {
        const page = await sys.clients.communities.listConsentRequests({ communityId: '', pageSize: 1, pageToken: token, status: 0 }, operator);
        seen.push(...page.requests.map((r) => r.id));
        token = page.nextPageToken;
      }
      const all = await sys.clients.communities.listConsentRequests({ communityId: '', pageSize: 200, pageToken: '', status: 0 }, operator);
      expect(all.requests.length).toBeGreaterThanOrEqual(2);
      expect(seen).toEqual(all.requests.map((r) => r.id));
      expect(new Set(seen).size).toBe(seen.length);
    });
  });

  describe('erasure', () => {
    it('removes the membership only in this community while the placeholder is elsewhere too; then everything', async () => {
      const res = await add(k.manager, 'c_bio', { members: [{ email: 'erase.me@example.org', name: 'Erase Me' }] });
      const id = res.body.results[0].profile_id;
      await add(k.manager, 'c_chem', { members: [{ email: 'erase.me@example.org' }] });
      const accountId = (await profile(id))!.placeholderUserId;

      const first = await erase(k.manager, 'c_bio', id);
      expect(first.status).toBe(200);
      expect(first.body).toEqual({ community_id: 'c_bio', profile_id: id, erased: true, auth_account_deleted: false });
      expect(await membership('c_bio', id)).toBeUndefined();
      expect(await membership('c_chem', id)).toBeDefined();
      expect(await profile(id)).toBeDefined();
      expect(await user(accountId)).toBeDefined();
      const enrichment = await sys.clients.enrichment.getMemberEnrichment({ communityId: 'c_bio', profileId: id }, service);
      expect(enrichment.enrichment).toBeUndefined();

      expect((await erase(k.manager, 'c_bio', id)).status).toBe(404);

      const last = await erase(k.manager, 'c_chem', id);
      expect(last.body).toEqual({ community_id: 'c_chem', profile_id: id, erased: true, auth_account_deleted: true });
      expect(await membership('c_chem', id)).toBeUndefined();
      expect(await profile(id)).toBeUndefined();
      expect(await user(accountId)).toBeUndefined();
    });

    it('never deletes a claimed person’s account or profile', async () => {
      const res = await erase(k.manager, 'c_bio', 'p_claimed');
      expect(res.body).toEqual({ community_id: 'c_bio', profile_id: 'p_claimed', erased: true, auth_account_deleted: false });
      expect(await membership('c_bio', 'p_claimed')).toBeUndefined();
      expect(await membership('c_chem', 'p_claimed')).toBeDefined();
      expect(await user('u_claimed')).toBeDefined();
      const last = await erase(k.manager, 'c_chem', 'p_claimed');
      expect(last.body.auth_account_deleted).toBe(false);
      expect(await user('u_claimed')).toBeDefined();
      expect(await profile('p_claimed')).toBeDefined();
    });

    it('removes a seeded placeholder that had no auth account (auth_account_deleted false)', async () => {
      const res = await erase(k.cadmin, 'c_bio', 'p_seeded');
      expect(res.body).toEqual({ community_id: 'c_bio', profile_id: 'p_seeded', erased: true, auth_account_deleted: false });
      expect(await profile('p_seeded')).toBeUndefined();
    });

    it('answers 404 for a person who is not a member, and 403 before that for a caller without write reach', async () => {
      expect((await erase(k.manager, 'c_bio', 'p_nobody')).body.error.code).toBe('not_found');
      expect((await erase(k.manager, 'c_bio', 'p_nobody')).status).toBe(404);
      expect((await erase(k.member, 'c_bio', 'p_nobody')).status).toBe(403);
    });

    it('identity: a placeholder account is idempotent by profile, and a real account is never deleted', async () => {
      const a = await sys.clients.identity.createPlaceholderAccount({ profileId: 'p_direct', email: 'Direct@Example.org', name: 'Direct' }, service);
      const b = await sys.clients.identity.createPlaceholderAccount({ profileId: 'p_direct', email: 'direct@example.org', name: 'Direct' }, service);
      expect(b.userId).toBe(a.userId);
      expect(await user(a.userId)).toMatchObject({ email: 'direct@example.org' });
      expect((await sys.clients.identity.deletePlaceholderAccount({ userId: 'u_claimed', profileId: '' }, service)).deleted).toBe(false);
      expect(await user('u_claimed')).toBeDefined();
      expect((await sys.clients.identity.deletePlaceholderAccount({ userId: '', profileId: 'p_direct' }, service)).deleted).toBe(true);
      expect((await sys.clients.identity.deletePlaceholderAccount({ userId: a.userId, profileId: 'p_direct' }, service)).deleted).toBe(false);
      expect(await user(a.userId)).toBeUndefined();
    });

    // Rows are placed with a second connection, which an in-memory PGlite cannot give.
    if (store === 'postgres') {
      it('erases this community’s search documents and enrichment data, and no other community’s', async () => {
        const res = await add(k.manager, 'c_bio', { members: [{ email: 'with.data@example.org', name: 'With Data' }] });
        const id = res.body.results[0].profile_id;
        await add(k.manager, 'c_chem', { members: [{ email: 'with.data@example.org' }] });
        const db = new pg.Client({ connectionString: sys.env.DATABASE_URL });
        await db.connect();
        try {
          for (const community of ['c_bio', 'c_chem']) {
            // Adding the person indexed it already; the row is made certain either way.
            await db.query(
              `INSERT INTO search.documents (community_id, profile_id, name) VALUES ($1, $2, 'With Data') ON CONFLICT (community_id, profile_id) DO NOTHING`,
              [community, id],
            );
            await db.query(`INSERT INTO enrichment.member_enrichment (community_id, profile_id, depth, data) VALUES ($1, $2, 'quick', '{"k":1}')`, [community, id]);
          }
          expect((await erase(k.manager, 'c_bio', id)).status).toBe(200);
          const docs = await db.query('SELECT community_id FROM search.documents WHERE profile_id = $1', [id]);
          expect(docs.rows.map((r) => r.community_id)).toEqual(['c_chem']);
          expect((await sys.clients.enrichment.getMemberEnrichment({ communityId: 'c_bio', profileId: id }, service)).enrichment).toBeUndefined();
          expect((await sys.clients.enrichment.getMemberEnrichment({ communityId: 'c_chem', profileId: id }, service)).enrichment).toBeDefined();
          const source = await db.query('SELECT community_id FROM communities.memberships WHERE profile_id = $1', [id]);
          expect(source.rows.map((r) => r.community_id)).toEqual(['c_chem']);
        } finally {
          await db.end();
        }
      });

      it('a retried erasure finds the membership gone, still erases what was written meanwhile, and answers 404', async () => {
        const res = await add(k.manager, 'c_bio', { members: [{ email: 'late.write@example.org', name: 'Late Write' }] });
        const id = res.body.results[0].profile_id;
        await add(k.manager, 'c_chem', { members: [{ email: 'late.write@example.org' }] });
        expect((await erase(k.manager, 'c_bio', id)).status).toBe(200);
        const db = new pg.Client({ connectionString: sys.env.DATABASE_URL });
        await db.connect();
        try {
          // What a crash between the membership's removal and the erasure's last step could leave.
          await db.query(`INSERT INTO search.documents (community_id, profile_id, name) VALUES ('c_bio', $1, 'Late Write')`, [id]);
          await db.query(`INSERT INTO enrichment.member_enrichment (community_id, profile_id, depth, data) VALUES ('c_bio', $1, 'quick', '{"k":1}')`, [id]);
          expect((await erase(k.manager, 'c_bio', id)).status).toBe(404);
          const docs = await db.query('SELECT community_id FROM search.documents WHERE profile_id = $1', [id]);
          expect(docs.rows.map((r) => r.community_id)).toEqual(['c_chem']);
          const data = await db.query('SELECT community_id FROM enrichment.member_enrichment WHERE profile_id = $1', [id]);
          expect(data.rows).toEqual([]);
        } finally {
          await db.end();
        }
      });
    }
  });
});
