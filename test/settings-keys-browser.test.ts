// The API keys screen in a real browser (headless Chromium): sign in with a one-time link, mint a
// named key with the Read preset and an allowlist ticked from the user's reach, copy the secret shown
// once, reload that page (nothing is minted again), use it on the API, revoke it with a
// confirmation, and the very next API request with it is refused; the legacy key of an organization
// the user manages is listed beside. Also at phone width, by keyboard; the keys table with a long
// unbroken name at 1280 and 375 px; the Advanced scopes offered under Advanced only.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { mintSignInLink } from '../deploy/launcher/sign-in-link.js';
import { callAs } from '../services/kit/grpc/client.js';
import { screenshotPath, useSystemWithBrowser } from './helpers/chromium.js';
import { bearer, request } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';

const seed: SeedInput = {
  users: [{ id: 'u_ada', email: 'ada@example.org', name: 'Ada Lovelace', plan: 'paid' }],
  organizations: [{ id: 'o_lab', name: 'Analytical Engines Ltd', members: [{ user: 'u_ada', role: 'admin' }] }],
  communities: [
    { id: 'c_bio', name: 'Biology', owner: { user: 'u_ada' } },
    { id: 'c_math', name: 'Mathematics', owner: { organization: 'o_lab' } },
  ],
  keys: [{ id: 'k_lab', secret: liveKey(), owner: { organization: 'o_lab' }, scopes: ['profile:read'] }],
};

