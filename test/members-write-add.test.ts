// Bulk member adds over real HTTP: per-item results, matching existing people, placeholders, refusals
// that add nothing, Idempotency-Key and concurrency. State is checked through the services' operator
// reads (and, on PostgreSQL, the rows themselves).
import { describe, expect, it } from 'vitest';
import { LEASE_SECONDS } from '../gateway/core/idempotency/policy.js';
import { Role } from '../proto/gen/expertnet/common/v1/common.js';
import { readRemoteError } from '../services/kit/grpc/errors.js';
import { bearer, request } from './helpers/http.js';
import { storeNames } from './helpers/stores.js';
import { k, membersWriteSuite, orcid } from './helpers/members-write-suite.js';

describe.each(storeNames())('member writes on %s', (store) => {
  const { system, add, count, membership, profile, user, asCaller } = membersWriteSuite(store);

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
      expect(p).toMatchObject({ userId: undefined, name: 'Ada P', headline: 'Enzymes', location: 'Oslo', email: 'ada.placeholder@example.org' });
      expect(p.placeholderUserId).toMatch(/\S/);
      expect(await user(p.placeholderUserId!)).toMatchObject({ name: 'Ada P', email: 'ada.placeholder@example.org' });
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

      it('tries email first, then LinkedIn, then ORCID', async () => {
        const a = (await add(k.manager, 'c_chem', { members: [{ email: 'prio.a@example.org' }] })).body.results[0].profile_id;
        const b = (await add(k.manager, 'c_chem', { members: [{ orcid: orcid('000000029999999') }] })).body.results[0].profile_id;
        const both = await add(k.manager, 'c_chem', { members: [{ email: 'prio.a@example.org', orcid: orcid('000000029999999') }] });
        expect(both.body.results[0].profile_id).toBe(a);
        const byOrcid = await add(k.manager, 'c_chem', { members: [{ email: 'unknown.prio@example.org', orcid: orcid('000000029999999') }] });
        expect(byOrcid.body.results[0]).toMatchObject({ status: 'already_member', profile_id: b });
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
        const tooMany = system().clients.communities.addMembers({ communityId: 'c_bio', role: Role.ROLE_MEMBER, members: Array.from({ length: 101 }, (_, i) => item(i)) }, as);
        await expect(tooMany).rejects.toSatisfy((e) => readRemoteError(e)?.code === 'invalid_request');
        const owner = system().clients.communities.addMembers({ communityId: 'c_bio', role: Role.ROLE_OWNER, members: [item(1)] }, as);
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
        request(system().restUrl, 'DELETE', `/v1/communities/c_bio/members/${id}`, { headers: { ...bearer(k.manager), ...h } });
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
      // Exactly two people joined: the one execution's (a second would only have found them).
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
});
