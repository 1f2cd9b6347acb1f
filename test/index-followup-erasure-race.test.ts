// A person erased while an add's search indexing of them is under way keeps no document. The
// indexing reads the membership, then calls the search service; here the erasure runs to its end
// (REST, the real saga with its second erase) inside that call, just before the upsert reaches
// search, so the upsert lands after everything the erasure did. The follow-up then sees the
// membership gone and erases the document itself. And an index call for a person who is no longer
// a member writes no document at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { createCommunitiesContext, type CommunitiesContext } from '../services/communities/communities-context.js';
import { createIndexFollowupRepository } from '../services/communities/index-followup.repository.js';
import { runIndexFollowups } from '../services/communities/index-followup.js';
import { indexMemberships } from '../services/communities/search-index.js';
import type { ServiceClients } from '../services/kit/grpc/client.js';
import { createLogger } from '../services/kit/logger.js';
import { bearer, request } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { storeNames } from './helpers/stores.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const writer = liveKey();
const seed: SeedInput = {
  users: [{ id: 'u_manager', email: 'manager@example.org', name: 'Manager', plan: 'paid' }],
  organizations: [{ id: 'o_lab', name: 'Lab', members: [{ user: 'u_manager', role: 'admin' }] }],
  communities: [
    { id: 'c_bio', name: 'Biology', owner: { organization: 'o_lab' }, api_writes: true },
    { id: 'c_chem', name: 'Chemistry', owner: { organization: 'o_lab' }, api_writes: true },
  ],
  // In two communities, so erasing them from one keeps their profile.
  profiles: [{ id: 'p_both', name: 'Cornelius Tibbleworth', headline: 'Soil chemistry' }],
  memberships: [{ community: 'c_bio', profile: 'p_both', role: 'member' }, { community: 'c_chem', profile: 'p_both', role: 'member' }],
  keys: [{ id: 'k_writer', secret: writer, owner: { user: 'u_manager' }, scopes: ['member:write', 'search:read', 'profile:read'], requested_rate: 6000 }],
};

describe.each(storeNames())('an index follow-up racing an erasure, on %s', (store) => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem({ store, seed });
  }, 300_000);
  afterAll(async () => {
    await sys?.stop();
  });

  const add = async (name: string): Promise<string> => {
    const res = await request(sys.restUrl, 'POST', '/v1/communities/c_bio/members', { headers: bearer(writer), body: { members: [{ name }] } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.results[0].profile_id as string;
  };
  const erase = async (profileId: string) => {
    const res = await request(sys.restUrl, 'DELETE', `/v1/communities/c_bio/members/${profileId}`, { headers: bearer(writer) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  };
  const documents = async (profileId: string) =>
    (await sys.db!.query<{ community_id: string }>('SELECT community_id FROM search.documents WHERE profile_id = $1', [profileId])).map((d) => d.community_id);
  /** The communities context over the system's own clients, with `search` replaced by `search(real)`. */
  const contextWith = (search: (real: ServiceClients['search']) => ServiceClients['search']): CommunitiesContext => {
    const clients = { ...sys.clients, search: search(sys.clients.search) } as ServiceClients;
    return createCommunitiesContext({ db: sys.db!, clients, signer: sys.signer, deadlineMs: 10_000, logger: createLogger('silent'), pepper: sys.secrets.apiKeyPepper });
  };

  it('the erasure completes while the index call is on its way: no document remains', async () => {
    const person = await add('Wilhelmina Farrowdale');
    expect(await documents(person)).toEqual(['c_bio']);
    // The follow-up owed again, as after a failed attempt, then run with the erasure in its index call.
    await createIndexFollowupRepository(sys.db!).add('c_bio', person);
    let erasedInside = false;
    const context = contextWith((real) => ({
      ...real,
      indexDocuments: async (req, options) => {
        await erase(person);
        erasedInside = true;
        expect(await documents(person)).toEqual([]);
        return real.indexDocuments(req, options);
      },
    }));
    expect(await runIndexFollowups(context, 'c_bio', [person])).toBe(true);
    expect(erasedInside).toBe(true);
    expect(await documents(person)).toEqual([]);
    expect((await request(sys.restUrl, 'GET', `/v1/communities/c_bio/members/${person}`, { headers: bearer(writer) })).status).toBe(404);
  });

  it('indexing a person who is no longer a member writes no document', async () => {
    const person = 'p_both';
    expect((await documents(person)).sort()).toEqual(['c_bio', 'c_chem']);
    await erase(person);
    expect(await documents(person)).toEqual(['c_chem']);
    const context = contextWith((real) => real);
    await createIndexFollowupRepository(sys.db!).add('c_bio', person);
    expect(await runIndexFollowups(context, 'c_bio', [person])).toBe(true);
    await indexMemberships(context, 'c_bio', [person], undefined);
    expect(await documents(person)).toEqual(['c_chem']);
    expect(await sys.db!.query('SELECT 1 FROM communities.index_followups WHERE profile_id = $1', [person])).toEqual([]);
  });
});