describe('settings web app in a browser: the API keys screen', () => {
  const suite = useSystemWithBrowser(seed);

  const asOperator = () => callAs(suite.sys.signer, { kind: 'operator', actor: 'browser-test' }, undefined, 10_000);
  const ownKeys = async () => (await suite.sys.clients.identity.listKeys({ userId: 'u_ada', pageSize: 100, pageToken: '' }, await asOperator())).keys.map((k) => k.id);

  async function signedInPage(width = 1100): Promise<Page> {
    const context = await suite.browser.newContext({ viewport: { width, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: suite.sys.settingsUrl! });
    const page = await context.newPage();
    const link = await mintSignInLink({ clients: suite.sys.clients, signer: suite.sys.signer, deadlineMs: 10_000 }, suite.sys.settingsUrl!, 'u_ada', 'test');
    await page.goto(link.url);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/keys');
    return page;
  }

  it('signs in with a link, mints a Read key, copies its secret, uses it (200), revokes it (then 401)', async () => {
    const page = await signedInPage();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('API keys');
    await expect(page.getByText('You have no API keys yet.').isVisible()).resolves.toBe(true);
    const shot = screenshotPath('keys-empty');
    if (shot) await page.screenshot({ path: shot, fullPage: true });

    await page.getByLabel('Name (optional)').fill('Lab notebook');
    await page.getByLabel('Read preset', { exact: false }).check();
    await page.getByLabel('Biology').check();
    await page.getByLabel('Test').check();
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.waitForURL('**/keys/*/created');
    await page.getByRole('button', { name: 'Copy secret' }).click();
    await page.getByText('Copied.').waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toBe((await page.locator('#new-secret').textContent())!.trim());
    expect(copied).toMatch(/^svc_test_/);
    const created = screenshotPath('key-created');
    if (created) {
      // The published picture must not show a usable secret: it shows the page with the secret masked.
      await page.locator('#new-secret').evaluate((el) => { el.textContent = 'svc_test_••••••••••••••••••••••••••••••••••••••••••'; });
      await page.screenshot({ path: created, fullPage: true });
    }

    // Reloading the created page mints nothing: it says the secret was shown, and shows it no more.
    const keysBefore = await ownKeys();
    await page.reload();
    await page.getByText('already shown').waitFor();
    await expect(page.locator('#new-secret').count()).resolves.toBe(0);
    expect(await ownKeys()).toEqual(keysBefore);
    expect(keysBefore).toHaveLength(1);

    const me = await request(suite.sys.restUrl, 'GET', '/v1/me', { headers: bearer(copied) });
    expect(me.status).toBe(200);
    expect(me.body.scopes).toEqual(['search:read', 'profile:read', 'enrich:read']);
    expect(me.body.key.environment).toBe('test');
    const reached = await request(suite.sys.restUrl, 'GET', '/v1/communities', { headers: bearer(copied) });
    expect(reached.body.communities.map((c: { community_id: string }) => c.community_id)).toEqual(['c_bio']);

    await page.getByRole('link', { name: 'Back to your keys' }).click();
    await expect(page.getByRole('cell', { name: 'search:read, profile:read, enrich:read' }).count()).resolves.toBe(1);
    await expect(page.getByRole('cell', { name: 'Lab notebook', exact: true }).count()).resolves.toBe(1);
    await expect(page.getByRole('cell', { name: 'Biology', exact: true }).count()).resolves.toBe(1);
    await expect(page.getByRole('heading', { name: 'Keys of organizations you manage' }).isVisible()).resolves.toBe(true);
    const list = screenshotPath('keys-list');
    if (list) await page.screenshot({ path: list, fullPage: true });
    await page.getByRole('link', { name: 'Revoke Lab notebook' }).click();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Revoke key');
    const confirm = screenshotPath('key-revoke-confirm');
    if (confirm) await page.screenshot({ path: confirm, fullPage: true });
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText('was revoked').waitFor();

    const after = await request(suite.sys.restUrl, 'GET', '/v1/me', { headers: bearer(copied) });
    expect(after.status).toBe(401);
    await page.context().close();
  });

  it('is usable at phone width and by keyboard alone: labelled controls, Advanced scopes, a clear refusal', async () => {
    const page = await signedInPage(375);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    // Advanced without a scope: the refusal says what to do, and nothing is minted.
    await page.getByLabel('Advanced', { exact: false }).focus();
    await page.keyboard.press('Space');
    await page.getByRole('button', { name: 'Create key' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('alert').waitFor();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('choose at least one scope');
    // The refusal is beside the form, which keeps what was chosen: Advanced, its scopes on offer.
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('API keys');
    await expect(page.getByLabel('Advanced', { exact: false }).isChecked()).resolves.toBe(true);
    const refusal = screenshotPath('phone-refusal');
    if (refusal) await page.screenshot({ path: refusal, fullPage: true });
    await page.getByLabel('self:enrich', { exact: false }).check();
    await page.getByLabel('Requested rate (requests per minute)').fill('30');
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Key created');
    await expect(page.locator('main').textContent()).resolves.toContain('self:enrich');
    await expect(page.locator('main').textContent()).resolves.toContain('svc_test_');
    const phone = screenshotPath('phone-key-created');
    if (phone) {
      await page.locator('#new-secret').evaluate((el) => { el.textContent = 'svc_test_••••••••••••••••••••••••••••••••••••••••••'; });
      await page.screenshot({ path: phone, fullPage: true });
    }
    await page.context().close();
  });

  it('offers the Advanced scopes under Advanced only, so the preset and ticked scopes cannot disagree', async () => {
    const page = await signedInPage();
    await expect(page.getByLabel('Read preset', { exact: false }).isChecked()).resolves.toBe(true);
    await expect(page.getByLabel('member:write', { exact: false }).isVisible()).resolves.toBe(false);
    await page.getByLabel('Advanced', { exact: false }).check();
    await page.getByLabel('member:write', { exact: false }).check();
    // Back to Read: the ticked scope is no longer on offer, and not sent.
    await page.getByLabel('Read preset', { exact: false }).check();
    await expect(page.getByLabel('member:write', { exact: false }).isVisible()).resolves.toBe(false);
    await expect(page.getByLabel('Test', { exact: true }).isChecked()).resolves.toBe(true);
    await page.getByLabel('Name (optional)').fill('Read only after all');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.waitForURL('**/keys/*/created');
    await expect(page.locator('main').textContent()).resolves.toContain('search:read, profile:read, enrich:read.');
    await page.context().close();
  });

  it('keeps the keys table within the page at 1280 and 375 px, a 100-character unbroken name included', async () => {
    const long = 'N'.repeat(100);
    await suite.sys.clients.identity.mintKey({ userId: 'u_ada', name: long, preset: 'read' }, await asOperator());
    for (const width of [1280, 375]) {
      const page = await signedInPage(width);
      const overflow = await page.evaluate(() => ({
        page: document.documentElement.scrollWidth - window.innerWidth,
        tables: [...document.querySelectorAll('.table-wrap')].map((w) => w.scrollWidth - w.clientWidth),
      }));
      expect(overflow.page, `${width} px`).toBeLessThanOrEqual(0);
      for (const table of overflow.tables) expect(table, `${width} px`).toBeLessThanOrEqual(0);
      // Each row's Revoke link is on the screen; the whole name is in the shortened one's title.
      const revoke = page.getByRole('link', { name: `Revoke ${long}` });
      const box = (await revoke.boundingBox())!;
      expect(box.x + box.width, `${width} px`).toBeLessThanOrEqual(width);
      await expect(page.locator(`[title="${long}"]`).count()).resolves.toBe(1);
      const shot = screenshotPath(`keys-table-${width}`);
      if (shot) await page.screenshot({ path: shot, fullPage: true });
      await page.context().close();
    }
  });
});
