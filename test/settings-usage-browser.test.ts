// The usage screen in a real browser (headless Chromium): reached from the navigation by keyboard,
// it shows the requests a key just made as today's bar (its tooltip) and in the table behind a
// disclosure, under the strict Content-Security-Policy without a single violation, and fits a phone.
// The just-in-time consent switch is pressed by keyboard on the communities screen.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { utcDay } from '../services/kit/utc-day.js';
import { screenshotPath, signedInPage, useSystemWithBrowser } from './helpers/chromium.js';
import { bearer, request } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';

const adaKey = liveKey();
const seed: SeedInput = {
  users: [{ id: 'u_ada', email: 'ada@example.org', name: 'Ada Lovelace', plan: 'paid' }],
  communities: [{ id: 'c_bio', name: 'Biology', owner: { user: 'u_ada' } }],
  keys: [{ id: 'k_ada', secret: adaKey, owner: { user: 'u_ada' }, scopes: ['search:read', 'profile:read'], requested_rate: 120 }],
};

describe('settings web app in a browser: the usage screen', () => {
  const suite = useSystemWithBrowser(seed);

  const signedIn = (width: number) => signedInPage(suite, 'u_ada', width);


  /** Presses Tab until the element whose text is (or starts like) `name` has the focus (at most 30 times). */
  async function tabTo(page: Page, name: string | RegExp): Promise<void> {
    for (let i = 0; i < 30; i++) {
      await page.keyboard.press('Tab');
      const focused = await page.evaluate(() => document.activeElement?.textContent?.trim() ?? '');
      if (typeof name === 'string' ? focused === name : name.test(focused)) return;
    }
    throw new Error(`${name} is not reachable by keyboard`);
  }

  it('reached by keyboard, shows the requests the key made today as a bar and in the table, without a CSP violation', async () => {
    for (let i = 0; i < 4; i++) expect((await request(suite.sys.restUrl, 'GET', '/v1/me', { headers: bearer(adaKey) })).status).toBe(200);
    const today = utcDay(new Date());
    // Earlier days as the recorder's flushes left them, so the chart has a history to show:
    // history[0] is yesterday.
    const history = [3, 8, 0, 12, 6, 0, 0, 9, 14, 5, 2, 0, 7, 11];
    await suite.sys.db!.query(
      `INSERT INTO identity.key_usage_daily (key_id, day, requests)
       SELECT 'k_ada', $2::date - n::int, r FROM unnest($1::int[]) WITH ORDINALITY AS h(r, n) WHERE r > 0`,
      [history, today],
    );
    const { page, violations } = await signedIn(1000);
    await tabTo(page, 'Usage');
    await page.keyboard.press('Enter');
    await page.waitForURL('**/usage');
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Usage');

    const chart = page.getByRole('img', { name: /^Requests per day, key svc_live_/ });
    await expect(chart.count()).resolves.toBe(1);
    await expect(chart.locator('g.today > title').textContent()).resolves.toBe(`${today}: 4 requests`);
    const bar = await chart.locator('g.today > rect.bar').boundingBox();
    expect(bar!.height).toBeGreaterThan(10);
    await expect(page.getByText('Standard tier: bursts of up to 120 requests, refilling 120 per minute; no daily cap.').isVisible()).resolves.toBe(true);

    await expect(chart.locator('g.day > title').allTextContents()).resolves.toContain(`${utcDay(new Date(Date.now() - 9 * 86_400_000))}: 14 requests`);
    const shot = screenshotPath('usage');
    if (shot) await page.screenshot({ path: shot, fullPage: true });

    await tabTo(page, /^Requests per day as a table \(key svc_live_/);
    await page.keyboard.press('Enter');
    const row = page.getByRole('row', { name: new RegExp(`^${today} 4$`) });
    await expect(row.isVisible()).resolves.toBe(true);
    expect(violations).toEqual([]);
    await page.context().close();
  });

  it('fits a phone, and turns just-in-time consent on by keyboard with a clear message', async () => {
    const { page, violations } = await signedIn(375);
    await page.goto(`${suite.sys.settingsUrl}/usage`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await expect(page.getByRole('img', { name: /^Requests per day/ }).isVisible()).resolves.toBe(true);
    const phone = screenshotPath('phone-usage');
    if (phone) await page.screenshot({ path: phone, fullPage: true });

    await page.goto(`${suite.sys.settingsUrl}/communities`);
    await tabTo(page, 'Turn just-in-time consent on');
    await page.keyboard.press('Enter');
    await page.getByRole('status').waitFor();
    await expect(page.getByRole('status').textContent()).resolves.toContain('Just-in-time consent is on');
    await expect(page.getByText('Just-in-time consent is on', { exact: false }).count()).resolves.toBeGreaterThan(0);
    expect(violations).toEqual([]);
    await page.context().close();
  });
});
