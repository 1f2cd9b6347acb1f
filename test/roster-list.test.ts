// The roster list over real HTTP: the page shape, keyset paging (sizes, clamping, tamper-proof
// cursors, changes between pages) and the exact order of members who joined together.
import { describe, expect, it } from 'vitest';
import { OwnerType, Role } from '../proto/gen/expertnet/common/v1/common.js';
import { bearer, request, type JsonResponse } from './helpers/http.js';
import { at, BIO_ORDER, expectError, FLUX, k, rosterSystem } from './helpers/roster-system.js';
import { storeNames } from './helpers/stores.js';

describe.each(storeNames())('roster reads on %s', (store) => {
  const { system, sql, operator, roster, member, allPages, addMember } = rosterSystem(store);

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
      await system().clients.communities.upsertCommunity(
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
        const res = await request(system().restUrl, 'DELETE', `/v1/communities/c_flux/members/${profile}`, { headers: bearer(k.writer) });
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

    it('shows every change to a page read before on the very next read: a profile, a role, a member added, one removed', async () => {
      const page = async () => (await roster(k.manager, 'c_kept', '?limit=10')).body.members as Array<Record<string, unknown>>;
      const names = async () => (await page()).map((m) => `${m.profile_id} ${m.name} ${m.role}`);
      expect(await names()).toEqual(['p_k1 Kept p_k1 member', 'p_k2 Kept p_k2 member', 'p_k3 Kept p_k3 member']);
      expect(await names()).toEqual(['p_k1 Kept p_k1 member', 'p_k2 Kept p_k2 member', 'p_k3 Kept p_k3 member']);

      const options = await operator();
      const { profile } = await system().clients.communities.getProfile({ profileId: 'p_k1' }, options);
      await system().clients.communities.upsertProfile({ profile: { ...profile!, name: 'Renamed One' } }, options);
      expect((await names())[0]).toBe('p_k1 Renamed One member');

      await system().clients.communities.upsertMembership(
        { membership: { communityId: 'c_kept', profileId: 'p_k3', role: Role.ROLE_ADMIN, joinedAt: at(32), sourceIdentifier: '' } },
        options,
      );
      expect((await names())[2]).toBe('p_k3 Kept p_k3 admin');

      await addMember('c_kept', 'p_k4', at(33));
      expect((await page()).map((m) => m.profile_id)).toEqual(['p_k1', 'p_k2', 'p_k3', 'p_k4']);

      const removed = await request(system().restUrl, 'DELETE', '/v1/communities/c_kept/members/p_k2', { headers: bearer(k.writer) });
      expect(removed.status, JSON.stringify(removed.body)).toBe(200);
      expect((await page()).map((m) => m.profile_id)).toEqual(['p_k1', 'p_k3', 'p_k4']);

      // A change made in the store by hand, behind every service, is seen as soon.
      if (store === 'postgres') {
        await sql()!.query(`UPDATE communities.profiles SET headline = 'Mycologist' WHERE id = 'p_k4'`);
        expect((await page()).find((m) => m.profile_id === 'p_k4')?.headline).toBe('Mycologist');
      }
    });

    // Needs a second connection to the same database, which an in-memory PGlite cannot give.
    if (store === 'postgres') {
      it('orders members who joined within the same millisecond exactly (microsecond cursor)', async () => {
        const ids = ['p_us_c', 'p_us_a', 'p_us_b'];
        for (const id of ids) await addMember('c_bio', id, at(500));
        // Same millisecond, different microseconds, reverse of id order: the keyset must follow joined_at.
        await sql()!.query(
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
          await sql()!.query(`DELETE FROM communities.memberships WHERE community_id = 'c_bio' AND profile_id = ANY($1)`, [ids]);
        }
      });
    }
  });
});
