// Layout and access of the settings web app in headless Chromium (docs/SETTINGS.md "Layout and
// access"): every screen, signed out and signed in, at 1280 and 375 px has no horizontal scroll and
// no serious or critical axe-core violation, with long names of people (a fellow manager named on
// the communities screen too), keys, communities and applications in the seed. Minting, rolling,
// revoking, consenting to an application and approving a waiting write are done by keyboard alone
// (Tab, Enter, Space). Switching API writes off asks for a confirmation first: without it nothing
// changes. With SETTINGS_SCREENSHOTS_DIR set it writes the screenshots of docs/settings/.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { mintSignInLink } from '../deploy/launcher/sign-in-link.js';
import { ConsentStatus } from '../proto/gen/expertnet/communities/v1/communities_service.js';
import { callAs } from '../services/kit/grpc/client.js';
import { screenshotPath, useSystemWithBrowser } from './helpers/chromium.js';
import { bearer, request } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { overflowOf, seriousViolations, tabTo } from './helpers/settings-access.js';
import { SettingsClient } from './helpers/settings-browser-http.js';

const adaKey = liveKey();
const LONG_KEY_NAME = 'production-ingestion-pipeline-for-the-analytical-engine-cluster-eu-west';
const LONG_COMMUNITY = 'Interdisciplinary-Computational-Neuroscience-and-Analytical-Engines-Working-Group';
const LONG_CLIENT = 'Desk Assistant for Extremely-Long-Application-Names-That-Never-Break-Anywhere';
/** A fellow manager of Ada's organization, named on her communities screen for switching its API writes on. */
const LONG_PERSON = 'Bartholomew-Featherstonehaugh-Cholmondeley-Marjoribanks-of-the-Analytical-Engines-Society';
const seed: SeedInput = {
  users: [
    { id: 'u_ada', email: 'ada.augusta.king.countess.of.lovelace@analytical-engines.example.org', name: 'Ada Augusta King, Countess of Lovelace', plan: 'paid', jit_consent: true },
    { id: 'u_pat', email: 'pat@example.org', name: 'Pat Public' },
    { id: 'u_bea', email: 'bea@example.org', name: LONG_PERSON },
  ],
  organizations: [{ id: 'o_lab', name: 'Analytical Engines Ltd', members: [{ user: 'u_ada', role: 'admin' }, { user: 'u_bea', role: 'admin' }] }],
  communities: [
    { id: 'c_long', name: LONG_COMMUNITY, owner: { user: 'u_ada' } },
    { id: 'c_on', name: 'Writes on', owner: { user: 'u_ada' }, api_writes: true },
    { id: 'c_org', name: 'Zeta engines', owner: { organization: 'o_lab' } },
  ],
  profiles: [{ id: 'p_pat', user: 'u_pat', public: true, name: 'Pat Public', headline: 'Protein design' }],
  wallets: [{ owner: { user: 'u_ada' }, balance: 50 }],
  keys: [
    { id: 'k_long', secret: adaKey, owner: { user: 'u_ada' }, scopes: ['member:write', 'profile:read', 'search:read'] },
    { id: 'k_roll', secret: liveKey(), owner: { user: 'u_ada' }, scopes: ['profile:read'] },
  ],
};

const WIDTHS = [1280, 375] as const;

