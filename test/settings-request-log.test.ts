// The request log over HTTP: a request made with a user's key (REST, and an MCP tool call) shows in
// their request log page with its method, path or tool, status, request id and key; the page
// filters by key, status class and request id; another user's requests never show (identity
// refuses the call for someone else, and another user's key matches nothing); a request without a
// credential is logged for no one; the usage screen counts answers by status class; the retention
// sweep removes old rows and trims a user to their newest; and a request still succeeds when the
// log cannot be written (the batch is dropped and counted). On both stores.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { callAs } from '../services/kit/grpc/client.js';
import { readRemoteError } from '../services/kit/grpc/errors.js';
import { metrics } from '../services/kit/metrics.js';
import { createRequestLogRetention } from '../services/identity/request-log-retention.js';
import { createRequestLogRepository } from '../services/identity/request-log.repository.js';
import { bearer, request } from './helpers/http.js';
import { liveKey, testKey } from './helpers/keys.js';
import { type SettingsClient, signedInClients } from './helpers/settings-browser-http.js';
import { storeNames } from './helpers/stores.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const adaKey = liveKey();
const adaOther = testKey();
const bobKey = liveKey();
const seed: SeedInput = {
  users: [
    { id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' },
    { id: 'u_bob', email: 'bob@example.org', name: 'Bob', plan: 'paid' },
  ],
  keys: [
    { id: 'k_ada', secret: adaKey, owner: { user: 'u_ada' }, scopes: ['profile:read'], requested_rate: 600 },
    { id: 'k_ada_other', secret: adaOther, owner: { user: 'u_ada' }, scopes: ['profile:read'], requested_rate: 600 },
    { id: 'k_bob', secret: bobKey, owner: { user: 'u_bob' }, scopes: ['profile:read'], requested_rate: 600 },
  ],
};

/** The table rows of a request log page. */
const rowsOf = (page: string) => page.match(/<tr><td data-label="Time \(UTC\)"><time[\s\S]*?<\/tr>/g) ?? [];
const rowWith = (page: string, requestId: string) => rowsOf(page).find((r) => r.includes(`<code>${requestId}</code>`));

describe.each(storeNames())('settings web app: the request log on %s', (store) => {
  let sys: TestSystem;
  let ada: SettingsClient;
  let bob: SettingsClient;
  const call = (secret: string | undefined, path: string, requestId: string) =>
    request(sys.restUrl, 'GET', path, { headers: { ...(secret && bearer(secret)), 'x-request-id': requestId } });
  /** Ada's page once `requestId` has reached it (the edge sends its batch within a second). */
  const adaSees = async (requestId: string, query = '') => {
    await expect.poll(async () => (await ada.get(`/requests${query}`)).text, { timeout: 10_000, interval: 250 }).toContain(`<code>${requestId}</code>`);
    return (await ada.get(`/requests${query}`)).text;
  };

  beforeAll(async () => {
    sys = await startTestSystem({ store, seed });
    await sys.db!.query(`UPDATE identity.api_keys SET name = 'Laptop' WHERE id = 'k_ada'`);
    [ada, bob] = await signedInClients(sys, 'u_ada', 'u_bob');
  });
  afterAll(async () => sys?.stop());

  it('shows a request made with the key: time, method, path, status, latency, request id and key name', async () => {
    expect((await call(adaKey, '/v1/me?fields=all', 'rid-ada-me')).status).toBe(200);
    const page = await adaSees('rid-ada-me');
    expect(page).toContain('<a href="/requests" aria-current="page">Requests</a>');
    const row = rowWith(page, 'rid-ada-me')!;
    expect(row).toContain('<td data-label="Method">GET</td>');
    expect(row).toContain('<code>/v1/me</code>');
    expect(row).not.toContain('fields=all');
    expect(row).toContain('<td data-label="Status">200</td>');
    expect(row).toMatch(/<td data-label="Latency">[\d.]+ ms<\/td>/);
    expect(row).toContain(`Laptop <code>${adaKey.slice(0, 12)}`);
    expect(row).toMatch(/<time datetime="\d{4}-\d\d-\d\dT/);
    expect(row).not.toContain(adaKey);
  });

  it('shows an MCP tool call with its tool', async () => {
    const res = await request(sys.mcpUrl!, 'POST', '', {
      headers: { ...bearer(adaKey), 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-request-id': 'rid-ada-mcp' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } },
    });
    expect(res.status).toBe(200);
    const row = rowWith(await adaSees('rid-ada-mcp'), 'rid-ada-mcp')!;
    expect(row).toContain('<td data-label="Method">POST</td>');
    expect(row).toContain('<code>/mcp</code> tool <code>whoami</code>');
  });

  it('shows a request of an OAuth grant by its application', async () => {
    const operator = await callAs(sys.signer, { kind: 'operator', actor: 'request-log-test' }, undefined, 10_000);
    const { accessToken } = await sys.clients.identity.issueAccessToken(
      { userId: 'u_ada', scopes: ['profile:read'], clientId: 'notebook-app', ttlSeconds: 300, requestedRate: 0, resource: '' }, operator);
    expect((await call(accessToken, '/v1/me', 'rid-ada-oauth')).status).toBe(200);
    const row = rowWith(await adaSees('rid-ada-oauth'), 'rid-ada-oauth')!;
    expect(row).toContain('OAuth: <code>notebook-app</code>');
    expect(row).not.toContain(accessToken);
  });

  it('filters by key, by status class and by request id', async () => {
    expect((await call(adaKey, '/v1/no-such-route', 'rid-ada-404')).status).toBe(404);
    expect((await call(adaOther, '/v1/me', 'rid-ada-other')).status).toBe(200);
    await adaSees('rid-ada-404');
    await adaSees('rid-ada-other');

    const clientErrors = (await ada.get('/requests?status=4xx')).text;
    expect(rowWith(clientErrors, 'rid-ada-404')).toContain('<td data-label="Status">404</td>');
    expect(rowWith(clientErrors, 'rid-ada-me')).toBeUndefined();
    expect(clientErrors).toContain('<option value="4xx" selected>4xx</option>');

    const other = (await ada.get('/requests?key=k_ada_other')).text;
    expect(rowsOf(other).map((r) => /<code>(rid-[\w-]+)<\/code>/.exec(r)?.[1])).toEqual(['rid-ada-other']);
    expect(other).toContain('<option value="k_ada_other" selected>');

    const one = (await ada.get('/requests?request_id=rid-ada-me')).text;
    expect(rowsOf(one)).toHaveLength(1);
    expect(one).toContain('value="rid-ada-me"');
    expect((await ada.get('/requests?status=2xx&key=k_ada_other&request_id=rid-ada-404')).text).toContain('No request matches this filter.');
    expect((await ada.get('/requests?status=6xx')).status).toBe(400);
    expect((await ada.get('/requests?page=nonsense')).status).toBe(400);
  });

  it('pages newest first', async () => {
    const asAda = await callAs(sys.signer, { kind: 'user', userId: 'u_ada' }, undefined, 10_000);
    const list = (pageToken: string) => sys.clients.identity.listRequests(
      { userId: 'u_ada', pageSize: 2, pageToken, credentialId: '', statusClass: 0, requestId: '' }, asAda);
    const first = await list('');
    const second = await list(first.nextPageToken);
    const ids = [...first.requests, ...second.requests].map((r) => r.request!.requestId);
    expect(ids).toHaveLength(4);
    expect(new Set(ids).size).toBe(4);
    const times = [...first.requests, ...second.requests].map((r) => r.request!.at!);
    expect([...times].sort().reverse()).toEqual(times);
  });

  it('never shows another user’s requests, nor one made without a credential', async () => {
    expect((await call(bobKey, '/v1/me', 'rid-bob-me')).status).toBe(200);
    expect((await call(undefined, '/v1/me', 'rid-nobody')).status).toBe(401);
    expect((await call('svc_live_not_a_key_at_all_0000000000', '/v1/me', 'rid-bad-key')).status).toBe(401);
    await expect.poll(async () => (await bob.get('/requests')).text, { timeout: 10_000, interval: 250 }).toContain('<code>rid-bob-me</code>');
    const bobs = (await bob.get('/requests')).text;
    expect(bobs).not.toContain('rid-ada');
    expect(bobs).not.toContain('Laptop');
    expect(rowsOf((await bob.get('/requests?key=k_ada')).text)).toEqual([]);
    expect((await ada.get('/requests')).text).not.toContain('rid-bob-me');
    expect(await sys.db!.query(`SELECT 1 FROM identity.request_log WHERE request_id IN ('rid-nobody', 'rid-bad-key')`)).toEqual([]);

    const asBob = await callAs(sys.signer, { kind: 'user', userId: 'u_bob' }, undefined, 10_000);
    const refused = await sys.clients.identity.listRequests(
      { userId: 'u_ada', pageSize: 0, pageToken: '', credentialId: '', statusClass: 0, requestId: '' }, asBob).catch((e: unknown) => e);
    expect(readRemoteError(refused)?.code).toBe('forbidden');
    const recordAsUser = await sys.clients.identity.recordRequests({ requests: [] }, asBob).catch((e: unknown) => e);
    expect(readRemoteError(recordAsUser)).toBeDefined();
  });

  it('counts answers by status class on the usage screen', async () => {
    const usage = (await ada.get('/usage')).text;
    // The key's section: from its prefix in the heading (whatever name the heading shows beside it).
    const section = usage.slice(usage.indexOf(`<code>${adaKey.slice(0, 12)}`));
    expect(section).toMatch(/<dt>Answers, last 7 days<\/dt><dd><a href="\/requests\?key=k_ada&amp;status=2xx">2xx: 2<\/a>, <a href="\/requests\?key=k_ada&amp;status=4xx">4xx: 1<\/a><\/dd>/);
  });

  it('sweeps rows older than 7 days and trims a user to their newest', async () => {
    const day = 86_400_000;
    await sys.db!.query(
      `INSERT INTO identity.request_log (user_id, credential_id, credential_kind, at, surface, method, path, status, latency_ms, request_id)
       VALUES ('u_bob', 'k_bob', 'api_key', $1, 'rest', 'GET', '/v1/me', 200, 1, 'rid-old'),
              ('u_bob', 'k_bob', 'api_key', $2, 'rest', 'GET', '/v1/me', 200, 1, 'rid-recent-1'),
              ('u_bob', 'k_bob', 'api_key', $3, 'rest', 'GET', '/v1/me', 200, 1, 'rid-recent-2')`,
      [new Date(Date.now() - 8 * day), new Date(Date.now() - 2 * day), new Date(Date.now() - day)],
    );
    // Past the retention, a row is not shown even before a sweep deletes it.
    expect((await bob.get('/requests')).text).not.toContain('rid-old');
    const retention = createRequestLogRetention(createRequestLogRepository(sys.db!), (e) => { throw e; });
    retention.touch(['u_bob']);
    await retention.sweep(new Date(), 2);
    await retention.stop();
    const left = await sys.db!.query<{ request_id: string }>(`SELECT request_id FROM identity.request_log WHERE user_id = 'u_bob' ORDER BY at DESC`);
    expect(left.map((r) => r.request_id)).toEqual(['rid-bob-me', 'rid-recent-2']);
    // A backlog goes in batches until none is left; the rows of the retention stay.
    for (let i = 0; i < 5; i++) {
      await sys.db!.query(
        `INSERT INTO identity.request_log (user_id, credential_id, credential_kind, at, surface, method, path, status, latency_ms, request_id)
         VALUES ('u_bob', 'k_bob', 'api_key', $1, 'rest', 'GET', '/v1/me', 200, 1, $2)`, [new Date(Date.now() - (8 + i) * day), `rid-backlog-${i}`]);
    }
    expect(await createRequestLogRepository(sys.db!).deleteOlderThan(new Date(Date.now() - 7 * day), 2)).toBe(5);
    const kept = await sys.db!.query<{ request_id: string }>(`SELECT request_id FROM identity.request_log WHERE user_id = 'u_bob' ORDER BY at DESC`);
    expect(kept.map((r) => r.request_id)).toEqual(['rid-bob-me', 'rid-recent-2']);
    expect((await sys.db!.query(`SELECT 1 FROM identity.request_log WHERE user_id = 'u_ada'`)).length).toBeGreaterThan(0);
  });

  it('answers a request when the log cannot be written: the batch is dropped and counted', async () => {
    const unsent = async () => (await metrics.requestLogDropped.get()).values.find((v) => v.labels.reason === 'unsent')?.value ?? 0;
    const before = await unsent();
    await sys.db!.query(`ALTER TABLE identity.request_log RENAME TO request_log_away`);
    try {
      expect((await call(adaKey, '/v1/me', 'rid-while-away')).status).toBe(200);
      await expect.poll(unsent, { timeout: 10_000, interval: 250 }).toBeGreaterThan(before);
    } finally {
      await sys.db!.query(`ALTER TABLE identity.request_log_away RENAME TO request_log`);
    }
    expect((await call(adaKey, '/v1/me', 'rid-back')).status).toBe(200);
    await adaSees('rid-back');
  });
});
