// The events of searches and enrichment runs over real HTTP on every store (docs/WEBHOOKS.md): each
// end is recorded once through its service's outbox, relayed into the event log, with the poll's
// body as its data; a search's events are the starting key's, a self run's its person's, a
// community run's those reaching the community with enrich:read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { SCOPES } from '../services/kit/scopes.js';
import { bearer, request, type JsonResponse } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { storeNames } from './helpers/stores.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';
import { until } from './helpers/until.js';

const k = { ada: liveKey(), ada2: liveKey(), bob: liveKey(), rosterOnly: liveKey() };
const rate = { requested_rate: 6000 };
const seed: SeedInput = {
  users: [
    { id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' },
    { id: 'u_bob', email: 'bob@example.org', name: 'Bob', plan: 'paid' },
  ],
  communities: [{ id: 'c_lab', name: 'Lab', owner: { user: 'u_ada' }, api_writes: true }],
  profiles: [
    { id: 'p_ada', user: 'u_ada', name: 'Ada Lovelace', headline: 'Analytical engines' },
    { id: 'p_one', name: 'One Person', headline: 'Protein folding' },
    { id: 'p_two', name: 'Two Person', headline: 'Sea ice models' },
  ],
  memberships: [
    { community: 'c_lab', profile: 'p_ada', role: 'owner' },
    { community: 'c_lab', profile: 'p_one' },
    { community: 'c_lab', profile: 'p_two' },
  ],
  keys: [
    { id: 'k_ada', secret: k.ada, owner: { user: 'u_ada' }, scopes: [...SCOPES], ...rate },
    { id: 'k_ada2', secret: k.ada2, owner: { user: 'u_ada' }, scopes: [...SCOPES], ...rate },
    { id: 'k_bob', secret: k.bob, owner: { user: 'u_bob' }, scopes: [...SCOPES], ...rate },
    { id: 'k_roster_only', secret: k.rosterOnly, owner: { user: 'u_ada' }, scopes: ['profile:read', 'webhooks:read'], ...rate },
  ],
};

describe.each(storeNames())('search and run events on %s', (store) => {
  let sys: TestSystem;
  const get = (secret: string, path: string) => request(sys.restUrl, 'GET', path, { headers: bearer(secret) });
  const post = (path: string, body?: unknown) => request(sys.restUrl, 'POST', path, { headers: bearer(k.ada), body });
  const eventsOf = async (secret: string) => (await get(secret, '/v1/events?limit=100')).body.events as Array<{ id: string; type: string; data: any }>;

  // A search, a self run and a community run, each polled to its end, and their events relayed.
  let search: JsonResponse;
  let selfRun: JsonResponse;
  let communityRun: JsonResponse;
  beforeAll(async () => {
    sys = await startTestSystem({ store, seed, env: { ORCID_API_URL: 'off', OPENALEX_API_URL: 'off' } });
    const started = await post('/v1/search', { query: 'protein folding', scope: 'community', community_id: 'c_lab', wait_seconds: 0 });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    search = await until(() => get(k.ada, `/v1/search/${started.body.search_id}`), (r) => r.body.status !== 'running');
    const self = await post('/v1/me/enrich');
    expect(self.status, JSON.stringify(self.body)).toBe(202);
    selfRun = await until(() => get(k.ada, `/v1/me/enrich/runs/${self.body.run_id}`), (r) => ['succeeded', 'failed'].includes(r.body.status));
    const lab = await post('/v1/communities/c_lab/enrich', { depth: 'quick' });
    expect(lab.status, JSON.stringify(lab.body)).toBe(202);
    communityRun = await until(() => get(k.ada, `/v1/communities/c_lab/enrich/runs/${lab.body.run_id}`), (r) => ['succeeded', 'failed'].includes(r.body.status));
    await until(() => get(k.ada, '/v1/events?limit=100'), (r) => r.body.events.length === 3);
  }, 180_000);
  afterAll(async () => {
    await sys?.stop();
  });

  it('records each end once, with the poll’s body as its data', async () => {
    const seen = await eventsOf(k.ada);
    expect(seen.map((e) => e.type).sort()).toEqual(
      [`search.${search.body.status === 'complete' ? 'completed' : 'failed'}`, `self_enrichment_run.${selfRun.body.status}`, `enrichment_run.${communityRun.body.status}`].sort(),
    );
    expect(seen.find((e) => e.type.startsWith('search.'))!.data).toEqual(search.body);
    expect(seen.find((e) => e.type.startsWith('self_enrichment_run.'))!.data).toEqual(selfRun.body);
    expect(seen.find((e) => e.type.startsWith('enrichment_run.'))!.data).toEqual(communityRun.body);
    // Every outbox row was relayed and deleted; the log holds each once.
    for (const outbox of ['search.event_outbox', 'enrichment.event_outbox']) {
      expect(await sys.db!.query(`SELECT id FROM ${outbox}`)).toEqual([]);
    }
    const logged = await sys.db!.query<{ n: number }>('SELECT count(*)::int8 AS n FROM communities.events');
    expect(Number(logged[0]!.n)).toBe(3);
  });

  it('shows a search’s events to the key that started it only, and run events where the run is readable', async () => {
    const mine = await eventsOf(k.ada);
    const searchEvent = mine.find((e) => e.type.startsWith('search.'))!;
    // Another key of the same person: the runs (its person, its community), not the search.
    expect((await eventsOf(k.ada2)).map((e) => e.id).sort()).toEqual(mine.filter((e) => e !== searchEvent).map((e) => e.id).sort());
    expect((await get(k.ada2, `/v1/events/${searchEvent.id}`)).status).toBe(404);
    expect((await get(k.ada, `/v1/events/${searchEvent.id}`)).body).toEqual(searchEvent);
    // Another person, and a key without the runs' and the search's scopes: nothing.
    for (const secret of [k.bob, k.rosterOnly]) {
      expect(await eventsOf(secret)).toEqual([]);
      for (const e of mine) expect((await get(secret, `/v1/events/${e.id}`)).status).toBe(404);
    }
  });

  it('filters by type', async () => {
    const runs = await get(k.ada, `/v1/events?type=enrichment_run.${communityRun.body.status}`);
    expect(runs.body.events.map((e: { data: { run_id: string } }) => e.data.run_id)).toEqual([communityRun.body.run_id]);
    expect(runs.body.next_cursor).toBeNull();
  });
});