describe('settings web app in a browser: layout and access', () => {
  const suite = useSystemWithBrowser(seed);
  let clientId: string;
  let grantId: string;
  /** The application's redirect URI: a server of the test's own, so the browser lands somewhere. */
  let application: Server;
  let REDIRECT: string;
  afterAll(() => application?.close());

  const operator = () => callAs(suite.sys.signer, { kind: 'operator', actor: 'access-test' }, undefined, 10_000);
  const asAda = () => callAs(suite.sys.signer, { kind: 'user', userId: 'u_ada' }, undefined, 10_000);
  const pending = async (communityId: string) => (await suite.sys.clients.communities.listConsentRequests(
    { communityId, pageSize: 50, pageToken: '', status: ConsentStatus.CONSENT_STATUS_PENDING, newestFirst: false }, await operator())).requests;
  const apiWrites = async (communityId: string) => (await suite.sys.clients.communities.listControlledCommunities({ userId: 'u_ada' }, await asAda()))
    .communities.find((c) => c.community!.id === communityId)!.community!.apiWrites;
  /** A write to the community whose API writes are off: it waits for Ada's consent. */
  const queueWrite = async (email: string) => {
    const queued = await request(suite.sys.restUrl, 'POST', '/v1/communities/c_long/members', { headers: bearer(adaKey), body: { members: [{ email }] } });
    expect(queued.body.error.code).toBe('owner_consent_required');
  };

  beforeAll(async () => {
    application = createServer((_req, res) => res.end('back at the application'));
    await new Promise<void>((resolve) => application.listen(0, '127.0.0.1', resolve));
    REDIRECT = `http://127.0.0.1:${(application.address() as AddressInfo).port}/callback`;
    // The seed names no key: the rename form names them.
    const client = new SettingsClient(suite.sys.settingsUrl!);
    await client.signIn(suite.sys, 'u_ada');
    for (const [id, name] of [['k_long', LONG_KEY_NAME], ['k_roll', 'Roll me']] as const) {
      expect((await client.submit(`/keys/${id}/rename`, `/keys/${id}/rename`, { name })).status).toBe(303);
    }
    const bea = new SettingsClient(suite.sys.settingsUrl!);
    await bea.signIn(suite.sys, 'u_bea');
    expect((await bea.submit('/communities', '/communities/c_org/writes', { enabled: 'on', attest: 'yes' })).status).toBe(303);
    await queueWrite('grace.hopper@example.org');
    // A ledger entry to show: a public search is charged to Ada.
    expect((await request(suite.sys.restUrl, 'POST', '/v1/search', { headers: bearer(adaKey), body: { query: 'protein', scope: 'public' } })).status).toBe(200);
    const registered = await request(suite.sys.settingsUrl!, 'POST', '/oauth/reg', {
      body: { redirect_uris: [REDIRECT], client_name: LONG_CLIENT, token_endpoint_auth_method: 'none', grant_types: ['authorization_code'], response_types: ['code'] },
    });
    clientId = registered.body.client_id;
    grantId = (await suite.sys.clients.identity.issueAccessToken(
      { userId: 'u_ada', scopes: ['profile:read'], clientId, ttlSeconds: 300, requestedRate: 0, resource: '' }, await operator())).grantId;
  });

  async function newPage(width: number): Promise<Page> {
    const context = await suite.browser.newContext({ viewport: { width, height: 800 } });
    return context.newPage();
  }

  async function signLink(): Promise<string> {
    return (await mintSignInLink({ clients: suite.sys.clients, signer: suite.sys.signer, deadlineMs: 10_000 }, suite.sys.settingsUrl!, 'u_ada', 'test')).url;
  }

  /** Signs in by keyboard: the link's page, Tab to Sign in, Enter. */
  async function signIn(page: Page): Promise<void> {
    await page.goto(await signLink());
    await tabTo(page, 'Sign in');
    await page.keyboard.press('Enter');
    await page.waitForURL('**/keys');
  }

  /** Opens an authorization request of the registered application: its consent page. */
  async function consentPage(page: Page): Promise<void> {
    const url = new URL(`${suite.sys.settingsUrl}/oauth/auth`);
    const verifier = randomBytes(32).toString('base64url');
    for (const [k, v] of Object.entries({
      client_id: clientId, response_type: 'code', redirect_uri: REDIRECT, scope: 'profile:read member:write',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256', state: 'st',
    })) url.searchParams.set(k, v);
    await page.goto(url.href);
    await page.waitForURL('**/authorize/*');
  }

  /** What is wrong with the page as it is: overflow and serious or critical violations, by screen. */
  async function problemsOf(page: Page, screen: string): Promise<string[]> {
    const problems: string[] = [];
    const overflow = await overflowOf(page);
    if (overflow > 0) problems.push(`${screen}: ${overflow}px wider than the window`);
    for (const v of await seriousViolations(page)) problems.push(`${screen}: ${v.impact} ${v.id} (${v.help}) at ${v.targets.join(' ')}`);
    return problems;
  }

  async function shoot(page: Page, name: string): Promise<void> {
    const path = screenshotPath(name);
    if (path) await page.screenshot({ path, fullPage: true });
  }

  it.each(WIDTHS)('every screen at %i px: no horizontal scroll, no serious or critical axe violation; a key minted by keyboard', async (width) => {
    const page = await newPage(width);
    const problems: string[] = [];
    const visit = async (path: string, screen = path) => {
      const response = await page.goto(`${suite.sys.settingsUrl}${path}`);
      expect(response?.status(), path).toBe(200);
      problems.push(...(await problemsOf(page, screen)));
    };
    try {
      await visit('/sign-in');
      await page.goto(await signLink());
      problems.push(...(await problemsOf(page, 'sign-in link')));
      await signIn(page);
      // Mint by keyboard: name, the Read preset (the default), Create key.
      await tabTo(page, 'Name (optional)');
      await page.keyboard.type(`Notebook ${width}`);
      await tabTo(page, 'Create key');
      await page.keyboard.press('Enter');
      await page.waitForURL('**/keys/*/created');
      problems.push(...(await problemsOf(page, 'key created')));

      for (const path of ['/keys', '/keys/k_long/roll', '/keys/k_long/rename', '/keys/k_long/revoke', '/communities',
        '/communities/c_on/writes/off', `/grants/${encodeURIComponent(grantId)}/revoke`, '/credits', '/credits/wallets/user/u_ada',
        '/usage', '/usage/keys/k_long', '/requests']) await visit(path);
      if (width === 375) {
        await page.goto(`${suite.sys.settingsUrl}/communities`);
        await shoot(page, 'phone-communities');
      }
      await consentPage(page);
      problems.push(...(await problemsOf(page, 'OAuth consent')));
      if (width === 375) await shoot(page, 'phone-consent');
    } finally {
      await page.context().close();
    }
    expect(problems).toEqual([]);
  });

  it('shows people, ledger operations and attestations in words, long names whole in a title', async () => {
    const page = await newPage(1280);
    try {
      await signIn(page);
      await expect(page.locator(`[title="${LONG_KEY_NAME}"]`).count()).resolves.toBeGreaterThan(0);
      // The usage screen names the key by its name (its prefix beside).
      await page.goto(`${suite.sys.settingsUrl}/usage`);
      await expect(page.getByRole('heading', { level: 2, name: new RegExp(`^Key ${LONG_KEY_NAME} \\(svc_live_`) }).count()).resolves.toBe(1);
      await page.goto(`${suite.sys.settingsUrl}/credits`);
      const credits = (await page.locator('main').textContent())!;
      expect(credits).toContain('Search (search)');
      expect(credits).toContain('Starting balance (seed)');
      await page.goto(`${suite.sys.settingsUrl}/communities`);
      const communities = (await page.locator('main').textContent())!;
      expect(communities).toContain('Writes on');
      expect(communities).not.toContain('u_ada');
      // A fellow manager by the name recorded when they switched writes on, whole (wrapped).
      await expect(page.getByRole('cell', { name: LONG_PERSON, exact: true }).count()).resolves.toBe(1);
      expect(communities).not.toContain('u_bea');
    } finally {
      await page.context().close();
    }
  });

  it('rolls and revokes a key, connects an application and approves a waiting write, by keyboard alone', async () => {
    const page = await newPage(375);
    try {
      await signIn(page);
      // Roll: the key's Roll link, the default grace period, Roll key.
      await tabTo(page, 'Roll Roll me');
      await page.keyboard.press('Enter');
      await page.waitForURL('**/keys/k_roll/roll');
      await tabTo(page, 'Roll key');
      await page.keyboard.press('Enter');
      await page.waitForURL('**/keys/*/created');
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toMatch(/created|rolled/i);

      // Revoke the long-named key: its Revoke link, then the confirmation's button.
      await page.goto(`${suite.sys.settingsUrl}/keys`);
      await tabTo(page, `Revoke ${LONG_KEY_NAME}`);
      await page.keyboard.press('Enter');
      await page.waitForURL('**/keys/k_long/revoke');
      await tabTo(page, 'Revoke key');
      await page.keyboard.press('Enter');
      await page.getByText('was revoked').waitFor();

      // Connect the application: tick member:write with Space, then Allow.
      await consentPage(page);
      await tabTo(page, /member:write/);
      await page.keyboard.press('Space');
      await tabTo(page, 'Allow');
      await page.keyboard.press('Enter');
      await page.waitForURL(`${REDIRECT}?code=**`);
      const grants = (await suite.sys.clients.identity.listGrants({ userId: 'u_ada', pageSize: 100, pageToken: '' }, await asAda())).grants;
      expect(grants.filter((g) => g.clientId === clientId && !g.revokedAt).map((g) => [...g.scopes].sort()))
        .toContainEqual(['member:write', 'profile:read']);

      // Approve the waiting write.
      const [waiting] = await pending('c_long');
      expect(waiting).toBeDefined();
      await page.goto(`${suite.sys.settingsUrl}/communities`);
      await tabTo(page, 'Approve');
      await page.keyboard.press('Enter');
      await page.waitForURL('**/communities?done=approved');
      expect((await pending('c_long')).map((r) => r.id)).not.toContain(waiting!.id);
    } finally {
      await page.context().close();
    }
  });

  it('asks for a confirmation before API writes are switched off: without it nothing changes', async () => {
    // Straight to the form's action without the confirmation: nothing changes, and the answer is the confirmation.
    const client = new SettingsClient(suite.sys.settingsUrl!);
    await client.signIn(suite.sys, 'u_ada');
    const unconfirmed = await client.submit('/communities', '/communities/c_on/writes', { enabled: 'off' });
    expect(unconfirmed.status).toBe(303);
    expect(unconfirmed.headers.get('location')).toBe('/communities/c_on/writes/off');
    expect(await apiWrites('c_on')).toBe(true);

    // In the browser, by keyboard: Turn API writes off, the confirmation page, Cancel changes nothing.
    const page = await newPage(375);
    try {
      await signIn(page);
      await page.goto(`${suite.sys.settingsUrl}/communities`);
      await tabTo(page, 'Turn API writes off');
      await page.keyboard.press('Enter');
      await page.waitForURL('**/communities/c_on/writes/off');
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Turn API writes off?');
      await shoot(page, 'phone-writes-off-confirm');
      await tabTo(page, 'Cancel');
      await page.keyboard.press('Enter');
      await page.waitForURL('**/communities');
      expect(await apiWrites('c_on')).toBe(true);

      await tabTo(page, 'Turn API writes off');
      await page.keyboard.press('Enter');
      await page.waitForURL('**/communities/c_on/writes/off');
      await tabTo(page, 'Yes, turn API writes off');
      await page.keyboard.press('Enter');
      await page.waitForURL('**/communities?done=writes-off');
      expect(await apiWrites('c_on')).toBe(false);
      // The new attestation version names Ada by her name.
      const history = page.getByRole('table', { name: 'Attestation history of Writes on' });
      await expect(history.textContent()).resolves.toContain('Ada Augusta King, Countess of Lovelace');
      await expect(history.textContent()).resolves.not.toContain('u_ada');
    } finally {
      await page.context().close();
    }
  });
});
