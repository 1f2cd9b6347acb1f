// A key's life on the settings app over HTTP, and what the API then does with it: minting is
// post/redirect/get (the created page shows the secret once; loading it again mints nothing and
// says it was shown); a refused form comes back with its reason and what was entered; the form and
// the admin CLI mint test keys unless told otherwise; newest first on the page; a key renamed; a
// key minted to expire, and a key rolled from the page. What identity and the API do with expiry,
// rolls and the order, on both stores, is test/key-expiry-roll.test.ts's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { keyEnvironments } from '../services/kit/enums.js';
import { callAs } from '../services/kit/grpc/client.js';
import { runAdminCli } from './helpers/admin-cli.js';
import { bearer, request } from './helpers/http.js';
import { csrfTokenOf, SettingsClient } from './helpers/settings-browser-http.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const seed: SeedInput = {
  users: [
    { id: 'u_ada', email: 'ada@example.org', name: 'Ada Lovelace', plan: 'paid' },
    { id: 'u_bob', email: 'bob@example.org', name: 'Bob', plan: 'paid' },
  ],
  communities: [{ id: 'c_bio', name: 'Biology', owner: { user: 'u_ada' } }],
};

describe('settings web app: minting, rolling, renaming and expiring keys', () => {
  let sys: TestSystem;
  let ada: SettingsClient;
  beforeAll(async () => {
    sys = await startTestSystem({ seed });
    ada = new SettingsClient(sys.settingsUrl!);
    await ada.signIn(sys, 'u_ada');
  });
  afterAll(async () => sys?.stop());

  const operator = () => callAs(sys.signer, { kind: 'operator', actor: 'test' }, undefined, 10_000);
  const keysOf = async (userId = 'u_ada') => (await sys.clients.identity.listKeys({ userId, pageSize: 100, pageToken: '' }, await operator())).keys;
  const mintAsOperator = async (fields: { name?: string; expiresInSeconds?: number; userId?: string }) =>
    sys.clients.identity.mintKey({ userId: 'u_ada', preset: 'read', environment: keyEnvironments.toEnum('test'), ...fields }, await operator());
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('mints on POST, shows the secret on the page it redirects to, and a reload mints nothing', async () => {
    const before = (await keysOf()).length;
    const posted = await ada.submit('/keys', '/keys', { name: 'Reloaded', preset: 'read', environment: 'test' });
    expect(posted.status).toBe(303);
    const createdPath = posted.headers.get('location')!;
    expect(createdPath).toMatch(/^\/keys\/[^/]+\/created$/);
    expect(posted.text).not.toMatch(/svc_test_/);

    const shown = await ada.get(createdPath);
    expect(shown.status).toBe(200);
    expect(shown.headers.get('cache-control')).toBe('no-store');
    const secret = /<code id="new-secret">(svc_test_\w+)<\/code>/.exec(shown.text)?.[1];
    expect(secret).toBeDefined();
    expect((await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(secret!) })).status).toBe(200);

    const again = await ada.get(createdPath);
    expect(again.status).toBe(200);
    expect(again.text).toContain('already shown');
    expect(again.text).not.toContain(secret!);
    expect((await keysOf()).length).toBe(before + 1);

    // Two keys minted before either page is opened (two tabs): each page shows its own secret once.
    const first = await ada.submit('/keys', '/keys', { name: 'Tab one', preset: 'read' });
    const second = await ada.submit('/keys', '/keys', { name: 'Tab two', preset: 'read' });
    for (const tab of [second, first]) expect((await ada.get(tab.headers.get('location')!)).text).toMatch(/<code id="new-secret">svc_test_/);

    // Another session cannot open the secret kept for Ada's page.
    const bob = new SettingsClient(sys.settingsUrl!);
    await bob.signIn(sys, 'u_bob');
    expect((await bob.get(createdPath)).status).toBe(404);
  });

  it('shows a refused form again on the same page, with the reason and what was entered, and mints nothing', async () => {
    const before = (await keysOf()).length;
    const advancedNone = await ada.submit('/keys', '/keys', { name: 'Kept name', preset: 'advanced', environment: 'live', requested_rate: '42', expires_in_days: '30', allowlist: 'c_bio' });
    expect(advancedNone.status).toBe(400);
    expect(advancedNone.text).toContain('<h1>API keys</h1>');
    expect(advancedNone.text).toMatch(/role="alert"[^>]*>The key was not created: under Advanced, choose at least one scope/);
    expect(advancedNone.text).toContain('value="Kept name"');
    expect(advancedNone.text).toContain('value="42"');
    expect(advancedNone.text).toMatch(/value="advanced" checked/);
    expect(advancedNone.text).toMatch(/value="live" checked/);
    expect(advancedNone.text).toMatch(/value="30" selected/);
    expect(advancedNone.text).toMatch(/value="c_bio" checked/);

    // Scopes ticked under the Read preset are a contradiction: refused, never dropped.
    const contradiction = await ada.submit('/keys', '/keys', { name: 'Both', preset: 'read', scopes: ['member:write'] });
    expect(contradiction.status).toBe(400);
    expect(contradiction.text).toContain('choose Advanced to pick member:write');
    expect(contradiction.text).toMatch(/value="member:write" checked/);

    // A refusal of identity's (a community beyond Ada's reach) comes back the same way, with its status.
    const beyond = await ada.submit('/keys', '/keys', { name: 'Far', preset: 'read', allowlist: 'c_elsewhere' });
    expect(beyond.status).toBe(403);
    expect(beyond.text).toContain('value="Far"');
    expect(beyond.text).toContain('role="alert"');
    expect((await keysOf()).length).toBe(before);
  });

  it('mints a test key unless told otherwise, on the form and with the admin CLI, and the form says test and live share data', async () => {
    const form = await ada.get('/keys');
    expect(form.text).toMatch(/name="environment" value="test" checked/);
    expect(form.text).not.toMatch(/value="live" checked/);
    expect(form.text).toContain('Test and live keys read and write the same data and spend the same credits here');
    const posted = await ada.send('POST', '/keys', { _csrf: csrfTokenOf(form.text), preset: 'read', name: 'No environment sent' });
    expect(posted.status).toBe(303);
    expect((await keysOf()).find((k) => k.name === 'No environment sent')!.environment).toBe(keyEnvironments.toEnum('test'));

    const cli = await runAdminCli(sys.env, ['keys', 'mint', '--user', 'u_ada', '--preset', 'read', '--name', 'From the CLI']);
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toMatch(/secret \(shown once, keep it\): svc_test_/);
    expect(cli.stdout).toContain('test and live keys read and write the same data and spend the same credits');
  });

  it('renames a key; a refused name comes back with the input kept', async () => {
    const { key } = await mintAsOperator({ name: 'Before' });
    const renamed = await ada.submit(`/keys/${key!.id}/rename`, `/keys/${key!.id}/rename`, { name: 'After' });
    expect(renamed.status).toBe(303);
    expect((await ada.get(renamed.headers.get('location')!)).text).toContain('was renamed: After');
    expect((await keysOf()).find((k) => k.id === key!.id)!.name).toBe('After');

    const tooLong = 'x'.repeat(101);
    const refused = await ada.submit(`/keys/${key!.id}/rename`, `/keys/${key!.id}/rename`, { name: tooLong });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('at most 100 characters');
    expect(refused.text).toContain(`value="${tooLong}"`);
    // Text the store cannot keep (services/kit/request-text.ts): refused naming the field.
    const nul = await ada.submit(`/keys/${key!.id}/rename`, `/keys/${key!.id}/rename`, { name: 'bad \u0000 name' });
    expect(nul.status).toBe(400);
    expect(nul.text).toContain('role="alert"');
    expect((await keysOf()).find((k) => k.id === key!.id)!.name).toBe('After');

    // Bob cannot rename Ada's key.
    const bob = new SettingsClient(sys.settingsUrl!);
    await bob.signIn(sys, 'u_bob');
    expect((await bob.get(`/keys/${key!.id}/rename`)).status).toBe(404);
  });

  it('mints a key that expires from the form (its expiry listed)', async () => {
    const posted = await ada.submit('/keys', '/keys', { name: 'Thirty days', preset: 'read', expires_in_days: '30' });
    expect(posted.status).toBe(303);
    const key = (await keysOf()).find((k) => k.name === 'Thirty days')!;
    const days = (Date.parse(key.expiresAt!) - Date.parse(key.createdAt!)) / 86_400_000;
    expect(Math.round(days)).toBe(30);
    expect((await ada.get('/keys')).text).toMatch(/expires at \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
  });

  it('lists keys newest first on the page', async () => {
    await mintAsOperator({ name: 'Older' });
    await sleep(5);
    await mintAsOperator({ name: 'Newer' });
    const page = await ada.get('/keys');
    expect(page.text.indexOf('>Newer<')).toBeLessThan(page.text.indexOf('>Older<'));
  });

  it('rolls from the settings app: no grace revokes the old key; the created page shows the new secret once', async () => {
    const { key: old, secret: oldSecret } = await mintAsOperator({ name: 'Roll me' });
    const rollPage = await ada.get(`/keys/${old!.id}/roll`);
    expect(rollPage.status).toBe(200);
    expect(rollPage.text).toMatch(/value="86400" checked/);
    const posted = await ada.send('POST', `/keys/${old!.id}/roll`, { _csrf: csrfTokenOf(rollPage.text), grace_seconds: '0' });
    expect(posted.status).toBe(303);
    const shown = await ada.get(posted.headers.get('location')!);
    const secret = /<code id="new-secret">(svc_test_\w+)<\/code>/.exec(shown.text)?.[1];
    expect(shown.text).toContain('which was revoked');
    expect((await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(secret!) })).status).toBe(200);
    expect((await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(oldSecret) })).status).toBe(401);
    expect((await ada.get(posted.headers.get('location')!)).text).toContain('already shown');
    // A key is rolled once; a grace the form does not offer is refused beside the form.
    expect((await ada.get(`/keys/${old!.id}/roll`)).status).toBe(409);
    const { key: other } = await mintAsOperator({ name: 'Odd grace' });
    const odd = await ada.submit(`/keys/${other!.id}/roll`, `/keys/${other!.id}/roll`, { grace_seconds: '12345' });
    expect(odd.status).toBe(400);
    expect(odd.text).toContain('Choose how long the old secret keeps working');
  });

  it('lists both keys after a roll with a grace period, the old one with when it stops working', async () => {
    const { key: old } = await mintAsOperator({ name: 'Graceful' });
    const posted = await ada.submit(`/keys/${old!.id}/roll`, `/keys/${old!.id}/roll`, { grace_seconds: '3600' });
    expect(posted.status).toBe(303);
    const shown = (await ada.get(posted.headers.get('location')!)).text;
    expect(shown).toMatch(/which keeps working until \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    const newPrefix = /Key <strong>Graceful<\/strong> <code>([^<…]+)…<\/code>/.exec(shown)![1]!;
    const list = (await ada.get('/keys')).text;
    expect(list).toContain(`${old!.prefix}…`);
    expect(list).toContain(`${newPrefix}…`);
    expect(list).toMatch(/rolled, expires at \d{4}-/);
  });
});
