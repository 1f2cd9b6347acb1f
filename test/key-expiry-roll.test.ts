// What identity and the API do with a key's expiry, a roll and the order of a user's keys, on
// each store (with PostgreSQL, the credential stamps live in Redis): a key past its expiry is 401
// with a message saying it expired, on REST (a caller identity cached included, and /v1/me) and on
// MCP; a rolled key's old secret keeps working for its grace period only, then is refused the
// same way, while the new one works; keys are listed newest first, page by page. The settings
// pages for all of this are test/settings-keys-lifecycle.test.ts's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { keyEnvironments } from '../services/kit/enums.js';
import { callAs } from '../services/kit/grpc/client.js';
import { readRemoteError } from '../services/kit/grpc/errors.js';
import { bearer, request } from './helpers/http.js';
import { storeNames } from './helpers/stores.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const seed: SeedInput = {
  users: [
    { id: 'u_ada', email: 'ada@example.org', name: 'Ada Lovelace', plan: 'paid' },
    { id: 'u_bob', email: 'bob@example.org', name: 'Bob', plan: 'paid' },
  ],
  communities: [{ id: 'c_bio', name: 'Biology', owner: { user: 'u_ada' } }],
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(storeNames())('key expiry, rolls and order on %s', (store) => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem({ store, seed });
  });
  afterAll(async () => sys?.stop());

  const operator = () => callAs(sys.signer, { kind: 'operator', actor: 'test' }, undefined, 10_000);
  const asUser = (userId: string) => callAs(sys.signer, { kind: 'user', userId }, undefined, 10_000);
  const mint = async (fields: { name?: string; expiresInSeconds?: number }) =>
    sys.clients.identity.mintKey({ userId: 'u_ada', preset: 'read', environment: keyEnvironments.toEnum('test'), ...fields }, await operator());
  const communities = (secret: string) => request(sys.restUrl, 'GET', '/v1/communities', { headers: bearer(secret) });

  it('refuses an expired key with a message that says so: REST (cached caller and /v1/me) and MCP', async () => {
    const { secret } = await mint({ name: 'Short-lived', expiresInSeconds: 1 });
    // Used while valid: a caller cached by identity on the way.
    expect((await communities(secret)).status).toBe(200);
    expect((await communities(secret)).status).toBe(200);
    await sleep(1100);
    for (const path of ['/v1/communities', '/v1/me']) {
      const refused = await request(sys.restUrl, 'GET', path, { headers: bearer(secret) });
      expect(refused.status, path).toBe(401);
      expect(refused.body.error.message, path).toMatch(/^API key expired at \d{4}-/);
    }
    const mcp = await fetch(sys.mcpUrl!, {
      method: 'POST',
      headers: { ...bearer(secret), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(mcp.status).toBe(401);
    expect(await mcp.text()).toContain('API key expired at');
  });

  it('rolls a key: the new secret works, the old one within its grace period only', async () => {
    const { key: old, secret: oldSecret } = await mint({ name: 'Rolled' });
    expect((await communities(oldSecret)).status).toBe(200);
    const rolled = await sys.clients.identity.rollKey({ keyId: old!.id, graceSeconds: 1 }, await asUser('u_ada'));
    expect(rolled.key).toMatchObject({ name: 'Rolled', scopes: old!.scopes, environment: old!.environment });
    expect(rolled.previous!.replacedByKeyId).toBe(rolled.key!.id);
    expect(rolled.previous!.expiresAt).toBeDefined();
    for (const secret of [oldSecret, rolled.secret]) expect((await communities(secret)).status).toBe(200);
    await sleep(1100);
    const refused = await communities(oldSecret);
    expect(refused.status).toBe(401);
    expect(refused.body.error.message).toMatch(/^API key expired at /);
    expect((await communities(rolled.secret)).status).toBe(200);
    // A key is rolled once; another user's key is not found; a grace over 7 days is refused.
    const again = await sys.clients.identity.rollKey({ keyId: old!.id, graceSeconds: 0 }, await asUser('u_ada')).catch((e) => e);
    expect(readRemoteError(again)?.code).toBe('invalid_request');
    const { key: other } = await mint({ name: 'Not Bob’s' });
    const bobs = await sys.clients.identity.rollKey({ keyId: other!.id, graceSeconds: 0 }, await asUser('u_bob')).catch((e) => e);
    expect(readRemoteError(bobs)?.code).toBe('not_found');
    const long = await sys.clients.identity.rollKey({ keyId: other!.id, graceSeconds: 8 * 86_400 }, await asUser('u_ada')).catch((e) => e);
    expect(readRemoteError(long)?.code).toBe('invalid_request');
  });

  it('gives a rolled key that expires the same lifetime again, from the roll', async () => {
    const { key: old } = await mint({ name: 'Thirty days', expiresInSeconds: 30 * 86_400 });
    const rolled = await sys.clients.identity.rollKey({ keyId: old!.id, graceSeconds: 3600 }, await asUser('u_ada'));
    const lifetime = Date.parse(rolled.key!.expiresAt!) - Date.parse(rolled.key!.createdAt!);
    expect(Math.abs(lifetime - 30 * 86_400_000)).toBeLessThan(5000);
    expect(Date.parse(rolled.previous!.expiresAt!) - Date.now()).toBeLessThanOrEqual(3600_000);
  });

  it('lists keys newest first, page by page', async () => {
    await mint({ name: 'Older' });
    await sleep(5);
    await mint({ name: 'Newer' });
    const all = (await sys.clients.identity.listKeys({ userId: 'u_ada', pageSize: 100, pageToken: '' }, await operator())).keys;
    const names = all.map((k) => k.name);
    expect(names.indexOf('Newer')).toBeLessThan(names.indexOf('Older'));
    const created = all.map((k) => Date.parse(k.createdAt!));
    expect(created).toEqual([...created].sort((a, b) => b - a));
    // The second page starts after the first page's last key.
    let pageToken = '';
    const paged: string[] = [];
    do {
      const page = await sys.clients.identity.listKeys({ userId: 'u_ada', pageSize: 2, pageToken }, await operator());
      paged.push(...page.keys.map((k) => k.id));
      pageToken = page.nextPageToken;
    } while (pageToken);
    expect(paged).toEqual(all.map((k) => k.id));
  });
});
