// Legacy organization-owned keys on the API keys screen: listed read-only, with revoke, for the
// organization's managers (owner or admin) only. A plain member or an outsider neither sees them nor
// can revoke them through the page's own endpoints (404, the key keeps working); identity re-checks
// on the gRPC method itself. A manager's revoke makes the very next API request with the key 401.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { callAs } from '../services/kit/grpc/client.js';
import { readRemoteError } from '../services/kit/grpc/errors.js';
import { bearer, request } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { SettingsClient } from './helpers/settings-browser-http.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const labKey = liveKey();
const spareKey = liveKey();
const otherKey = liveKey();
const seed: SeedInput = {
  users: [
    { id: 'u_owner', email: 'owner@example.org', name: 'Olga Owner' },
    { id: 'u_admin', email: 'admin@example.org', name: 'Adam Admin' },
    { id: 'u_member', email: 'member@example.org', name: 'Mo Member' },
    { id: 'u_out', email: 'out@example.org', name: 'Otto Outsider' },
  ],
  organizations: [
    { id: 'o_lab', name: 'Lab', members: [{ user: 'u_owner', role: 'owner' }, { user: 'u_admin', role: 'admin' }, { user: 'u_member', role: 'member' }] },
    { id: 'o_other', name: 'Other', members: [{ user: 'u_out', role: 'owner' }] },
  ],
  communities: [{ id: 'c_lab', name: 'Lab community', owner: { organization: 'o_lab' } }],
  keys: [
    { id: 'k_lab', secret: labKey, owner: { organization: 'o_lab' }, scopes: ['profile:read'] },
    { id: 'k_spare', secret: spareKey, owner: { organization: 'o_lab' }, scopes: ['search:read'], allowlist: ['c_lab'] },
    { id: 'k_other', secret: otherKey, owner: { organization: 'o_other' }, scopes: ['profile:read'] },
  ],
};

const me = (secret: string) => request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(secret) });
let sys: TestSystem;

describe('settings web app: legacy organization keys', () => {
  const signedIn: Record<string, SettingsClient> = {};
  beforeAll(async () => {
    sys = await startTestSystem({ seed });
    for (const user of ['u_owner', 'u_admin', 'u_member', 'u_out']) {
      signedIn[user] = new SettingsClient(sys.settingsUrl!);
      await signedIn[user]!.signIn(sys, user);
    }
  });
  afterAll(async () => sys?.stop());

  it('lists the organization’s keys read-only, with revoke, to its owner and its admin', async () => {
    for (const manager of ['u_owner', 'u_admin']) {
      const page = (await signedIn[manager]!.get('/keys')).text;
      expect(page).toContain('<h2>Keys of organizations you manage</h2>');
      expect(page).toContain('<caption>Lab <span class="hint">(o_lab)</span></caption>');
      expect(page).toContain(`<code>${labKey.slice(0, 15)}…</code>`);
      expect(page).toContain(`<code>${spareKey.slice(0, 15)}…</code>`);
      // Read-only: revoke is the only action on them; the other organization's key is not there.
      expect(page).toContain('href="/keys/k_lab/revoke"');
      expect(page).not.toContain('k_other');
      expect(page).not.toContain(otherKey.slice(0, 15));
      expect(page).toContain('<td data-label="Allowlist">Lab community</td>');
    }
  });

  it('shows a plain member and an outsider nothing of them; their revoke through the page is 404 and the key keeps working', async () => {
    for (const user of ['u_member', 'u_out']) {
      const client = signedIn[user]!;
      const page = (await client.get('/keys')).text;
      expect(page).not.toContain(labKey.slice(0, 15));
      expect(page).not.toContain('k_lab');
      expect((await client.get('/keys/k_lab/revoke')).status).toBe(404);
      const forged = await client.submit('/keys', '/keys/k_lab/revoke');
      expect(forged.status).toBe(404);
      expect(forged.text).toContain('key k_lab not found');
    }
    expect((await me(labKey)).status).toBe(200);
  });

  it('has identity refuse a member on the gRPC methods themselves', async () => {
    const asMember = await callAs(sys.signer, { kind: 'user', userId: 'u_member' }, undefined, 10_000);
    const [revoke, listed, othersList] = await Promise.all([
      sys.clients.identity.revokeKey({ keyId: 'k_lab' }, asMember).catch((e) => e),
      sys.clients.identity.listOrganizationKeys({ userId: 'u_member' }, asMember),
      sys.clients.identity.listOrganizationKeys({ userId: 'u_owner' }, asMember).catch((e) => e),
    ]);
    expect(readRemoteError(revoke)?.code).toBe('not_found');
    expect(listed.organizations).toEqual([]);
    expect(readRemoteError(othersList)?.code).toBe('forbidden');
    expect((await me(labKey)).status).toBe(200);
  });

  it('lets a manager revoke one after a confirmation: the very next API request with it is 401, the other key still works', async () => {
    const admin = signedIn.u_admin!;
    expect((await me(labKey)).status).toBe(200);
    const confirm = await admin.get('/keys/k_lab/revoke');
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('of the organization <strong>Lab</strong>');
    const revoked = await admin.submit('/keys/k_lab/revoke', '/keys/k_lab/revoke');
    expect(revoked.status).toBe(303);
    expect(revoked.headers.get('location')).toBe('/keys?revoked=k_lab');
    const after = await admin.get('/keys?revoked=k_lab');
    expect(after.text).toContain(`Key ${labKey.slice(0, 15)}… was revoked: requests with it are refused.`);
    expect(after.text).not.toContain('href="/keys/k_lab/revoke"');
    expect((await me(labKey)).status).toBe(401);
    expect((await me(spareKey)).status).toBe(200);
    // The owner sees it revoked too; revoking it again is not offered.
    expect((await signedIn.u_owner!.get('/keys/k_lab/revoke')).status).toBe(404);
  });
});
