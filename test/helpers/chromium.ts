// Headless Chromium from the system's package (Debian's `chromium`, which .ci/run installs when
// missing), driven by playwright-core: nothing downloads a browser.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import type { SeedInput } from '../../deploy/admin/seed-schema.js';
import { mintSignInLink } from '../../deploy/launcher/sign-in-link.js';
import { startTestSystem, type TestSystem } from './test-system.js';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`no Chromium at ${CHROMIUM_PATH}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run'],
  });
}

/** Where screenshots go: SETTINGS_SCREENSHOTS_DIR (docs/settings when refreshing the docs), else nowhere. */
export function screenshotPath(name: string): string | undefined {
  const dir = process.env.SETTINGS_SCREENSHOTS_DIR;
  return dir ? `${dir}/${name}.png` : undefined;
}

/**
 * A suite's system and browser, started together before its tests and stopped after them; read
 * them through the returned object inside the tests.
 */
export function useSystemWithBrowser(seed: SeedInput): { readonly sys: TestSystem; readonly browser: Browser } {
  let sys: TestSystem | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    [sys, browser] = await Promise.all([startTestSystem({ seed }), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    await sys?.stop();
  });
  return {
    get sys() { return sys!; },
    get browser() { return browser!; },
  };
}

/**
 * A page of a new browser context `width` px wide, signed in as `userId` with a one-time link (on
 * the keys screen), and the Content-Security-Policy violations the browser reports on it from then on.
 */
export async function signedInPage(
  suite: { readonly sys: TestSystem; readonly browser: Browser },
  userId: string,
  width: number,
): Promise<{ page: Page; violations: string[] }> {
  const page = await (await suite.browser.newContext({ viewport: { width, height: 900 } })).newPage();
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  const link = await mintSignInLink({ clients: suite.sys.clients, signer: suite.sys.signer, deadlineMs: 10_000 }, suite.sys.settingsUrl!, userId, 'test');
  await page.goto(link.url);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/keys');
  return { page, violations };
}
