// The credits screen over HTTP: the balance of each wallet the signed-in user may spend from and
// recent ledger entries after a real search charge (operation, payer, credits, time, the request
// id of the API call); and the global-search wallet preference saved on the page deciding who pays
// the next `scope: public` search (money moved, seen in the ledger).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { ownerTypes, type OwnerTypeName } from '../services/kit/enums.js';
import { callAs } from '../services/kit/grpc/client.js';
import { bearer, request } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { SettingsClient } from './helpers/settings-browser-http.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const adaKey = liveKey();
const seed: SeedInput = {
  users: [
    { id: 'u_ada', email: 'ada@example.org', name: 'Ada Lovelace', plan: 'paid' },
    { id: 'u_pat', email: 'pat@example.org', name: 'Pat Public' },
  ],
  organizations: [{ id: 'o_lab', name: 'The Lab', members: [{ user: 'u_ada', role: 'member', joined_at: '2021-01-01T00:00:00Z' }] }],
  profiles: [{ id: 'p_pat', user: 'u_pat', public: true, name: 'Pat Public', headline: 'Protein design' }],
  wallets: [
    { owner: { user: 'u_ada' }, balance: 10 },
    { owner: { organization: 'o_lab' }, balance: 50 },
    { owner: { user: 'u_pat' }, balance: 3 },
  ],
  keys: [{ id: 'k_ada', secret: adaKey, owner: { user: 'u_ada' }, scopes: ['search:read'] }],
};

/** The cells of the page's table rows, tags stripped: what a reader sees in each row. */
function rowsOf(html: string): string[][] {
  return [...html.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...row[1]!.matchAll(/<t[dh][^>]*>([\s\S]*?)<\/t[dh]>/g)].map((cell) => cell[1]!.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ').trim()));
}

describe('settings web app: the credits screen', () => {
  let sys: TestSystem;
  let ada: SettingsClient;
  const search = (requestId: string) => request(sys.restUrl, 'POST', '/v1/search', {
    headers: { ...bearer(adaKey), 'x-request-id': requestId }, body: { query: 'protein', scope: 'public' },
  });
  async function ledger(type: OwnerTypeName, id: string) {
    const operator = await callAs(sys.signer, { kind: 'operator', actor: 'test' }, undefined, 10_000);
    return (await sys.clients.billing.listLedgerEntries({ owner: { type: ownerTypes.toEnum(type), id }, pageSize: 50, pageToken: '' }, operator)).entries;
  }
  beforeAll(async () => {
    sys = await startTestSystem({ seed });
    ada = new SettingsClient(sys.settingsUrl!);
    await ada.signIn(sys, 'u_ada');
  });
  afterAll(async () => sys?.stop());

  it('shows the balance of each wallet the user may spend from and the entry of a real search charge, with its request id', async () => {
    const res = await search('req-credits-first');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('complete');
    expect(res.headers.get('x-request-id')).toBe('req-credits-first');

    const page = await ada.get('/credits');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<a href="/credits" aria-current="page">Credits</a>');
    const rows = rowsOf(page.text);
    // Ada's own wallet paid (it holds credits and no preference is saved): 10 − 1.
    expect(rows).toContainEqual(['Ada Lovelace (your personal wallet)', '9', 'All entries of Ada Lovelace']);
    expect(rows).toContainEqual(['The Lab (organization)', '50', 'All entries of The Lab']);
    expect(page.text).not.toContain('Pat Public');
    const charge = rows.find((r) => r[4] === 'req-credits-first')!;
    expect(charge).toEqual([expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/), 'Search (search)', 'Ada Lovelace', '-1', 'req-credits-first']);
    // The seed grants are entries too, without a request behind them.
    expect(rows).toContainEqual([expect.any(String), 'Starting balance (seed)', 'The Lab', '+50', 'none']);
    expect(page.text).toContain('Your next global search is charged to <strong>Ada Lovelace</strong>');

    // One wallet's own page lists its entries too.
    const own = await ada.get('/credits/wallets/user/u_ada');
    expect(own.status).toBe(200);
    expect(own.text).toContain('Balance: <strong>9</strong> credits.');
    expect(rowsOf(own.text).map((r) => r[4])).toContain('req-credits-first');
  });

  it('saves the global-search wallet on the page; the next scope: public search is charged to it', async () => {
    const saved = await ada.submit('/credits', '/credits/preference', { wallet: 'organization:o_lab' });
    expect(saved.status).toBe(303);
    expect(saved.headers.get('location')).toBe('/credits?done=preference');
    const after = await ada.get('/credits?done=preference');
    expect(after.text).toContain('Your global-search wallet preference was saved.');
    expect(after.text).toContain('value="organization:o_lab" id="wallet-1" checked');
    expect(after.text).toContain('charged to <strong>The Lab</strong>: your saved preference');

    const [adaBefore, labBefore] = [(await ledger('user', 'u_ada')).length, (await ledger('organization', 'o_lab')).length];
    const res = await search('req-credits-lab');
    expect(res.status).toBe(200);
    const lab = await ledger('organization', 'o_lab');
    expect(lab).toHaveLength(labBefore + 1);
    expect(lab[0]).toMatchObject({ operation: 'search', amount: -1, balanceAfter: 49, requestId: 'req-credits-lab', reference: `search:${res.body.search_id}` });
    expect(await ledger('user', 'u_ada')).toHaveLength(adaBefore);
    const page = rowsOf((await ada.get('/credits')).text);
    expect(page).toContainEqual(['The Lab (organization)', '49', 'All entries of The Lab']);
    expect(page).toContainEqual(['Ada Lovelace (your personal wallet)', '9', 'All entries of Ada Lovelace']);
    expect(page.find((r) => r[4] === 'req-credits-lab')).toEqual([expect.any(String), 'Search (search)', 'The Lab', '-1', 'req-credits-lab']);

    // Back to no preference: the personal wallet (it holds credits) pays again.
    expect((await ada.submit('/credits', '/credits/preference', { wallet: 'none' })).status).toBe(303);
    expect((await search('req-credits-back')).status).toBe(200);
    expect((await ledger('user', 'u_ada'))[0]).toMatchObject({ operation: 'search', amount: -1, balanceAfter: 8, requestId: 'req-credits-back' });
    expect(await ledger('organization', 'o_lab')).toHaveLength(labBefore + 1);
  });
});
