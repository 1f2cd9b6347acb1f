// The webhooks screen in headless Chromium (docs/SETTINGS.md "Webhooks"): a person adds an endpoint
// with the form, sees its signing secret once (a reload shows it no more), disables and enables it,
// and rotates its secret (the new one once). At 1280 and 375 px every page fits the window and has
// no serious or critical axe-core violation, nor any Content-Security-Policy violation.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { launchChromium, signedInPage } from './helpers/chromium.js';
import { overflowOf, seriousViolations } from './helpers/settings-access.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const seed: SeedInput = { users: [{ id: 'u_ada', email: 'ada@example.org', name: 'Ada Lovelace', plan: 'paid' }] };

describe('settings web app in a browser: the webhooks screen', () => {
  let sys: TestSystem;
  let browser: Browser;
  const suite = { get sys() { return sys; }, get browser() { return browser; } };
  beforeAll(async () => {
    // Endpoints may point at this machine (a receiver of the test's own), as in local development.
    [sys, browser] = await Promise.all([startTestSystem({ seed, env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } }), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    await sys?.stop();
  });

  async function problemsOf(page: Page, screen: string): Promise<string[]> {
    const problems: string[] = [];
    const overflow = await overflowOf(page);
    if (overflow > 0) problems.push(`${screen}: ${overflow}px wider than the window`);
    for (const v of await seriousViolations(page)) problems.push(`${screen}: ${v.impact} ${v.id} (${v.help}) at ${v.targets.join(' ')}`);
    return problems;
  }

  it.each([1280, 375])('at %i px: adds an endpoint, its secret shown once, disables, enables and rotates it', async (width) => {
    const { page, violations } = await signedInPage(suite, 'u_ada', width);
    const problems: string[] = [];
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Webhooks' }).click();
    await page.waitForURL('**/webhooks');
    problems.push(...(await problemsOf(page, 'webhooks')));

    const url = `https://93.184.216.34/hooks/${width}/a-rather-long-path-that-must-wrap-rather-than-widen-the-page-at-phone-width`;
    await page.getByLabel('URL').fill(url);
    await page.getByLabel('member.added').check();
    await page.getByLabel('search.completed').check();
    await page.getByLabel('Description (optional)').fill(`Roster sync ${width}`);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.waitForURL('**/webhooks/*/created');
    const secret = (await page.locator('#new-secret').textContent())!.trim();
    expect(secret).toMatch(/^whsec_/);
    problems.push(...(await problemsOf(page, 'endpoint added')));
    await page.reload();
    await expect(page.locator('#new-secret').count()).resolves.toBe(0);
    await expect(page.getByRole('status').first().textContent()).resolves.toContain('already shown');
    expect(await page.content()).not.toContain(secret);

    await page.getByRole('link', { name: 'Go to the endpoint' }).click();
    await expect(page.locator('#endpoint-status').textContent()).resolves.toBe('Enabled');
    expect(await page.textContent('main')).toContain(url);
    problems.push(...(await problemsOf(page, 'endpoint')));
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.waitForURL('**/webhooks/*?done=disabled');
    await expect(page.locator('#endpoint-status').textContent()).resolves.toBe('Disabled by you');
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.waitForURL('**/webhooks/*?done=enabled');
    await expect(page.locator('#endpoint-status').textContent()).resolves.toBe('Enabled');

    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.waitForURL('**/webhooks/*/rotated');
    const rotated = (await page.locator('#new-secret').textContent())!.trim();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    expect(await page.textContent('main')).toContain('keeps signing deliveries beside the new one for 24 hours');
    problems.push(...(await problemsOf(page, 'secret rotated')));

    await page.goto(`${sys.settingsUrl}/webhooks`);
    expect(await page.textContent('main')).toContain(`Roster sync ${width}`);
    expect(problems).toEqual([]);
    expect(violations).toEqual([]);
    await page.context().close();
  });
});
