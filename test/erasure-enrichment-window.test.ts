// Community-scoped erasure against an enrichment run started in its window (docs/COMMUNITIES.md,
// erasure step 3b; step 4 in services/communities/erasure.ts): a run started after the erasure's enrichment step but before the membership is
// removed selects the person while they are still a member. The erasure's second enrichment erase
// must end that person's item, so the run never writes their data back nor charges for them.
//
// The interleaving is made certain, with every service, gRPC call and store real:
// - the communities service reads its clients through the system's client set on every call, so
//   the suite swaps in an enrichment client that, right after the real first erase answers, starts
//   a run for the person over HTTP (as a user would) and waits until the run's worker is inside its
//   provider calls for them (past its membership read) before handing the answer to the erasure
//   (the test asserts that this happened, so it cannot pass without the interleaving);
// - the provider replay holds its answers until the erasure has answered, so the worker writes
//   its result only after the erasure is complete.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { startEnrichmentSystem, type EnrichmentSystem } from './helpers/enrichment-system.js';
import { bearer, request, type JsonResponse } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { storeNames } from './helpers/stores.js';

const secret = liveKey();
const COMMUNITY = 'c_glacier';
const PERSON = 'p_window';
const QUERY = { query: 'glaciologist ice sheet dynamics', scope: 'community', community_id: COMMUNITY };

const seed: SeedInput = {
  users: [{ id: 'u_owner', email: 'owner@example.org', name: 'Owner', plan: 'paid' }],
  organizations: [{ id: 'o_lab', name: 'Lab', members: [{ user: 'u_owner', role: 'owner' }] }],
  communities: [{ id: COMMUNITY, name: 'Glacier Lab', owner: { organization: 'o_lab' }, api_writes: true }],
  profiles: [
    { id: PERSON, name: 'Ingrid Solberg', headline: 'Glaciologist studying ice sheet dynamics', bio: 'Models ice sheet dynamics in Greenland.' },
    { id: 'p_stays', name: 'Other Member', headline: 'Hydrologist', bio: 'Studies rivers.' },
  ],
  memberships: [
    { community: COMMUNITY, profile: PERSON, role: 'member' },
    { community: COMMUNITY, profile: 'p_stays', role: 'member' },
  ],
  wallets: [{ owner: { organization: 'o_lab' }, balance: 10_000 }, { owner: { user: 'u_owner' }, balance: 10_000 }],
  keys: [{
    id: 'k_owner',
    secret,
    owner: { user: 'u_owner' },
    scopes: ['member:write', 'enrich:write', 'enrich:read', 'profile:read', 'search:read'],
    requested_rate: 6000,
  }],
};

async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe.each(storeNames())('erasure racing an enrichment run on %s', (store) => {
  let sys: EnrichmentSystem;
  let release!: () => void;
  const hold = new Promise<void>((resolve) => (release = resolve));
  beforeAll(async () => {
    // A long provider timeout: the held answer must not time out on a busy machine.
    sys = await startEnrichmentSystem({ store, seed, replay: { hold }, env: { ENRICHMENT_HTTP_TIMEOUT_MS: '60000' } });
  }, 120_000);
  afterAll(async () => {
    release?.();
    await sys?.stop();
  });

  const call = (method: string, path: string, body?: unknown) => request(sys.restUrl, method, path, { headers: bearer(secret), body });
  async function searchedIds(): Promise<string[]> {
    let res = await call('POST', '/v1/search', QUERY);
    if (res.status === 202) res = await waitFor('the search', async () => {
      const polled = await call('GET', `/v1/search/${res.body.search_id}`);
      return polled.body.status === 'running' || polled.body.status === 'pending' ? undefined : polled;
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return (res.body.matches as Array<{ profile_id: string }>).map((m) => m.profile_id);
  }

  it('a run started between the enrichment erase and the membership removal skips the erased person: member read 404, no data written back, no charge, not searchable', async () => {
    expect(await searchedIds()).toContain(PERSON);

    // The communities service's enrichment client, wrapped around the real one (see the header).
    const real = sys.clients.enrichment;
    const window: { start?: JsonResponse; workerInProviders?: boolean; erases: number } = { erases: 0 };
    sys.clients.enrichment = new Proxy(real, {
      get(target, name, receiver) {
        if (name !== 'eraseMemberEnrichment') return Reflect.get(target, name, receiver);
        return async (...args: Parameters<typeof real.eraseMemberEnrichment>) => {
          const answer = await target.eraseMemberEnrichment(...args);
          if (args[0].profileId === PERSON && ++window.erases === 1) {
            window.start = await call('POST', `/v1/communities/${COMMUNITY}/enrich`, { depth: 'standard', profile_ids: [PERSON] });
            window.workerInProviders = await waitFor('the worker to call a provider', () => (sys.replay.requests.length > 0 ? true : undefined)).catch(() => false);
          }
          return answer;
        };
      },
    });
    let erased: JsonResponse;
    try {
      erased = await call('DELETE', `/v1/communities/${COMMUNITY}/members/${PERSON}`);
    } finally {
      sys.clients.enrichment = real;
      release();
    }
    expect(erased.status, JSON.stringify(erased.body)).toBe(200);
    // The interleaving happened: a run for the person started in the window and its worker got past
    // its membership read.
    expect(window.start?.status, JSON.stringify(window.start?.body)).toBe(202);
    expect(window.start?.body.eligible_count).toBe(1);
    expect(window.workerInProviders).toBe(true);
    const runId: string = window.start!.body.run_id;

    const done = await waitFor('the run to finish', async () => {
      const polled = await call('GET', `/v1/communities/${COMMUNITY}/enrich/runs/${runId}`);
      expect(polled.status, JSON.stringify(polled.body)).toBe(200);
      return polled.body.status === 'succeeded' || polled.body.status === 'failed' ? polled : undefined;
    });
    expect((await call('GET', `/v1/communities/${COMMUNITY}/members/${PERSON}`)).status).toBe(404);
    const db = sys.db!;
    expect(await db.query('SELECT profile_id FROM enrichment.member_enrichment WHERE community_id = $1 AND profile_id = $2', [COMMUNITY, PERSON])).toEqual([]);
    expect(done.body).toMatchObject({ counts: { total: 1, succeeded: 0, skipped: 1 }, credits_charged: 0 });
    expect(done.body.items).toEqual([{ profile_id: PERSON, status: 'skipped', reason: 'erased from the community', credits_charged: 0 }]);
    expect(await db.query('SELECT status, reason, charged FROM enrichment.run_items WHERE run_id = $1 AND profile_id = $2', [runId, PERSON]))
      .toEqual([{ status: 'skipped', reason: 'erased from the community', charged: false }]);
    expect(await db.query('SELECT reference FROM billing.ledger_entries WHERE reference LIKE $1', [`%:${runId}:${PERSON}`])).toEqual([]);
    expect(await searchedIds()).not.toContain(PERSON);
  }, 120_000);
});
