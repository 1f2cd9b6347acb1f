// The request log screen in a real browser (headless Chromium): reached from the navigation by
// keyboard, it shows the requests a key just made, filters them by status class with the GET form
// (chosen by keyboard), under the strict Content-Security-Policy without a violation, with no
// serious accessibility violation and no horizontal scroll at 1280 and 375 px.
import { describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { screenshotPath, signedInPage, useSystemWithBrowser } from './helpers/chromium.js';
import { bearer, request } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { overflowOf, seriousViolations, tabTo } from './helpers/settings-access.js';

const adaKey = liveKey();
const seed: SeedInput = {
  users: [{ id: 'u_ada', email: 'ada@example.org', name: 'Ada Lovelace', plan: 'paid' }],
  keys: [{ id: 'k_ada', secret: adaKey, owner: { user: 'u_ada' }, scopes: ['profile:read'], requested_rate: 600 }],
};

describe('settings web app in a browser: the request log', () => {
  const suite = useSystemWithBrowser(seed);

  const signedIn = (width: number) => signedInPage(suite, 'u_ada', width);


  it('shows the key’s requests and filters them by status class, by keyboard, at 1280 and 375 px', async () => {
    const call = (path: string, id: string) => request(suite.sys.restUrl, 'GET', path, { headers: { ...bearer(adaKey), 'x-request-id': id } });
    expect((await call('/v1/me', 'rid-browser-ok')).status).toBe(200);
    expect((await call('/v1/nowhere', 'rid-browser-404')).status).toBe(404);
    // The edge sends its batch within a second.
    await expect.poll(async () => (await suite.sys.db!.query(`SELECT 1 FROM identity.request_log WHERE request_id LIKE 'rid-browser-%'`)).length,
      { timeout: 10_000, interval: 250 }).toBe(2);

    for (const width of [1280, 375]) {
      const { page, violations } = await signedIn(width);
      await tabTo(page, 'Requests');
      await page.keyboard.press('Enter');
      await page.waitForURL('**/requests');
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Requests');
      const ok = page.getByRole('row').filter({ hasText: 'rid-browser-ok' });
      await expect(ok.textContent()).resolves.toMatch(/GET.*\/v1\/me.*200.*ms.*rid-browser-ok/s);
      expect(await overflowOf(page)).toBeLessThanOrEqual(0);
      expect(await seriousViolations(page)).toEqual([]);
      const shot = screenshotPath(width === 375 ? 'phone-requests' : 'requests');
      if (shot) await page.screenshot({ path: shot, fullPage: true });

      await tabTo(page, 'Status');
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowDown');
      await tabTo(page, 'Filter');
      await page.keyboard.press('Enter');
      await page.waitForURL(/\/requests\?.*status=4xx/);
      await expect(page.getByRole('row').filter({ hasText: 'rid-browser-404' }).count()).resolves.toBe(1);
      await expect(page.getByRole('row').filter({ hasText: 'rid-browser-ok' }).count()).resolves.toBe(0);
      expect(violations).toEqual([]);
      await page.context().close();
    }
  });
});
