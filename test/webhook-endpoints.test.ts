// Webhook endpoints over real HTTP on every store (docs/WEBHOOKS.md): create (201, the secret
// shown once), list and read without it, change, rotate (the old secret kept 24 hours), remove;
// each endpoint fenced to the credential's owner; the scopes; refusals naming the field. Where a URL
// may point (public https hosts only): webhook-endpoint-urls.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { SCOPES } from '../services/kit/scopes.js';
import { bearer, request } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { storeNames } from './helpers/stores.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const k = { ada: liveKey(), ada2: liveKey(), bob: liveKey(), readOnly: liveKey(), none: liveKey() };
const rate = { requested_rate: 6000 };
const seed: SeedInput = {
  users: [
    { id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' },
    { id: 'u_bob', email: 'bob@example.org', name: 'Bob', plan: 'paid' },
  ],
  keys: [
    { id: 'k_ada', secret: k.ada, owner: { user: 'u_ada' }, scopes: [...SCOPES], ...rate },
    { id: 'k_ada2', secret: k.ada2, owner: { user: 'u_ada' }, scopes: ['webhooks:read', 'webhooks:write'], ...rate },
    { id: 'k_bob', secret: k.bob, owner: { user: 'u_bob' }, scopes: [...SCOPES], ...rate },
    { id: 'k_read_only', secret: k.readOnly, owner: { user: 'u_ada' }, scopes: ['webhooks:read'], ...rate },
    { id: 'k_none', secret: k.none, owner: { user: 'u_ada' }, scopes: ['search:read'], ...rate },
  ],
};

describe.each(storeNames())('webhook endpoints on %s', (store) => {
  let sys: TestSystem;
  const call = (secret: string, method: string, path: string, body?: unknown) => request(sys.restUrl, method, path, { headers: bearer(secret), body });
  const create = (secret = k.ada, body: unknown = { url: 'https://93.184.216.34/expertnet', events: ['member.added', 'search.completed'] }) =>
    call(secret, 'POST', '/v1/webhook_endpoints', body);
  beforeAll(async () => {
    sys = await startTestSystem({ store, seed });
  }, 120_000);
  afterAll(async () => {
    await sys?.stop();
  });

  it('creates an endpoint (201) with its secret shown once; lists and reads it without the secret', async () => {
    const created = await create(k.ada, { url: 'https://93.184.216.34/a', events: ['member.added', 'member.added'], description: 'roster sync' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ url: 'https://93.184.216.34/a', events: ['member.added'], description: 'roster sync', status: 'enabled' });
    expect(created.body.id).toMatch(/^we_/);
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const { secret, ...shown } = created.body;
    expect((await call(k.ada2, 'GET', `/v1/webhook_endpoints/${shown.id}`)).body).toEqual(shown);
    const listed = await call(k.ada2, 'GET', '/v1/webhook_endpoints');
    expect(listed.body.endpoints).toContainEqual(shown);
    expect(JSON.stringify(listed.body)).not.toContain(secret);
  });

  it('changes the fields given, keeps the others, and disables', async () => {
    const { body: made } = await create();
    const changed = await call(k.ada, 'PATCH', `/v1/webhook_endpoints/${made.id}`, { events: ['search.failed'], status: 'disabled' });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body).toMatchObject({ id: made.id, url: made.url, events: ['search.failed'], description: null, status: 'disabled' });
    expect(changed.body).not.toHaveProperty('secret');
    const moved = await call(k.ada, 'PATCH', `/v1/webhook_endpoints/${made.id}`, { url: 'https://93.184.216.35/hook', description: 'moved' });
    expect(moved.body).toMatchObject({ url: 'https://93.184.216.35/hook', description: 'moved', events: ['search.failed'], status: 'disabled' });
  });

  it('rotates the secret; the previous one keeps signing for 24 hours', async () => {
    const { body: made } = await create();
    const rotated = await call(k.ada, 'POST', `/v1/webhook_endpoints/${made.id}/rotate_secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(made.secret);
    const [stored] = await sys.db!.query<{ secret: string; previous_secret: string; hours: number }>(
      `SELECT secret, previous_secret, extract(epoch FROM previous_until - now()) / 3600 AS hours FROM communities.webhook_endpoints WHERE id = $1`,
      [made.id],
    );
    expect(stored).toMatchObject({ secret: rotated.body.secret, previous_secret: made.secret });
    expect(Number(stored!.hours)).toBeGreaterThan(23.9);
    expect(Number(stored!.hours)).toBeLessThanOrEqual(24);
  });

  it('removes an endpoint: 200, then 404', async () => {
    const { body: made } = await create();
    const removed = await call(k.ada, 'DELETE', `/v1/webhook_endpoints/${made.id}`);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ id: made.id, deleted: true });
    expect((await call(k.ada, 'GET', `/v1/webhook_endpoints/${made.id}`)).status).toBe(404);
    expect((await call(k.ada, 'DELETE', `/v1/webhook_endpoints/${made.id}`)).status).toBe(404);
  });

  it('fences each endpoint to its owner: another person’s is 404 for every operation and absent from the list', async () => {
    const { body: made } = await create();
    const path = `/v1/webhook_endpoints/${made.id}`;
    for (const [method, p, body] of [['GET', path], ['PATCH', path, { status: 'disabled' }], ['DELETE', path], ['POST', `${path}/rotate_secret`]] as const) {
      const refused = await call(k.bob, method, p, body);
      expect(refused.status, `${method} ${p}`).toBe(404);
      expect(refused.body.error.code).toBe('not_found');
    }
    expect((await call(k.bob, 'GET', '/v1/webhook_endpoints')).body.endpoints.map((e: { id: string }) => e.id)).not.toContain(made.id);
    const kept = await call(k.ada, 'GET', path);
    expect(kept.body).toMatchObject({ id: made.id, status: 'enabled' });
    expect(kept.body).not.toHaveProperty('secret');
  });

  it('needs webhooks:write to manage and webhooks:read to read: 403 naming the scope', async () => {
    const refusedWrite = await create(k.readOnly);
    expect(refusedWrite.status).toBe(403);
    expect(refusedWrite.body.error).toMatchObject({ code: 'forbidden', required_scope: 'webhooks:write' });
    const refusedRead = await call(k.none, 'GET', '/v1/webhook_endpoints');
    expect(refusedRead.body.error).toMatchObject({ code: 'forbidden', required_scope: 'webhooks:read' });
  });

  it('refuses a bad url, events, description or status with 400 naming the field, and stores nothing', async () => {
    const before = (await call(k.ada, 'GET', '/v1/webhook_endpoints')).body.endpoints.length;
    const cases: Array<[unknown, RegExp]> = [
      [{ url: 'https://user:pw@hooks.example.org/x', events: ['member.added'] }, /^body\.url: /],
      [{ url: 'not a url', events: ['member.added'] }, /^body\.url: /],
      [{ url: 'https://93.184.216.34/x', events: [] }, /^body\.events: /],
      [{ url: 'https://93.184.216.34/x', events: ['member.renamed'] }, /^body\.events\.0: /],
      [{ url: 'https://93.184.216.34/x', events: ['member.added'], description: 'x'.repeat(501) }, /^body\.description: /],
      [{ events: ['member.added'] }, /^body\.url: /],
      [{ url: 'https://93.184.216.34/x', events: ['member.added'], secret: 'mine' }, /^body: /],
    ];
    for (const [body, message] of cases) {
      const refused = await create(k.ada, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error.code).toBe('invalid_request');
      expect(refused.body.error.message, JSON.stringify(body)).toMatch(message);
    }
    const { body: made } = await create();
    const badStatus = await call(k.ada, 'PATCH', `/v1/webhook_endpoints/${made.id}`, { status: 'paused' });
    expect(badStatus.status).toBe(400);
    expect(badStatus.body.error.message).toMatch(/^body\.status: /);
    expect((await call(k.ada, 'GET', '/v1/webhook_endpoints')).body.endpoints.length).toBe(before + 1);
  });
});
