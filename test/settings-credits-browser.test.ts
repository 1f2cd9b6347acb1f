// The credits screen in a real browser (headless Chromium): sign in with a one-time link, open
// Credits from the navigation, see the balances and the entry of a search charge, change the
// global-search wallet, and the next `scope: public` search is charged to it. Also at phone width,
// by keyboard. With SETTINGS_SCREENSHOTS_DIR set it writes credits.png and phone-credits.png.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { mintSignInLink } from '../deploy/launcher/sign-in-link.js';
import { ownerTypes } from '../services/kit/enums.js';
import { callAs } from '../services/kit/grpc/client.js';
import { launchChromium, screenshotPath } from './helpers/chromium.js';
import { bearer, request } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const adaKey = liveKey();
const seed: SeedInput = {
  users: [
    { id: 'u_ada', email: 'ada@example.org', name: 'Ada Lovelace', plan: 'paid' },
    { id: 'u_pat', email: 'pat@example.org', name: 'Pat Public' },
  ],
  organizations: [
    { id: 'o_lab', name: 'The Lab', members: [{ user: 'u_ada', role: 'member', joined_at: '2021-01-01T00:00:00Z' }] },
    { id: 'o_guild', name: 'Protein Guild', members: [{ user: 'u_ada', role: 'admin', joined_at: '2022-05-01T00:00:00Z' }] },
  ],
  profiles: [{ id: 'p_pat', user: 'u_pat', public: true, name: 'Pat Public', headline: 'Protein design' }],
  wallets: [
    { owner: { user: 'u_ada' }, balance: 12 },
    { owner: { organization: 'o_lab' }, balance: 250 },
    { owner: { organization: 'o_guild' }, balance: 40 },
  ],
  keys: [{ id: 'k_ada', secret: adaKey, owner: { user: 'u_ada' }, scopes: ['search:read'] }],
};

describe('settings web app in a browser: the credits screen', () => {
  let sys: TestSystem;
  let browser: Browser;
  const search = (requestId: string) => request(sys.restUrl, 'POST', '/v1/search', {
    headers: { ...bearer(adaKey), 'x-request-id': requestId }, body: { query: 'protein', scope: 'public' },
  });
  beforeAll(async () => {
    [sys, browser] = await Promise.all([startTestSystem({ seed }), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    await sys?.stop();
  });

  async function creditsPage(width = 1100): Promise<Page> {
    const page = await (await browser.newContext({ viewport: { width, height: 900 } })).newPage();
    const link = await mintSignInLink({ clients: sys.clients, signer: sys.signer, deadlineMs: 10_000 }, sys.settingsUrl!, 'u_ada', 'test');
    await page.goto(link.url);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/keys');
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Credits' }).click();
    await page.waitForURL('**/credits');
    return page;
  }

  it('signs in with a link, opens Credits, sees balances and a charge, changes the global-search wallet; the next public search pays from it', async () => {
    expect((await search('req-browser-1')).status).toBe(200);
    const page = await creditsPage();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Credits');
    const balances = page.getByRole('table', { name: 'Wallets you can spend from' });
    await expect(balances.getByRole('row', { name: /Ada Lovelace \(your personal wallet\) 11/ }).count()).resolves.toBe(1);
    await expect(balances.getByRole('row', { name: /The Lab \(organization\) 250/ }).count()).resolves.toBe(1);
    const recent = page.getByRole('table', { name: 'The newest entries of all your wallets' });
    await expect(recent.getByRole('row', { name: /Search \(search\) Ada Lovelace -1 req-browser-1/ }).count()).resolves.toBe(1);

    await page.getByLabel('Protein Guild (organization)').check();
    await page.getByRole('button', { name: 'Save preference' }).click();
    await page.getByRole('status').waitFor();
    await expect(page.getByRole('status').textContent()).resolves.toBe('Your global-search wallet preference was saved.');
    await expect(page.getByLabel('Protein Guild (organization)').isChecked()).resolves.toBe(true);
    await expect(page.locator('#global-payer').textContent()).resolves.toContain('charged to Protein Guild: your saved preference');

    const res = await search('req-browser-2');
    expect(res.status).toBe(200);
    const operator = await callAs(sys.signer, { kind: 'operator', actor: 'test' }, undefined, 10_000);
    const guild = await sys.clients.billing.listLedgerEntries({ owner: { type: ownerTypes.toEnum('organization'), id: 'o_guild' }, pageSize: 5, pageToken: '' }, operator);
    expect(guild.entries[0]).toMatchObject({ operation: 'search', amount: -1, balanceAfter: 39, requestId: 'req-browser-2' });
    await page.reload();
    await expect(page.getByRole('table', { name: 'The newest entries of all your wallets' })
      .getByRole('row', { name: /Search \(search\) Protein Guild -1 req-browser-2/ }).count()).resolves.toBe(1);
    const shot = screenshotPath('credits');
    if (shot) await page.screenshot({ path: shot, fullPage: true });

    await page.getByRole('link', { name: 'All entries of Protein Guild' }).click();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Wallet: Protein Guild');
    await expect(page.getByText('Balance: 39 credits.').isVisible()).resolves.toBe(true);
    await page.context().close();
  });

  it('is usable at phone width and by keyboard alone: the preference is chosen and saved without a mouse', async () => {
    const page = await creditsPage(375);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.getByLabel('No preference (the order above)').focus();
    await page.keyboard.press('Space');
    await page.getByRole('button', { name: 'Save preference' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('status').waitFor();
    await expect(page.getByLabel('No preference (the order above)').isChecked()).resolves.toBe(true);
    // Ada's personal wallet holds credits, so with no preference it pays.
    await expect(page.locator('#global-payer').textContent()).resolves.toContain('charged to Ada Lovelace');
    const phone = screenshotPath('phone-credits');
    if (phone) await page.screenshot({ path: phone, fullPage: true });
    await page.context().close();
  });
});
