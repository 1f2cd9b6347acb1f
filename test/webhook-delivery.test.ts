// Webhook delivery over real HTTP on every store (docs/WEBHOOKS.md "Delivery"): a real receiver
// verifies every request with the standardwebhooks library; the body is the event as GET
// /v1/events shows it; a search's event goes to its key's owner; a rotation's overlap carries two
// signatures, each verifying with its own secret; a test event; and the fence — an endpoint
// receives only what its owner may see when the delivery is due, and a key that cannot see a
// community sees no delivery of its events.
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { SCOPES } from '../services/kit/scopes.js';
import { bearer, request } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { storeNames } from './helpers/stores.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';
import { startWebhookReceiver, type Received, type Receiver } from './helpers/webhook-receiver.js';
import { until } from './helpers/until.js';

const k = { ada: liveKey(), adaNarrow: liveKey(), bob: liveKey(), carol: liveKey() };
const rate = { requested_rate: 6000 };
const seed: SeedInput = {
  users: [
    { id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' },
    { id: 'u_bob', email: 'bob@example.org', name: 'Bob', plan: 'paid' },
    { id: 'u_carol', email: 'carol@example.org', name: 'Carol', plan: 'paid' },
  ],
  organizations: [{ id: 'o_org', name: 'Org', members: [{ user: 'u_carol', role: 'admin' }] }],
  communities: [
    { id: 'c_lab', name: 'Lab', owner: { user: 'u_ada' }, api_writes: true },
    { id: 'c_side', name: 'Side', owner: { user: 'u_ada' }, api_writes: true },
    { id: 'c_org', name: 'Org community', owner: { organization: 'o_org' }, api_writes: true },
  ],
  keys: [
    { id: 'k_ada', secret: k.ada, owner: { user: 'u_ada' }, scopes: [...SCOPES], ...rate },
    { id: 'k_ada_narrow', secret: k.adaNarrow, owner: { user: 'u_ada' }, scopes: [...SCOPES], allowlist: ['c_side'], ...rate },
    { id: 'k_bob', secret: k.bob, owner: { user: 'u_bob' }, scopes: [...SCOPES], ...rate },
    { id: 'k_carol', secret: k.carol, owner: { user: 'u_carol' }, scopes: [...SCOPES], ...rate },
  ],
};


const headersOf = (r: Received) => ({
  'webhook-id': String(r.headers['webhook-id']),
  'webhook-timestamp': String(r.headers['webhook-timestamp']),
  'webhook-signature': String(r.headers['webhook-signature']),
});

describe.each(storeNames())('webhook delivery on %s', (store) => {
  let sys: TestSystem;
  let receiver: Receiver;
  const call = (secret: string, method: string, path: string, body?: unknown) => request(sys.restUrl, method, path, { headers: bearer(secret), body });
  const createEndpoint = async (secret: string, path: string, events = ['member.added']) => {
    const created = await call(secret, 'POST', '/v1/webhook_endpoints', { url: receiver.url(path), events });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body as { id: string; secret: string };
  };
  const addMember = async (secret: string, community: string, name: string) => {
    const added = await call(secret, 'POST', `/v1/communities/${community}/members`, { members: [{ email: `${name}@example.org`, name }] });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    return added.body.results[0].profile_id as string;
  };
  const memberAddedEvent = async (profileId: string): Promise<{ id: string; created_at: string; data: unknown } | undefined> => {
    const page = await call(k.ada, 'GET', '/v1/events?type=member.added&limit=100');
    return page.body.events.find((e: { data: { profile_id: string } }) => e.data.profile_id === profileId);
  };
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    sys = await startTestSystem({ store, seed, env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_SCHEDULE: '0.5,0.5,0.5' } });
  }, 120_000);
  afterAll(async () => {
    await sys?.stop();
    await receiver?.close();
  });

  it('delivers an event signed by Standard Webhooks (verified with the library), its body the event as GET /v1/events shows it', async () => {
    const endpoint = await createEndpoint(k.ada, '/ok/signed');
    const profileId = await addMember(k.ada, 'c_lab', 'signed');
    const event = (await until(() => memberAddedEvent(profileId), Boolean))!;
    const [got] = await until(() => receiver.at('/ok/signed').filter((r) => r.headers['webhook-id'] === event.id), (l) => l.length > 0);
    const verified = new Webhook(endpoint.secret).verify(got!.body, headersOf(got!));
    expect(verified).toEqual({ type: 'member.added', timestamp: event.created_at, data: event.data });
    expect(String(got!.headers['webhook-signature'])).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    expect(got!.headers['content-type']).toBe('application/json');
    const log = await until(() => call(k.ada, 'GET', `/v1/webhook_endpoints/${endpoint.id}/deliveries`), (r) => r.body.deliveries[0]?.status === 'succeeded');
    expect(log.body.deliveries[0]).toMatchObject({ event_id: event.id, event_type: 'member.added', attempts: 1, next_attempt_at: null });
    expect(log.body.deliveries[0].last_attempt).toMatchObject({ attempt: 1, status_code: 200, error: null, response_excerpt: 'ok' });
  });

  it('delivers a search’s event to the endpoints of the owner of the key that started it, and to no one else', async () => {
    const ada = await createEndpoint(k.ada, '/ok/search-ada', ['search.completed', 'search.failed']);
    const bob = await createEndpoint(k.bob, '/ok/search-bob', ['search.completed', 'search.failed']);
    // Started with Ada's narrowed key: the event goes to Ada's endpoints, whichever of her keys started it.
    const started = await call(k.adaNarrow, 'POST', '/v1/search', { query: 'anything', scope: 'community', community_id: 'c_side', wait_seconds: 0 });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const events = await until(() => call(k.adaNarrow, 'GET', '/v1/events?limit=100'), (r) => r.body.events.some((e: { type: string }) => e.type.startsWith('search.')));
    const event = events.body.events.find((e: { type: string }) => e.type.startsWith('search.'));
    const [got] = await until(() => receiver.at('/ok/search-ada'), (l) => l.length > 0);
    expect(new Webhook(ada.secret).verify(got!.body, headersOf(got!))).toEqual({ type: event.type, timestamp: event.created_at, data: event.data });
    expect(event.data.search_id).toBe(started.body.search_id);
    // Bob's endpoint was never given a delivery of it (decided with the event, in its transaction).
    const bobs = await sys.db!.query('SELECT id FROM communities.webhook_deliveries WHERE endpoint_id = $1', [bob.id]);
    expect(bobs).toEqual([]);
    expect(receiver.at('/ok/search-bob')).toEqual([]);
  });

  it('sends a test event, signed and verified like any delivery', async () => {
    const endpoint = await createEndpoint(k.ada, '/ok/test', ['search.completed']);
    const queued = await call(k.ada, 'POST', `/v1/webhook_endpoints/${endpoint.id}/test`);
    expect(queued.status).toBe(202);
    const [got] = await until(() => receiver.at('/ok/test'), (l) => l.length > 0);
    expect(got!.headers['webhook-id']).toBe(queued.body.event_id);
    expect(new Webhook(endpoint.secret).verify(got!.body, headersOf(got!))).toEqual({
      type: 'webhook.test',
      timestamp: queued.body.created_at,
      data: { endpoint_id: endpoint.id, test: true },
    });
  });

  it('signs with both secrets while a rotation overlaps: two signatures, each verifying with its own secret', async () => {
    const endpoint = await createEndpoint(k.ada, '/ok/rotated');
    const rotated = await call(k.ada, 'POST', `/v1/webhook_endpoints/${endpoint.id}/rotate_secret`);
    const profileId = await addMember(k.ada, 'c_lab', 'rotated');
    const event = (await until(() => memberAddedEvent(profileId), Boolean))!;
    const [got] = await until(() => receiver.at('/ok/rotated').filter((r) => r.headers['webhook-id'] === event.id), (l) => l.length > 0);
    const signatures = String(got!.headers['webhook-signature']).split(' ');
    expect(signatures).toHaveLength(2);
    const one = (signature: string) => ({ ...headersOf(got!), 'webhook-signature': signature });
    expect(() => new Webhook(rotated.body.secret).verify(got!.body, one(signatures[0]!))).not.toThrow();
    expect(() => new Webhook(endpoint.secret).verify(got!.body, one(signatures[1]!))).not.toThrow();
    expect(() => new Webhook(endpoint.secret).verify(got!.body, one(signatures[0]!))).toThrow();
  });

  it('fences deliveries: another owner’s endpoint gets nothing of a community it cannot see, and a key that cannot see a community sees none of its deliveries', async () => {
    const ada = await createEndpoint(k.ada, '/ok/fence-ada');
    const bob = await createEndpoint(k.bob, '/ok/fence-bob');
    const carol = await createEndpoint(k.carol, '/ok/fence-carol');
    const inLab = await addMember(k.ada, 'c_lab', 'fenced');
    const inOrg = await addMember(k.carol, 'c_org', 'orgmember');
    const labEvent = (await until(() => memberAddedEvent(inLab), Boolean))!;
    // Carol manages the organization owning c_org: she receives its event; Ada and Bob do not.
    const [orgDelivery] = await until(() => receiver.at('/ok/fence-carol'), (l) => l.length > 0);
    expect(JSON.parse(orgDelivery!.body).data.profile_id).toBe(inOrg);
    await until(() => receiver.at('/ok/fence-ada'), (l) => l.length > 0);
    // Bob's endpoint was offered the organization's event (who manages it is known at delivery
    // time only) and skipped it then; his log shows neither event.
    await until(
      () => sys.db!.query<{ status: string }>('SELECT status FROM communities.webhook_deliveries WHERE endpoint_id = $1', [bob.id]),
      (rows) => rows.length === 1 && rows[0]!.status === 'skipped',
    );
    expect(receiver.at('/ok/fence-bob')).toEqual([]);
    expect((await call(k.bob, 'GET', `/v1/webhook_endpoints/${bob.id}/deliveries`)).body.deliveries).toEqual([]);
    expect(receiver.at('/ok/fence-ada').map((r) => JSON.parse(r.body).data.profile_id)).toEqual([inLab]);
    expect(receiver.at('/ok/fence-carol').map((r) => JSON.parse(r.body).data.profile_id)).toEqual([inOrg]);
    // Ada's key narrowed to c_side sees no delivery of c_lab's event, and cannot read it by id.
    const full = (await call(k.ada, 'GET', `/v1/webhook_endpoints/${ada.id}/deliveries`)).body.deliveries;
    expect(full.map((d: { event_id: string }) => d.event_id)).toEqual([labEvent.id]);
    const narrow = await call(k.adaNarrow, 'GET', `/v1/webhook_endpoints/${ada.id}/deliveries`);
    expect(narrow.status).toBe(200);
    expect(narrow.body.deliveries).toEqual([]);
    expect((await call(k.adaNarrow, 'GET', `/v1/webhook_endpoints/${ada.id}/deliveries/${full[0].id}`)).status).toBe(404);
    expect((await call(k.bob, 'GET', `/v1/webhook_endpoints/${ada.id}/deliveries`)).status).toBe(404);
    expect(carol.id).toMatch(/^we_/);
  });
});
