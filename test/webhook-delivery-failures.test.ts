// Webhook delivery when receivers misbehave, over real HTTP on every store (docs/WEBHOOKS.md
// "Delivery"), with the retry schedule shortened (WEBHOOK_RETRY_SCHEDULE=0.5,0.5,0.5: four attempts):
// a receiver failing three times then answering 200 gets the event once more, every attempt in the
// delivery log; 410 fails the delivery at once and disables the endpoint (gone); a redirect is not
// followed and, failing the whole schedule, disables the endpoint (failing); a huge answer is cut
// to its excerpt and the worker goes on; a receiver that never answers runs out of time (the
// deadline shortened for the suite); a URL whose host is private is refused as the attempt
// connects once private URLs are not allowed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { SCOPES } from '../services/kit/scopes.js';
import { bearer, request, type JsonResponse } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { storeNames } from './helpers/stores.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';
import { startWebhookReceiver, type Receiver } from './helpers/webhook-receiver.js';
import { until } from './helpers/until.js';

const k = { ada: liveKey() };
const seed: SeedInput = {
  users: [{ id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' }],
  keys: [{ id: 'k_ada', secret: k.ada, owner: { user: 'u_ada' }, scopes: [...SCOPES], requested_rate: 6000 }],
};


describe.each(storeNames())('webhook delivery to misbehaving receivers on %s', (store) => {
  let sys: TestSystem;
  let receiver: Receiver;
  const call = (method: string, path: string, body?: unknown) => request(sys.restUrl, method, path, { headers: bearer(k.ada), body });
  /** An endpoint at this receiver path, sent a test event; answers the endpoint and the queued delivery. */
  async function testDelivery(path: string, url = receiver.url(path)) {
    const created = await call('POST', '/v1/webhook_endpoints', { url, events: ['search.failed'] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const queued = await call('POST', `/v1/webhook_endpoints/${created.body.id}/test`);
    expect(queued.status).toBe(202);
    return { endpoint: created.body.id as string, delivery: queued.body.id as string };
  }
  const deliveryOf = (endpoint: string, delivery: string) => call('GET', `/v1/webhook_endpoints/${endpoint}/deliveries/${delivery}`);
  const ended = (r: JsonResponse) => r.body.status !== 'pending';
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    // An attempt's deadline shortened from 15 s, so a receiver that never answers runs out of time fast.
    const hooks = { webhookTimeoutMs: 1500 };
    sys = await startTestSystem({ store, seed, hooks, env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_SCHEDULE: '0.5,0.5,0.5' } });
  }, 120_000);
  afterAll(async () => {
    await sys?.stop();
    await receiver?.close();
  });

  it('a receiver failing three times then answering 200 gets the event once more: four attempts in the log, then succeeded', async () => {
    const { endpoint, delivery } = await testDelivery('/flaky/a');
    const done = await until(() => deliveryOf(endpoint, delivery), ended);
    expect(done.body).toMatchObject({ status: 'succeeded', attempts: 4, next_attempt_at: null });
    expect(done.body.attempt_log.map((a: { attempt: number; status_code: number }) => [a.attempt, a.status_code])).toEqual([[1, 500], [2, 500], [3, 500], [4, 200]]);
    expect(done.body.attempt_log[0]).toMatchObject({ error: 'answered 500', response_excerpt: 'not yet' });
    const got = receiver.at('/flaky/a');
    expect(got).toHaveLength(4);
    expect(new Set(got.map((r) => r.headers['webhook-id']))).toEqual(new Set([done.body.event_id]));
    expect((await call('GET', `/v1/webhook_endpoints/${endpoint}`)).body).toMatchObject({ status: 'enabled', disabled_reason: null });
  });

  it('410 fails the delivery without a retry and disables the endpoint as gone, a reason a second disable keeps', async () => {
    const { endpoint, delivery } = await testDelivery('/gone/a');
    const done = await until(() => deliveryOf(endpoint, delivery), ended);
    expect(done.body).toMatchObject({ status: 'failed', attempts: 1 });
    expect(done.body.last_attempt).toMatchObject({ status_code: 410, response_excerpt: 'gone' });
    expect((await call('GET', `/v1/webhook_endpoints/${endpoint}`)).body).toMatchObject({ status: 'disabled', disabled_reason: 'gone' });
    // Disabling it again keeps why it was disabled; enabling it clears the reason.
    expect((await call('PATCH', `/v1/webhook_endpoints/${endpoint}`, { status: 'disabled' })).body.disabled_reason).toBe('gone');
    expect((await call('PATCH', `/v1/webhook_endpoints/${endpoint}`, { status: 'enabled' })).body.disabled_reason).toBeNull();
    expect(receiver.at('/gone/a')).toHaveLength(1);
  });

  it('does not follow a redirect: each 3xx is a failed attempt, and failing the whole schedule disables the endpoint as failing', async () => {
    const { endpoint, delivery } = await testDelivery('/redirect/a');
    const done = await until(() => deliveryOf(endpoint, delivery), ended);
    expect(done.body).toMatchObject({ status: 'failed', attempts: 4 });
    expect(done.body.attempt_log.every((a: { status_code: number }) => a.status_code === 302)).toBe(true);
    expect(done.body.last_attempt.error).toBe('answered 302; redirects are not followed (Location: /ok/redirected)');
    expect(receiver.at('/ok/redirected')).toEqual([]);
    expect((await call('GET', `/v1/webhook_endpoints/${endpoint}`)).body).toMatchObject({ status: 'disabled', disabled_reason: 'failing' });
  });

  it('gives up on a receiver that never answers after the deadline, each attempt without a status, and goes on delivering', async () => {
    const { endpoint, delivery } = await testDelivery('/hold/slow');
    const done = await until(() => deliveryOf(endpoint, delivery), ended);
    expect(done.body).toMatchObject({ status: 'failed', attempts: 4 });
    expect(done.body.attempt_log.map((a: { status_code: number | null; error: string }) => [a.status_code, a.error])).toEqual(
      Array.from({ length: 4 }, () => [null, 'no answer within 1.5 s']),
    );
    const next = await testDelivery('/ok/after-slow');
    expect((await until(() => deliveryOf(next.endpoint, next.delivery), ended)).body.status).toBe('succeeded');
  });

  it('keeps 1 KiB of a huge answer and goes on delivering', async () => {
    const huge = await testDelivery('/huge/a');
    const done = await until(() => deliveryOf(huge.endpoint, huge.delivery), ended);
    expect(done.body).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(done.body.last_attempt.response_excerpt).toBe('y'.repeat(1024));
    const next = await testDelivery('/ok/after-huge');
    expect((await until(() => deliveryOf(next.endpoint, next.delivery), ended)).body.status).toBe('succeeded');
  });

  it('keeps an answer of NUL and invalid UTF-8 bytes as text with replacement characters, and the delivery succeeds once', async () => {
    const binary = await testDelivery('/binary/a');
    const done = await until(() => deliveryOf(binary.endpoint, binary.delivery), ended);
    expect(done.body).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(done.body.last_attempt.response_excerpt).toBe('o\uFFFDk\uFFFD\uFFFD\uFFFD');
    expect(receiver.at('/binary/a')).toHaveLength(1);
  });
});

describe.each(storeNames())('webhook delivery to a host re-pointed at a private address on %s', (store) => {
  let sys: TestSystem;
  let receiver: Receiver;
  const call = (method: string, path: string, body?: unknown) => request(sys.restUrl, method, path, { headers: bearer(k.ada), body });
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    sys = await startTestSystem({ store, seed, env: { WEBHOOK_RETRY_SCHEDULE: '0.5' } });
  }, 120_000);
  afterAll(async () => {
    await sys?.stop();
    await receiver?.close();
  });

  it('refuses, as each attempt connects, a host that now resolves to a private address: the delivery fails, the receiver gets nothing', async () => {
    const created = await call('POST', '/v1/webhook_endpoints', { url: 'https://93.184.216.34/hooks', events: ['search.failed'] });
    expect(created.status).toBe(201);
    // As if its name were re-pointed after the check at creation (DNS rebinding): it now names this machine.
    const port = new URL(receiver.url('/')).port;
    await sys.db!.query('UPDATE communities.webhook_endpoints SET url = $2 WHERE id = $1', [created.body.id, `https://localhost:${port}/ok/private`]);
    const queued = await call('POST', `/v1/webhook_endpoints/${created.body.id}/test`);
    const done = await until(() => call('GET', `/v1/webhook_endpoints/${created.body.id}/deliveries/${queued.body.id}`), (r) => r.body.status !== 'pending');
    expect(done.body).toMatchObject({ status: 'failed', attempts: 2 });
    expect(done.body.attempt_log.map((a: { status_code: number | null; error: string }) => [a.status_code, a.error])).toEqual([
      [null, 'localhost is not a public address'],
      [null, 'localhost is not a public address'],
    ]);
    expect(receiver.received).toEqual([]);
  });
});
