// The service accounts screen in headless Chromium, at 1280 and 375 px: with a long organization,
// community and account name it has no horizontal scroll and no serious or critical axe-core
// violation, nor any Content-Security-Policy violation; an organization owner creates an account
// by keyboard alone (Tab, Space, Enter), sees its secret once and opens its revoke confirmation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { OwnerType } from '../proto/gen/expertnet/common/v1/common.js';
import { callAs } from '../services/kit/grpc/client.js';
import { signedInPage, useSystemWithBrowser } from './helpers/chromium.js';
import { overflowOf, seriousViolations, tabTo } from './helpers/settings-access.js';

const LONG_ORGANIZATION = 'Analytical-Engines-Incorporated-Research-and-Development-Division-Europe';
const LONG_COMMUNITY = 'Interdisciplinary-Computational-Neuroscience-and-Analytical-Engines-Working-Group';
const LONG_ACCOUNT = 'nightly-roster-synchronisation-job-for-the-analytical-engine-cluster-eu-west-1';
const seed: SeedInput = {
  users: [{ id: 'u_owner', email: 'owner@example.org', name: 'Olga Owner' }],
  organizations: [{ id: 'o_lab', name: LONG_ORGANIZATION, members: [{ user: 'u_owner', role: 'owner' }] }],
  communities: [{ id: 'c_long', name: LONG_COMMUNITY, owner: { organization: 'o_lab' } }],
};

describe('settings web app in a browser: the service accounts screen', () => {
  const suite = useSystemWithBrowser(seed);
  let pages: Page[] = [];
  beforeAll(async () => {
    await suite.sys.clients.identity.createServiceAccount({
      owner: { type: OwnerType.OWNER_TYPE_ORGANIZATION, id: 'o_lab' }, name: LONG_ACCOUNT, scopes: ['profile:read', 'search:read'],
      communityIds: ['c_long'], requestedRate: 0, publicJwk: '',
    }, await callAs(suite.sys.signer, { kind: 'operator', actor: 'browser-test' }, undefined, 10_000));
  });
  afterAll(async () => {
    for (const page of pages) await page.context().close();
    pages = [];
  });

  async function problemsOf(page: Page, screen: string): Promise<string[]> {
    const problems: string[] = [];
    const overflow = await overflowOf(page);
    if (overflow > 0) problems.push(`${screen}: ${overflow}px wider than the window`);
    for (const v of await seriousViolations(page)) problems.push(`${screen}: ${v.impact} ${v.id} (${v.help}) at ${v.targets.join(' ')}`);
    return problems;
  }

  it.each([1280, 375])('at %i px: fits, passes axe, and an owner creates an account by keyboard and opens its revoke confirmation', async (width) => {
    const { page, violations } = await signedInPage(suite, 'u_owner', width);
    pages.push(page);
    const problems: string[] = [];
    await page.goto(`${suite.sys.settingsUrl}/service-accounts`);
    expect(await page.textContent('body')).toContain(LONG_ACCOUNT);
    problems.push(...(await problemsOf(page, 'service accounts')));

    await tabTo(page, 'Name');
    await page.keyboard.type(`Export ${width}`);
    await tabTo(page, 'search:read');
    await page.keyboard.press('Space');
    await tabTo(page, LONG_COMMUNITY);
    await page.keyboard.press('Space');
    await tabTo(page, 'Create service account');
    await page.keyboard.press('Enter');
    await page.waitForURL('**/service-accounts/*/created');
    expect(await page.textContent('#new-secret')).toMatch(/^svc_sa_/);
    problems.push(...(await problemsOf(page, 'service account created')));

    const id = /\/service-accounts\/(sa_[\w-]+)\/created$/.exec(page.url())![1]!;
    await page.goto(`${suite.sys.settingsUrl}/service-accounts/${id}/revoke`);
    problems.push(...(await problemsOf(page, 'revoke service account')));
    expect(problems).toEqual([]);
    expect(violations).toEqual([]);
  });
});
