// The credits screen's endpoints over HTTP: what a signed-in user may see and change of wallets.
// Billing re-checks every call: a user sees only the wallets they may spend from (their own and
// their organizations'); another user's or organization's wallet is not found (404), saving it as
// the global-search wallet is forbidden (403), through the page's own endpoints and on the gRPC
// methods themselves; a bad form is refused with a message. Nothing changes on a refusal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { ownerTypes } from '../services/kit/enums.js';
import { callAs } from '../services/kit/grpc/client.js';
import { readRemoteError } from '../services/kit/grpc/errors.js';
import { signedInClients, type SettingsClient } from './helpers/settings-browser-http.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const seed: SeedInput = {
  users: [
    { id: 'u_ada', email: 'ada@example.org', name: 'Ada Lovelace' },
    { id: 'u_bob', email: 'bob@example.org', name: 'Bob Boole' },
  ],
  organizations: [
    { id: 'o_lab', name: 'The Lab', members: [{ user: 'u_ada', role: 'member' }] },
    { id: 'o_bobs', name: 'Bob Works', members: [{ user: 'u_bob', role: 'owner' }] },
  ],
  wallets: [
    { owner: { user: 'u_ada' }, balance: 10 },
    { owner: { user: 'u_bob' }, balance: 7 },
    { owner: { organization: 'o_lab' }, balance: 50 },
    { owner: { organization: 'o_bobs' }, balance: 30 },
  ],
};

const user = (id: string) => ({ type: ownerTypes.toEnum('user'), id });
const organization = (id: string) => ({ type: ownerTypes.toEnum('organization'), id });

describe('settings web app: credit rights', () => {
  let sys: TestSystem;
  let ada: SettingsClient;
  let bob: SettingsClient;
  /** Ada's saved global-search wallet, read as the operator. */
  const adasPreference = async () => {
    const operator = await callAs(sys.signer, { kind: 'operator', actor: 'test' }, undefined, 10_000);
    return (await sys.clients.billing.listSpendableWallets({ userId: 'u_ada' }, operator)).globalSearchPreference;
  };
  beforeAll(async () => {
    sys = await startTestSystem({ seed });
    [ada, bob] = await signedInClients(sys, 'u_ada', 'u_bob');
  });
  afterAll(async () => sys?.stop());

  it('lists only the wallets the signed-in user may spend from', async () => {
    const page = (await ada.get('/credits')).text;
    expect(page).toContain('Ada Lovelace (your personal wallet)');
    expect(page).toContain('The Lab (organization)');
    expect(page).not.toContain('Bob');
    expect([...page.matchAll(/href="(\/credits\/wallets\/[^"]+)"/g)].map((m) => m[1])).toEqual([
      '/credits/wallets/user/u_ada', '/credits/wallets/organization/o_lab',
    ]);
    expect((await ada.get('/credits/wallets/organization/o_lab')).status).toBe(200);
  });

  it('answers 404 for another user’s or organization’s wallet, and for a wallet kind that does not exist', async () => {
    for (const path of ['/credits/wallets/user/u_bob', '/credits/wallets/organization/o_bobs', '/credits/wallets/user/u_nobody', '/credits/wallets/team/t_1']) {
      const res = await ada.get(path);
      expect(res.status, path).toBe(404);
      expect(res.text).not.toContain('Bob Boole');
      expect(res.text).not.toContain('>7<');
    }
    expect((await ada.get('/credits/wallets/user/u_bob')).text).toContain('wallet user:u_bob not found');
  });

  it('refuses saving a wallet the user may not spend from (403) and a bad form (400), changing nothing', async () => {
    expect((await ada.submit('/credits', '/credits/preference', { wallet: 'organization:o_lab' })).status).toBe(303);
    for (const wallet of ['user:u_bob', 'organization:o_bobs']) {
      const res = await ada.submit('/credits', '/credits/preference', { wallet });
      expect(res.status, wallet).toBe(403);
      expect(res.text).toContain('cannot be u_ada');
    }
    const bad = await ada.submit('/credits', '/credits/preference', { wallet: 'everyone' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('wallet: choose one of your wallets, or no preference.');
    expect((await ada.submit('/credits', '/credits/preference', {})).status).toBe(400);
    // Without the page's CSRF token, nothing is saved either.
    expect((await ada.send('POST', '/credits/preference', { wallet: 'none' })).status).toBe(403);
    expect(await adasPreference()).toEqual(organization('o_lab'));
    // Bob's page does not show Ada's choice, and his own preference is untouched.
    const bobs = (await bob.get('/credits')).text;
    expect(bobs).not.toContain('The Lab');
    expect(bobs).toContain('value="none" id="wallet-none" checked');
  });

  it('has billing refuse a signed-in user acting on another user’s wallets, whatever the surface sends', async () => {
    const asBob = await callAs(sys.signer, { kind: 'user', userId: 'u_bob' }, undefined, 10_000);
    const refusals = await Promise.all([
      sys.clients.billing.listSpendableWallets({ userId: 'u_ada' }, asBob).catch((e) => e),
      sys.clients.billing.listLedgerEntries({ owner: user('u_ada'), pageSize: 10, pageToken: '' }, asBob).catch((e) => e),
      sys.clients.billing.listLedgerEntries({ owner: organization('o_lab'), pageSize: 10, pageToken: '' }, asBob).catch((e) => e),
      sys.clients.billing.setGlobalSearchPreference({ userId: 'u_ada', wallet: user('u_ada') }, asBob).catch((e) => e),
      sys.clients.billing.setGlobalSearchPreference({ userId: 'u_bob', wallet: organization('o_lab') }, asBob).catch((e) => e),
      // Nor what only the operator may: read or move any wallet.
      sys.clients.billing.getWallet({ owner: user('u_ada') }, asBob).catch((e) => e),
      sys.clients.billing.creditWallet({ owner: user('u_bob'), amount: 100, reference: 'gift', note: '' }, asBob).catch((e) => e),
    ]);
    // The last two are refused at the service's door (the principal's kind), the others by billing itself.
    expect(refusals.map((e) => readRemoteError(e)?.code)).toEqual(['forbidden', 'not_found', 'not_found', 'forbidden', 'forbidden', 'forbidden', 'forbidden']);
    expect(refusals.map((e) => readRemoteError(e)?.metadata.refused_at === 'door')).toEqual([false, false, false, false, false, true, true]);
    expect(await adasPreference()).toEqual(organization('o_lab'));
    const operator = await callAs(sys.signer, { kind: 'operator', actor: 'test' }, undefined, 10_000);
    expect((await sys.clients.billing.getWallet({ owner: user('u_bob') }, operator)).wallet?.balance).toBe(7);
  });
});
