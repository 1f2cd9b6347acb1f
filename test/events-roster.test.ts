// Events over real HTTP on every store (docs/WEBHOOKS.md): the roster's events (member.added,
// member.erased) recorded once per change, GET /v1/events and GET /v1/events/{id} fenced live to
// the credentials whose read reach holds the community (with profile:read), keyset pages, the
// type filter, and the 400s naming the field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { callAs } from '../services/kit/grpc/client.js';
import { SCOPES } from '../services/kit/scopes.js';
import { bearer, request, type JsonResponse } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { storeNames } from './helpers/stores.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const k = { ada: liveKey(), narrow: liveKey(), bob: liveKey(), carol: liveKey(), noEvents: liveKey(), noProfile: liveKey() };
const rate = { requested_rate: 6000 };
const noWebhooks = SCOPES.filter((s) => s !== 'webhooks:read');
const seed: SeedInput = {
  users: [
    { id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' },
    { id: 'u_bob', email: 'bob@example.org', name: 'Bob', plan: 'paid' },
    { id: 'u_carol', email: 'carol@example.org', name: 'Carol' },
  ],
  communities: [
    { id: 'c_alpha', name: 'Alpha', owner: { user: 'u_ada' }, api_writes: true },
    { id: 'c_gamma', name: 'Gamma', owner: { user: 'u_bob' }, api_writes: true },
  ],
  profiles: [
    { id: 'p_ada', user: 'u_ada', name: 'Ada Lovelace' },
    { id: 'p_bob', user: 'u_bob', name: 'Bob Builder' },
    { id: 'p_carol', user: 'u_carol', name: 'Carol Coder' },
  ],
  memberships: [
    { community: 'c_alpha', profile: 'p_ada', role: 'owner' },
    { community: 'c_alpha', profile: 'p_carol', role: 'member' },
    { community: 'c_gamma', profile: 'p_bob', role: 'owner' },
    { community: 'c_gamma', profile: 'p_ada', role: 'member' },
  ],
  keys: [
    { id: 'k_ada', secret: k.ada, owner: { user: 'u_ada' }, scopes: [...SCOPES], ...rate },
    { id: 'k_narrow', secret: k.narrow, owner: { user: 'u_ada' }, scopes: [...SCOPES], allowlist: ['c_gamma'], ...rate },
    { id: 'k_bob', secret: k.bob, owner: { user: 'u_bob' }, scopes: [...SCOPES], ...rate },
    { id: 'k_carol', secret: k.carol, owner: { user: 'u_carol' }, scopes: ['profile:read', 'webhooks:read'], ...rate },
    { id: 'k_no_events', secret: k.noEvents, owner: { user: 'u_ada' }, scopes: noWebhooks, ...rate },
    { id: 'k_no_profile', secret: k.noProfile, owner: { user: 'u_ada' }, scopes: ['enrich:read', 'webhooks:read'], ...rate },
  ],
};

describe.each(storeNames())('roster events on %s', (store) => {
  let sys: TestSystem;
  const get = (secret: string, path: string) => request(sys.restUrl, 'GET', path, { headers: bearer(secret) });
  const add = (members: unknown[]) => request(sys.restUrl, 'POST', '/v1/communities/c_alpha/members', { headers: bearer(k.ada), body: { members } });
  const erase = (profileId: string) => request(sys.restUrl, 'DELETE', `/v1/communities/c_alpha/members/${profileId}`, { headers: bearer(k.ada) });
  const events = async (secret: string, query = ''): Promise<Array<{ id: string; type: string; data: any }>> => {
    const page = await get(secret, `/v1/events?limit=100${query}`);
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    return page.body.events;
  };

  // The adds and the erasure every test reads, made once, before any test.
  let added: JsonResponse;
  let erased: JsonResponse;
  let erasedId: string;
  beforeAll(async () => {
    sys = await startTestSystem({ store, seed });
    added = await add([
      { email: 'one@example.org', name: 'One Person' },
      { email: 'two@example.org', name: 'Two Person' },
      { email: 'three@example.org', name: 'Three Person' },
    ]);
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    erasedId = added.body.results[2].profile_id;
    erased = await erase(erasedId);
    expect(erased.status, JSON.stringify(erased.body)).toBe(200);
  }, 120_000);
  afterAll(async () => {
    await sys?.stop();
  });

  it('records member.added with the member read and member.erased with the erasure result, newest first', async () => {
    const all = await events(k.ada);
    expect(all.every((e) => /^evt_/.test(e.id))).toBe(true);
    const about = (id: string) => all.filter((e) => e.data.profile_id === id);
    expect(about(erasedId).map((e) => e.type)).toEqual(['member.erased', 'member.added']);
    expect(about(erasedId)[0]!.data).toEqual(erased.body);
    const kept = added.body.results[0].profile_id;
    const read = await get(k.ada, `/v1/communities/c_alpha/members/${kept}`);
    expect(about(kept).map((e) => e.data)).toEqual([read.body]);
    const one = await get(k.ada, `/v1/events/${about(kept)[0]!.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(about(kept)[0]);
  });

  it('records one event per change: an add of a member already there and a second erasure record none', async () => {
    const again = await add([{ email: 'one@example.org', name: 'One Person' }]);
    expect(again.body.results[0].status).toBe('already_member');
    const twice = await Promise.all([erase(added.body.results[1].profile_id), erase(added.body.results[1].profile_id)]);
    // Both complete (or the later one finds no member); the membership was removed once.
    expect(twice.every((r) => r.status === 200 || r.status === 404)).toBe(true);
    expect(twice.some((r) => r.status === 200)).toBe(true);
    const about = (e: { data: any }, id: string) => e.data.profile_id === id;
    const seen = await events(k.ada);
    expect(seen.filter((e) => about(e, added.body.results[0].profile_id)).map((e) => e.type)).toEqual(['member.added']);
    expect(seen.filter((e) => about(e, added.body.results[1].profile_id)).map((e) => e.type)).toEqual(['member.erased', 'member.added']);
  });

  it('records an event relayed twice (RecordEvents, the same id) once', async () => {
    const options = await callAs(sys.signer, { kind: 'service', service: 'search' }, undefined, 10_000);
    const event = { id: 'evt_relayed_twice_1', type: 'member.erased', createdAt: new Date().toISOString(), erasure: { communityId: 'c_alpha', profileId: 'p_gone', authAccountDeleted: false } };
    const sent = { events: [{ event, credentialId: '', userId: '', communityId: 'c_alpha' }] };
    const answers = await Promise.all([sys.clients.communities.recordEvents(sent, options), sys.clients.communities.recordEvents(sent, options)]);
    expect(answers.map((a) => a.recorded).sort()).toEqual([0, 1]);
    expect((await sys.clients.communities.recordEvents(sent, options)).recorded).toBe(0);
    expect((await events(k.ada)).filter((e) => e.id === event.id)).toEqual([
      { id: event.id, type: 'member.erased', created_at: event.createdAt, data: { community_id: 'c_alpha', profile_id: 'p_gone', erased: true, auth_account_deleted: false } },
    ]);
  });

  it('shows a community’s events only to credentials reaching it with profile:read, decided at read time', async () => {
    const adaEvents = await events(k.ada);
    for (const secret of [k.bob, k.narrow, k.noProfile]) {
      expect(await events(secret)).toEqual([]);
      const one = await get(secret, `/v1/events/${adaEvents[0]!.id}`);
      expect(one.status).toBe(404);
      expect(one.body.error.code).toBe('not_found');
    }
    // Carol reaches Alpha while she is a member; once erased from it she sees none of its events.
    expect((await events(k.carol)).length).toBeGreaterThan(0);
    expect((await erase('p_carol')).status).toBe(200);
    expect(await events(k.carol)).toEqual([]);
    expect((await get(k.carol, `/v1/events/${adaEvents[0]!.id}`)).status).toBe(404);
  });

  it('needs webhooks:read: 403 naming the scope', async () => {
    for (const path of ['/v1/events', '/v1/events/evt_x']) {
      const refused = await get(k.noEvents, path);
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ code: 'forbidden', required_scope: 'webhooks:read' });
    }
  });

  it('pages by keyset, newest first, and filters by type', async () => {
    const all = await events(k.ada);
    const walked: string[] = [];
    let after = '';
    for (;;) {
      const page = await get(k.ada, `/v1/events?limit=1${after && `&after=${after}`}`);
      expect(page.status).toBe(200);
      walked.push(...page.body.events.map((e: { id: string }) => e.id));
      if (!page.body.next_cursor) break;
      after = page.body.next_cursor;
    }
    expect(walked).toEqual(all.map((e) => e.id));
    const erasures = await get(k.ada, '/v1/events?type=member.erased&limit=1');
    expect(erasures.body.events.map((e: { type: string }) => e.type)).toEqual(['member.erased']);
    expect(erasures.body.next_cursor).not.toBeNull();
    const rest = await get(k.ada, `/v1/events?type=member.erased&after=${erasures.body.next_cursor}`);
    expect(rest.body.events.every((e: { type: string }) => e.type === 'member.erased')).toBe(true);
    expect([...erasures.body.events, ...rest.body.events].map((e: { id: string }) => e.id)).toEqual(all.filter((e) => e.type === 'member.erased').map((e) => e.id));
    // A cursor of the filtered list does not page the whole one.
    const mixed = await get(k.ada, `/v1/events?after=${erasures.body.next_cursor}`);
    expect(mixed.status).toBe(400);
    expect(mixed.body.error.message).toMatch(/^after: /);
  });

  it('refuses a bad limit, type or after with 400 naming the field', async () => {
    const cases: Array<[string, RegExp]> = [
      ['limit=0', /^query\.limit: /],
      ['limit=abc', /^query\.limit: /],
      ['type=member.renamed', /^query\.type: /],
      ['after=not-a-cursor', /^after: /],
    ];
    for (const [query, message] of cases) {
      const refused = await get(k.ada, `/v1/events?${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.body.error.code).toBe('invalid_request');
      expect(refused.body.error.message, query).toMatch(message);
    }
  });
});
