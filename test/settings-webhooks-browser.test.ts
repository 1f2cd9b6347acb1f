// The webhooks screen in headless Chromium (docs/SETTINGS.md "Webhooks"): a person adds an endpoint
// with the form, sees its signing secret once (a reload shows it no more), disables and enables it,
// and rotates its secret (the new one once); sends a test event to a receiver of the test's own and
// sees it in the delivery log (2xx, latency, the answer's first bytes), then resends it; an endpoint
// whose receiver answers 410, or fails every attempt of the (shortened) schedule, is disabled and
// the screen says why; adding an endpoint and sending it a test event take the keyboard alone. At 1280 and
// 375 px every page fits the window and has no serious or critical axe-core violation, nor any
// Content-Security-Policy violation.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { launchChromium, signedInPage } from './helpers/chromium.js';
import { overflowOf, seriousViolations, tabTo } from './helpers/settings-access.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const seed: SeedInput = { users: [{ id: 'u_ada', email: 'ada@example.org', name: 'Ada Lovelace', plan: 'paid' }] };

describe('settings web app in a browser: the webhooks screen', () => {
  let sys: TestSystem;
  let browser: Browser;
  const suite = { get sys() { return sys; }, get browser() { return browser; } };
  // The receiver: answers 200 with a short body, and keeps what it was sent.
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];
  const receiver: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      if (req.url === '/gone') return void res.writeHead(410).end('gone for good');
      if (req.url === '/failing') return void res.writeHead(500).end('broken');
      received.push({ headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks, got it <b>escaped</b>');
    });
  });
  let receiverUrl: string;
  beforeAll(async () => {
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    // Endpoints may point at this machine (the receiver above), as in local development.
    // A retry schedule of three short waits instead of about three days.
    const env = { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_SCHEDULE: '0.2,0.2,0.2' };
    [sys, browser] = await Promise.all([startTestSystem({ seed, env }), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    await sys?.stop();
    await new Promise((resolve) => receiver.close(resolve));
  });

  /** Reloads the page until the delivery log's first row (its cells by column) passes `done` (the worker delivers in the background). */
  async function untilFirstDelivery(page: Page, done: (row: Record<string, string>) => boolean): Promise<Record<string, string>> {
    for (;;) {
      const row = await page.locator('#deliveries ~ .table-wrap tbody tr').first().evaluate((tr) =>
        Object.fromEntries([...tr.querySelectorAll('td')].map((td) => [td.dataset.label!, td.textContent!.replace(/\s+/g, ' ').trim()]))).catch(() => undefined);
      if (row && done(row)) return row;
      await new Promise((resolve) => setTimeout(resolve, 200));
      await page.reload();
    }
  }

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

  it('sends a test event to a local receiver, sees it in the delivery log with 200, resends it, and opens its two attempts', async () => {
    const { page, violations } = await signedInPage(suite, 'u_ada', 1280);
    await page.goto(`${sys.settingsUrl}/webhooks`);
    await page.getByLabel('URL').fill(`${receiverUrl}/hooks`);
    await page.getByLabel('member.added').check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.waitForURL('**/webhooks/*/created');
    const secret = (await page.locator('#new-secret').textContent())!.trim();
    await page.getByRole('link', { name: 'Go to the endpoint' }).click();
    await expect(page.getByText('No deliveries yet.').isVisible()).resolves.toBe(true);

    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.waitForURL('**/webhooks/*?done=test#deliveries');
    const row = await untilFirstDelivery(page, (r) => r.Result === '200 (succeeded)');
    expect(row).toMatchObject({ Attempts: '1', Answer: 'thanks, got it <b>escaped</b>' });
    expect(row.Event).toMatch(/^webhook\.test evt_/);
    expect(row.Latency).toMatch(/^\d+ ms$/);
    expect(received).toHaveLength(1);
    expect(JSON.parse(received[0]!.body)).toMatchObject({ type: 'webhook.test' });
    expect(received[0]!.headers['webhook-signature']).toMatch(/^v1,/);
    expect(received[0]!.body).not.toContain(secret);
    const problems: string[] = [];
    for (const width of [1280, 375]) {
      await page.setViewportSize({ width, height: 900 });
      problems.push(...(await problemsOf(page, `endpoint with its delivery log at ${width} px`)));
    }
    await page.setViewportSize({ width: 1280, height: 900 });

    await page.getByRole('button', { name: /^Resend webhook\.test/ }).click();
    await page.waitForURL('**/webhooks/*?done=resent#deliveries');
    expect(await untilFirstDelivery(page, (r) => r.Attempts === '2' && r.Result === '200 (succeeded)')).toMatchObject({ Event: row.Event });
    expect(received).toHaveLength(2);
    expect(received[1]!.headers['webhook-id']).toBe(received[0]!.headers['webhook-id']);
    await page.getByRole('link', { name: /^Attempts of webhook\.test/ }).click();
    await page.waitForURL('**/webhooks/*/deliveries/*');
    const attempts = await page.locator('tbody tr').evaluateAll((rows) => rows.map((tr) =>
      [...tr.querySelectorAll('td')].map((td) => td.textContent!.trim()).filter((_, i) => i === 0 || i === 2 || i === 5)));
    expect(attempts).toEqual([['1', '200', 'thanks, got it <b>escaped</b>'], ['2', '200', 'thanks, got it <b>escaped</b>']]);
    for (const width of [1280, 375]) {
      await page.setViewportSize({ width, height: 900 });
      problems.push(...(await problemsOf(page, `a delivery's attempts at ${width} px`)));
    }
    expect(problems).toEqual([]);
    expect(violations).toEqual([]);
    await page.context().close();
  });

  it.each([
    ['gone', 'Disabled: the receiver answered 410 Gone', '410 (failed)'],
    ['failing', 'Disabled after failing every retry for ~3 days', '500 (failed)'],
  ])('an endpoint whose receiver answers /%s is disabled, and the screen says why', async (path, words, result) => {
    const { page, violations } = await signedInPage(suite, 'u_ada', 1280);
    await page.goto(`${sys.settingsUrl}/webhooks`);
    await page.getByLabel('URL').fill(`${receiverUrl}/${path}`);
    await page.getByLabel('member.erased').check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.waitForURL('**/webhooks/*/created');
    await page.getByRole('link', { name: 'Go to the endpoint' }).click();
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.waitForURL('**/webhooks/*?done=test#deliveries');
    expect(await untilFirstDelivery(page, (r) => r.Result === result)).toMatchObject({ Answer: path === 'gone' ? 'gone for good' : 'broken' });
    await expect(page.locator('#endpoint-status').textContent()).resolves.toBe(words);
    await expect(page.getByRole('button', { name: 'Send test event' }).count()).resolves.toBe(0);
    await page.goto(`${sys.settingsUrl}/webhooks`);
    expect(await page.locator('tr', { hasText: `${receiverUrl}/${path}` }).locator('td[data-label=Status]').textContent()).toBe(words);
    expect(violations).toEqual([]);
    await page.context().close();
  });

  it('adds an endpoint and sends it a test event by keyboard alone (Tab, Space, Enter)', async () => {
    const { page, violations } = await signedInPage(suite, 'u_ada', 375);
    await page.goto(`${sys.settingsUrl}/webhooks`);
    await tabTo(page, 'URL');
    await page.keyboard.type(`${receiverUrl}/hooks`);
    await tabTo(page, 'member.erased');
    await page.keyboard.press('Space');
    await tabTo(page, 'Add endpoint');
    await page.keyboard.press('Enter');
    await page.waitForURL('**/webhooks/*/created');
    await tabTo(page, 'Go to the endpoint');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/webhooks\/we_[\w-]+$/);
    await tabTo(page, 'Send test event');
    await page.keyboard.press('Enter');
    await page.waitForURL('**/webhooks/*?done=test#deliveries');
    expect(await untilFirstDelivery(page, (r) => r.Result === '200 (succeeded)')).toMatchObject({ Attempts: '1' });
    expect(violations).toEqual([]);
    await page.context().close();
  });
});
