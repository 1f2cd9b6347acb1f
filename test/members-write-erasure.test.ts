// Community-scoped erasure over real HTTP: a membership goes in this community only, a placeholder
// with no other membership goes entirely, and what remains is checked through the operator reads.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { storeNames } from './helpers/stores.js';
import { k, membersWriteSuite } from './helpers/members-write-suite.js';

describe.each(storeNames())('member writes on %s', (store) => {
  const { system, service, add, erase, membership, profile, user } = membersWriteSuite(store);

  describe('erasure', () => {
    it('removes the membership only in this community while the placeholder is elsewhere too; then everything', async () => {
      const res = await add(k.manager, 'c_bio', { members: [{ email: 'erase.me@example.org', name: 'Erase Me' }] });
      const id = res.body.results[0].profile_id;
      await add(k.manager, 'c_chem', { members: [{ email: 'erase.me@example.org' }] });
      const accountId = (await profile(id))!.placeholderUserId!;

      const first = await erase(k.manager, 'c_bio', id);
      expect(first.status).toBe(200);
      expect(first.body).toEqual({ community_id: 'c_bio', profile_id: id, erased: true, auth_account_deleted: false });
      expect(await membership('c_bio', id)).toBeUndefined();
      expect(await membership('c_chem', id)).toBeDefined();
      expect(await profile(id)).toBeDefined();
      expect(await user(accountId)).toBeDefined();
      const enrichment = await system().clients.enrichment.getMemberEnrichment({ communityId: 'c_bio', profileId: id }, service());
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
      const a = await system().clients.identity.createPlaceholderAccount({ profileId: 'p_direct', email: 'Direct@Example.org', name: 'Direct' }, service());
      const b = await system().clients.identity.createPlaceholderAccount({ profileId: 'p_direct', email: 'direct@example.org', name: 'Direct' }, service());
      expect(b.userId).toBe(a.userId);
      expect(await user(a.userId)).toMatchObject({ email: 'direct@example.org' });
      expect((await system().clients.identity.deletePlaceholderAccount({ userId: 'u_claimed', profileId: '' }, service())).deleted).toBe(false);
      expect(await user('u_claimed')).toBeDefined();
      expect((await system().clients.identity.deletePlaceholderAccount({ userId: '', profileId: 'p_direct' }, service())).deleted).toBe(true);
      expect((await system().clients.identity.deletePlaceholderAccount({ userId: a.userId, profileId: 'p_direct' }, service())).deleted).toBe(false);
      expect(await user(a.userId)).toBeUndefined();
    });

    // Rows are placed with a second connection, which an in-memory PGlite cannot give.
    if (store === 'postgres') {
      it('erases this community’s search documents and enrichment data, and no other community’s', async () => {
        const res = await add(k.manager, 'c_bio', { members: [{ email: 'with.data@example.org', name: 'With Data' }] });
        const id = res.body.results[0].profile_id;
        await add(k.manager, 'c_chem', { members: [{ email: 'with.data@example.org' }] });
        const db = new pg.Client({ connectionString: system().env.DATABASE_URL });
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
          expect((await system().clients.enrichment.getMemberEnrichment({ communityId: 'c_bio', profileId: id }, service())).enrichment).toBeUndefined();
          expect((await system().clients.enrichment.getMemberEnrichment({ communityId: 'c_chem', profileId: id }, service())).enrichment).toBeDefined();
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
        const db = new pg.Client({ connectionString: system().env.DATABASE_URL });
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
