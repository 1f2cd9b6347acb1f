// The member read over real HTTP: the published shapes of both roster views, the member with its
// membership, claimed state and this community's enrichment, and the 404/400 answers.
import { describe, expect, it } from 'vitest';
import { at, expectError, k, rosterSystem } from './helpers/roster-system.js';
import { storeNames } from './helpers/stores.js';

describe.each(storeNames())('roster reads on %s', (store) => {
  const { sql, roster, member } = rosterSystem(store);

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
        await sql()!.query(
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
});
