// What adding people by identifier discloses, over real HTTP on every store (docs/COMMUNITIES.md
// "What a community sees of a person it added"): the per-item results look the same whether an
// identifier matched a registered person or made a new placeholder, and the community's reads
// (member read, roster, its search) show a private person it added only as it described them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { bearer, request, type JsonResponse } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { storeNames } from './helpers/stores.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const adminKey = liveKey();

const seed: SeedInput = {
  users: [
    { id: 'u_admin', email: 'admin@example.org', name: 'Admin' },
    { id: 'u_private', email: 'priya@example.org', name: 'Priya Private' },
    { id: 'u_public', email: 'pat@example.org', name: 'Pat Public' },
  ],
  // One community per test, so each stands alone; c_home holds the private person by seed.
  communities: ['c_results', 'c_read', 'c_fresh', 'c_search', 'c_public', 'c_home'].map((id) => ({
    id, name: id, owner: { user: 'u_admin' as const }, api_writes: true,
  })),
  profiles: [
    { id: 'p_admin', user: 'u_admin', name: 'Admin', public: true },
    {
      id: 'p_private', user: 'u_private', public: false, name: 'Priya Private', headline: 'Confidential headline',
      bio: 'Confidential biography about zymurgy', organization: 'Confidential Org', location: 'Hidden City',
      email: 'priya@example.org', orcid: '0000-0002-1825-0097', avatar_url: 'https://avatars.example.org/priya.png',
    },
    { id: 'p_public', user: 'u_public', public: true, name: 'Pat Public', headline: 'Public headline about glaciers', email: 'pat@example.org' },
  ],
  memberships: [
    { community: 'c_home', profile: 'p_private', role: 'member' },
  ],
  keys: [{ id: 'k_admin', secret: adminKey, owner: { user: 'u_admin' }, scopes: ['member:write', 'profile:read', 'search:read'], requested_rate: 6000 }],
};

/** A member read as the privacy rule allows it: only what the community supplied. */
const ONLY_SUPPLIED = { user_id: null, claimed: false, bio: null, organization: null, location: null, avatar_url: null, linkedin_url: null, orcid: null };

describe.each(storeNames())('privacy of adding by identifier on %s', (store) => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem({ store, seed });
  });
  afterAll(async () => sys?.stop());

  const add = (community: string, members: unknown[]) =>
    request(sys.restUrl, 'POST', `/v1/communities/${community}/members`, { headers: bearer(adminKey), body: { members } });
  const member = (community: string, profileId: string) =>
    request(sys.restUrl, 'GET', `/v1/communities/${community}/members/${profileId}`, { headers: bearer(adminKey) });
  async function search(community: string, query: string): Promise<string[]> {
    let res: JsonResponse = await request(sys.restUrl, 'POST', '/v1/search', {
      headers: bearer(adminKey), body: { query, scope: 'community', community_id: community, limit: 50 },
    });
    for (let i = 0; i < 200 && (res.status === 202 || res.body.status === 'running'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      res = await request(sys.restUrl, 'GET', `/v1/search/${res.body.search_id}`, { headers: bearer(adminKey) });
    }
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return (res.body.matches as Array<{ profile_id: string }>).map((m) => m.profile_id);
  }

  it('answers a registered person’s email and a new one alike: status added, a profile id, no error', async () => {
    const res = await add('c_results', [
      { email: 'PRIYA@example.org', name: 'P. Registered' },
      { email: 'nobody.yet@example.org', name: 'P. Unknown' },
    ]);
    expect(res.status).toBe(200);
    const [matched, created] = res.body.results;
    for (const [index, result] of [matched, created].entries()) {
      expect(Object.keys(result).sort()).toEqual(['error', 'index', 'profile_id', 'status']);
      expect(result).toMatchObject({ index, status: 'added', error: null });
      expect(result.profile_id).toMatch(/^p_/);
    }
  });

  it('the member read and the roster show a private person added by email only as this community described them', async () => {
    const res = await add('c_read', [{ email: 'priya@example.org', name: 'Dr. P', headline: 'Brewing chemist' }]);
    const id = res.body.results[0].profile_id;
    const read = await member('c_read', id);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ profile_id: id, name: 'Dr. P', headline: 'Brewing chemist', role: 'member', ...ONLY_SUPPLIED });
    expect(JSON.stringify(read.body)).not.toMatch(/Confidential|Priya|Hidden City|avatars\.example|0000-0002-1825-0097/);

    const roster = await request(sys.restUrl, 'GET', '/v1/communities/c_read/members?limit=200', { headers: bearer(adminKey) });
    const entry = roster.body.members.find((m: { profile_id: string }) => m.profile_id === id);
    expect(entry).toMatchObject({ name: 'Dr. P', headline: 'Brewing chemist', organization: null, location: null, avatar_url: null, user_id: null });
  });

  it('a newly made placeholder reads the same way as a matched private person', async () => {
    const res = await add('c_fresh', [{ email: 'fresh.person@example.org', name: 'Dr. F', headline: 'Brewing chemist' }]);
    const read = await member('c_fresh', res.body.results[0].profile_id);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ name: 'Dr. F', headline: 'Brewing chemist', role: 'member', ...ONLY_SUPPLIED });
  });

  it('the community’s search finds a private person it added by what it supplied, never by their own profile text', async () => {
    const res = await add('c_search', [{ email: 'priya@example.org', name: 'Dr. P', headline: 'Fermentation kinetics consultant' }]);
    const id = res.body.results[0].profile_id;
    expect(await search('c_search', 'fermentation kinetics')).toContain(id);
    expect(await search('c_search', 'zymurgy')).not.toContain(id);
    expect(await search('c_search', 'Confidential Org')).not.toContain(id);
  });

  it('a person whose profile is public is shown as they are; a membership from the seed shows the whole profile', async () => {
    const res = await add('c_public', [{ email: 'pat@example.org', name: 'Someone' }]);
    const read = await member('c_public', res.body.results[0].profile_id);
    expect(read.body).toMatchObject({ profile_id: 'p_public', name: 'Pat Public', headline: 'Public headline about glaciers', claimed: true, user_id: 'u_public' });
    const home = await member('c_home', 'p_private');
    expect(home.body).toMatchObject({ name: 'Priya Private', headline: 'Confidential headline', organization: 'Confidential Org' });
  });
});
