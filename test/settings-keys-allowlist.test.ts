// The mint form of the API keys screen: a key's name, and its allowlist ticked from the signed-in
// user's reach (named communities they belong to, own, or whose organization they manage). Identity
// re-checks the allowlist against the user's reach: a forged form naming any other community is
// refused with a message and mints nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { KeyEnvironment } from '../proto/gen/expertnet/common/v1/common.js';
import { callAs } from '../services/kit/grpc/client.js';
import { readRemoteError } from '../services/kit/grpc/errors.js';
import { bearer, request } from './helpers/http.js';
import { SettingsClient } from './helpers/settings-browser-http.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const seed: SeedInput = {
  users: [
    { id: 'u_ada', email: 'ada@example.org', name: 'Ada' },
    { id: 'u_eve', email: 'eve@example.org', name: 'Eve' },
  ],
  organizations: [{ id: 'o_lab', name: 'Lab', members: [{ user: 'u_ada', role: 'admin' }] }],
  communities: [
    { id: 'c_bio', name: 'Biology', owner: { organization: 'o_lab' } },
    { id: 'c_chem', name: 'Chemistry', owner: { user: 'u_eve' } },
    { id: 'c_own', name: 'Ada’s own', owner: { user: 'u_ada' } },
    { id: 'c_secret', name: 'Eve’s secret club', owner: { user: 'u_eve' } },
    { id: 'c_gone', name: 'Archived', owner: { user: 'u_ada' }, archived: true },
  ],
  profiles: [{ id: 'p_ada', user: 'u_ada', name: 'Ada' }],
  memberships: [{ community: 'c_chem', profile: 'p_ada', role: 'member' }],
};

function mintedSecretOf(html: string): string {
  return /<code id="new-secret">([^<]+)<\/code>/.exec(html)![1]!;
}

function keyRowsOf(html: string): number {
  return [...html.matchAll(/href="\/keys\/[^/"]+\/revoke"/g)].length;
}

/** The allowlist checkboxes of the mint form: value and the label's text. */
function allowlistChoicesOf(html: string): Array<{ id: string; label: string }> {
  return [...html.matchAll(/<label><input type="checkbox" name="allowlist" value="([^"]+)"> ([^<]+?) <span/g)]
    .map((m) => ({ id: m[1]!, label: m[2]! }));
}

describe('settings web app: naming a key and choosing its allowlist from the user’s reach', () => {
  let sys: TestSystem;
  let ada: SettingsClient;
  beforeAll(async () => {
    sys = await startTestSystem({ seed });
    ada = new SettingsClient(sys.settingsUrl!);
    await ada.signIn(sys, 'u_ada');
  });
  afterAll(async () => sys?.stop());

  it('offers as allowlist the communities the user reaches, by name, and nothing else', async () => {
    const form = (await ada.get('/keys')).text;
    expect(allowlistChoicesOf(form)).toEqual([
      { id: 'c_own', label: 'Ada’s own' },
      { id: 'c_bio', label: 'Biology' },
      { id: 'c_chem', label: 'Chemistry' },
    ]);
    expect(form).not.toContain('c_secret');
    expect(form).not.toContain('c_gone');
    expect(form).toContain('<legend>Community allowlist (optional)</legend>');
    expect(form).toContain('<label for="key-name">Name (optional)</label>');
  });

  it('mints a named key limited to the ticked communities: the list shows the name and the communities by name, the key reaches only them', async () => {
    const minted = await ada.mint({ name: '  Lab notebook  ', preset: 'read', environment: 'live', allowlist: ['c_bio', 'c_chem'] });
    expect(minted.status).toBe(200);
    expect(minted.text).toContain('<strong>Lab notebook</strong>');
    const secret = mintedSecretOf(minted.text);
    const list = (await ada.get('/keys')).text;
    expect(list).toMatch(/<tr><td data-label="Name">Lab notebook<\/td><td data-label="Prefix"><code>svc_live_/);
    expect(list).toContain('<td data-label="Allowlist">Biology, Chemistry</td>');
    const reached = await request(sys.restUrl, 'GET', '/v1/communities', { headers: bearer(secret) });
    expect(reached.status).toBe(200);
    expect(reached.body.communities.map((c: { community_id: string }) => c.community_id)).toEqual(['c_bio', 'c_chem']);
  });

  it('refuses a forged form whose allowlist names a community outside the user’s reach (403, with the reason) and mints nothing', async () => {
    const before = keyRowsOf((await ada.get('/keys')).text);
    for (const outside of [['c_bio', 'c_secret'], ['c_gone'], ['c_nowhere']]) {
      const forged = await ada.submit('/keys', '/keys', { name: 'forged', preset: 'read', allowlist: outside });
      expect(forged.status).toBe(403);
      expect(forged.text).toContain(`the allowlist may name only communities you can read; outside your reach: ${outside.filter((id) => id !== 'c_bio').join(', ')}`);
    }
    const after = (await ada.get('/keys')).text;
    expect(keyRowsOf(after)).toBe(before);
    expect(after).not.toContain('forged');
  });

  it('has identity refuse the same allowlist whatever the surface sends, and communities answer only the user’s own reach', async () => {
    const asAda = await callAs(sys.signer, { kind: 'user', userId: 'u_ada' }, undefined, 10_000);
    const mint = sys.clients.identity.mintKey({
      userId: 'u_ada', name: '', scopes: [], preset: 'read', requestedRate: 0, environment: KeyEnvironment.KEY_ENVIRONMENT_LIVE,
      id: '', secret: '', allowlist: { communityIds: ['c_secret'] },
    }, asAda).catch((e) => e);
    const othersReach = sys.clients.communities.listUserReach({ userId: 'u_eve' }, asAda).catch((e) => e);
    expect([readRemoteError(await mint)?.code, readRemoteError(await othersReach)?.code]).toEqual(['forbidden', 'forbidden']);
  });

  it('refuses a name over 100 characters or with control characters, with a message, and mints nothing', async () => {
    const before = keyRowsOf((await ada.get('/keys')).text);
    const long = await ada.submit('/keys', '/keys', { name: 'n'.repeat(101), preset: 'read' });
    expect(long.status).toBe(400);
    expect(long.text).toContain('name is at most 100 characters');
    const control = await ada.submit('/keys', '/keys', { name: 'bell\u0007', preset: 'read' });
    expect(control.status).toBe(400);
    expect(control.text).toContain('name may not contain control characters');
    expect(keyRowsOf((await ada.get('/keys')).text)).toBe(before);
    // Exactly 100 characters is a name.
    expect((await ada.submit('/keys', '/keys', { name: 'é'.repeat(100), preset: 'read' })).status).toBe(303);
  });

  it('refuses a name holding NUL (sent as %00), naming the field, and mints nothing', async () => {
    const before = keyRowsOf((await ada.get('/keys')).text);
    const nul = await ada.submit('/keys', '/keys', { name: 'nul\u0000key', preset: 'read' });
    expect(nul.status).toBe(400);
    expect(nul.text).toContain('name: must not contain the NUL character (U+0000)');
    expect(keyRowsOf((await ada.get('/keys')).text)).toBe(before);
  });
});
