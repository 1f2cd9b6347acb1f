// The delivery log of a webhook endpoint over real HTTP on every store (docs/WEBHOOKS.md
// "Delivery"): a test delivery (202 with its Location), the log's pages and one delivery, a resend,
// the endpoint's disabled_reason, the owner's fence, the scopes, and 409 on a disabled endpoint.
// Sending is off here (WEBHOOK_DELIVERY=off), so every delivery stays as queued; delivery itself
// is webhook-delivery.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { SCOPES } from '../services/kit/scopes.js';
import { bearer, request } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { storeNames } from './helpers/stores.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const k = { ada: liveKey(), bob: liveKey(), readOnly: liveKey() };
const rate = { requested_rate: 6000 };
const seed: SeedInput = {
  users: [
    { id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' },
    { id: 'u_bob', email: 'bob@example.org', name: 'Bob', plan: 'paid' },
  ],
  keys: [
    { id: 'k_ada', secret: k.ada, owner: { user: 'u_ada' }, scopes: [...SCOPES], ...rate },
    { id: 'k_bob', secret: k.bob, owner: { user: 'u_bob' }, scopes: [...SCOPES], ...rate },
    { id: 'k_read_only', secret: k.readOnly, owner: { user: 'u_ada' }, scopes: ['webhooks:read'], ...rate },
  ],
};

describe.each(storeNames())('webhook delivery log on %s', (store) => {
  let sys: TestSystem;
  let endpoint: string;
  const call = (secret: string, method: string, path: string, body?: unknown) => request(sys.restUrl, method, path, { headers: bearer(secret), body });
  beforeAll(async () => {
    sys = await startTestSystem({ store, seed, env: { WEBHOOK_DELIVERY: 'off' } });
    const created = await call(k.ada, 'POST', '/v1/webhook_endpoints', { url: 'https://93.184.216.34/hooks', events: ['member.added'] });
    endpoint = created.body.id;
  }, 120_000);
  afterAll(async () => {
    await sys?.stop();
  });

  it('queues a test delivery (202, Location), lists it newest first, reads it with its attempts, and resends it', async () => {
    const first = await call(k.ada, 'POST', `/v1/webhook_endpoints/${endpoint}/test`);
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    expect(first.body).toMatchObject({ event_type: 'webhook.test', status: 'pending', attempts: 0, last_attempt: null, attempt_log: [] });
    expect(first.body.id).toMatch(/^wdl_/);
    expect(first.body.event_id).toMatch(/^evt_/);
    expect(first.headers.get('location')).toBe(`/v1/webhook_endpoints/${endpoint}/deliveries/${first.body.id}`);
    const second = await call(k.ada, 'POST', `/v1/webhook_endpoints/${endpoint}/test`);
    const page1 = await call(k.readOnly, 'GET', `/v1/webhook_endpoints/${endpoint}/deliveries?limit=1`);
    expect(page1.status).toBe(200);
    expect(page1.body.deliveries.map((d: { id: string }) => d.id)).toEqual([second.body.id]);
    const page2 = await call(k.readOnly, 'GET', `/v1/webhook_endpoints/${endpoint}/deliveries?limit=1&after=${page1.body.next_cursor}`);
    expect(page2.body.deliveries.map((d: { id: string }) => d.id)).toEqual([first.body.id]);
    const { attempt_log, ...listed } = first.body;
    expect(page2.body.deliveries[0]).toEqual(listed);
    const read = await call(k.readOnly, 'GET', `/v1/webhook_endpoints/${endpoint}/deliveries/${first.body.id}`);
    expect(read.body).toEqual(first.body);
    const resent = await call(k.ada, 'POST', `/v1/webhook_endpoints/${endpoint}/deliveries/${first.body.id}/resend`);
    expect(resent.status).toBe(202);
    expect(resent.body).toMatchObject({ id: first.body.id, status: 'pending' });
  });

  it('fences the log to the endpoint’s owner, and needs webhooks:read to read and webhooks:write to send', async () => {
    const test = await call(k.ada, 'POST', `/v1/webhook_endpoints/${endpoint}/test`);
    expect((await call(k.bob, 'GET', `/v1/webhook_endpoints/${endpoint}/deliveries`)).status).toBe(404);
    expect((await call(k.bob, 'GET', `/v1/webhook_endpoints/${endpoint}/deliveries/${test.body.id}`)).status).toBe(404);
    expect((await call(k.bob, 'POST', `/v1/webhook_endpoints/${endpoint}/deliveries/${test.body.id}/resend`)).status).toBe(404);
    expect((await call(k.bob, 'POST', `/v1/webhook_endpoints/${endpoint}/test`)).status).toBe(404);
    const refused = await call(k.readOnly, 'POST', `/v1/webhook_endpoints/${endpoint}/test`);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'forbidden', required_scope: 'webhooks:write' });
    expect((await call(k.ada, 'GET', `/v1/webhook_endpoints/${endpoint}/deliveries/wdl_nope`)).status).toBe(404);
    expect((await call(k.ada, 'GET', `/v1/webhook_endpoints/${endpoint}/deliveries?limit=0`)).status).toBe(400);
  });

  it('says why an endpoint is disabled (manual), refuses a test or resend to it with 409, and clears the reason when enabled', async () => {
    const created = await call(k.ada, 'POST', '/v1/webhook_endpoints', { url: 'https://93.184.216.34/paused', events: ['member.added'] });
    expect(created.body.disabled_reason).toBeNull();
    const queued = await call(k.ada, 'POST', `/v1/webhook_endpoints/${created.body.id}/test`);
    const disabled = await call(k.ada, 'PATCH', `/v1/webhook_endpoints/${created.body.id}`, { status: 'disabled' });
    expect(disabled.body).toMatchObject({ status: 'disabled', disabled_reason: 'manual' });
    const refused = await call(k.ada, 'POST', `/v1/webhook_endpoints/${created.body.id}/test`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('conflict');
    expect((await call(k.ada, 'POST', `/v1/webhook_endpoints/${created.body.id}/deliveries/${queued.body.id}/resend`)).status).toBe(409);
    const enabled = await call(k.ada, 'PATCH', `/v1/webhook_endpoints/${created.body.id}`, { status: 'enabled' });
    expect(enabled.body).toMatchObject({ status: 'enabled', disabled_reason: null });
  });
});
