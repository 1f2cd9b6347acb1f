// The communities screen over HTTP: a billing owner switches API writes on (the attestation, who
// and when, its history) and the next API write succeeds; with just-in-time consent a write is
// queued (422 owner_consent_required), approved on the page, and the retry succeeds; a user who
// does not control a community cannot change it (403), through the page's own endpoints.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { launchChromium, screenshotPath } from './helpers/chromium.js';
import { bearer, request } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { SettingsClient } from './helpers/settings-browser-http.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';
import { mintSignInLink } from '../deploy/launcher/sign-in-link.js';

const ownKey = liveKey();
const jitKey = liveKey();
const WRITE = ['member:write', 'profile:read'];
const seed: SeedInput = {
  users: [
    { id: 'u_own', email: 'own@example.org', name: 'Owen Owner', plan: 'paid' },
    { id: 'u_jit', email: 'jit@example.org', name: 'Jade JIT', plan: 'paid', jit_consent: true },
    { id: 'u_mgr', email: 'mgr@example.org', name: 'Mia Manager' },
    { id: 'u_other', email: 'other@example.org', name: 'Oscar Other' },
  ],
  organizations: [{ id: 'o_lab', name: 'Lab', members: [{ user: 'u_mgr', role: 'admin' }] }],
  communities: [
    { id: 'c_own', name: 'Owned', owner: { user: 'u_own' } },
    { id: 'c_jit', name: 'Consent first', owner: { user: 'u_jit' } },
    { id: 'c_phone', name: 'Pocket club', owner: { user: 'u_jit' } },
    { id: 'c_lab', name: 'Lab community', owner: { organization: 'o_lab' } },
  ],
  keys: [
    { id: 'k_own', secret: ownKey, owner: { user: 'u_own' }, scopes: WRITE },
    { id: 'k_jit', secret: jitKey, owner: { user: 'u_jit' }, scopes: WRITE },
  ],
};

describe('settings web app: the communities screen', () => {
  let sys: TestSystem;
  const add = (secret: string, community: string, email: string) =>
    request(sys.restUrl, 'POST', `/v1/communities/${community}/members`, { headers: bearer(secret), body: { members: [{ email }] } });
  beforeAll(async () => {
    sys = await startTestSystem({ seed });
  });
  afterAll(async () => sys?.stop());

  async function signedIn(userId: string): Promise<SettingsClient> {
    const client = new SettingsClient(sys.settingsUrl!);
    await client.signIn(sys, userId);
    return client;
  }

  it('enables API writes with the attestation (who, when, versioned); the next API write succeeds', async () => {
    const owner = await signedIn('u_own');
    expect((await add(ownKey, 'c_own', 'before@example.org')).status).toBe(422);
    const page = await owner.get('/communities');
    expect(page.text).toContain('Owned');
    expect(page.text).toContain('As billing owner of Owned, I allow API keys');
    const unticked = await owner.submit('/communities', '/communities/c_own/writes', { enabled: 'on' });
    expect(unticked.status).toBe(400);
    expect(unticked.text).toContain('Tick the attestation');
    expect((await add(ownKey, 'c_own', 'still@example.org')).status).toBe(422);

    const on = await owner.submit('/communities', '/communities/c_own/writes', { enabled: 'on', attest: 'yes' });
    expect(on.status).toBe(303);
    const after = await owner.get(on.headers.get('location')!);
    expect(after.text).toContain('API writes are on');
    expect(after.text).toMatch(/<td>1<\/td><td>on<\/td><td>you \(Owen Owner\)<\/td><td>\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/td>/);
    const res = await add(ownKey, 'c_own', 'after@example.org');
    expect(res.status).toBe(200);
    expect(res.body.results[0].status).toBe('added');
  });

  it('queues a write under just-in-time consent (422 owner_consent_required); approving on the page lets the retry through', async () => {
    const first = await add(jitKey, 'c_jit', 'jit.person@example.org');
    expect(first.status).toBe(422);
    expect(first.body.error.code).toBe('owner_consent_required');
    const owner = await signedIn('u_jit');
    const page = await owner.get('/communities');
    expect(page.text).toContain('members.add');
    const id = /action="\/consent\/([^"]+)"/.exec(page.text)![1]!;
    const approved = await owner.submit('/communities', `/consent/${id}`, { decision: 'approve' });
    expect(approved.status).toBe(303);
    expect((await owner.get(approved.headers.get('location')!)).text).toContain('No write waits for your consent.');
    const retry = await add(jitKey, 'c_jit', 'jit.person@example.org');
    expect(retry.status).toBe(200);
  });

  it('refuses a user who does not control the community (403) and lists nothing for them', async () => {
    // A removal is a new operation: it waits in the queue of c_jit, which only u_jit may answer.
    const removal = await request(sys.restUrl, 'DELETE', '/v1/communities/c_jit/members/p_none', { headers: bearer(jitKey) });
    expect(removal.body.error.code).toBe('owner_consent_required');
    const jitPage = await (await signedIn('u_jit')).get('/communities');
    const pendingId = /action="\/consent\/([^"]+)"/.exec(jitPage.text)![1]!;

    const other = await signedIn('u_other');
    const list = await other.get('/communities');
    expect(list.text).toContain('You are not the billing owner of any community');
    const writes = await other.submit('/communities', '/communities/c_jit/writes', { enabled: 'on', attest: 'yes' });
    expect(writes.status).toBe(403);
    expect(writes.text).toContain('you are not the billing owner of community c_jit');
    const consent = await other.submit('/communities', `/consent/${pendingId}`, { decision: 'approve' });
    expect(consent.status).toBe(403);
    expect((await request(sys.restUrl, 'DELETE', '/v1/communities/c_jit/members/p_none', { headers: bearer(jitKey) })).body.error.code).toBe('owner_consent_required');
  });

  it('shows an organization manager the communities their organization owns', async () => {
    const manager = await signedIn('u_mgr');
    const page = await manager.get('/communities');
    expect(page.text).toContain('Lab community');
    expect(page.text).not.toContain('Owned');
  });

  it('renders in a browser (screenshot for the docs)', async () => {
    const browser: Browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
      const link = await mintSignInLink({ clients: sys.clients, signer: sys.signer, deadlineMs: 10_000 }, sys.settingsUrl!, 'u_jit', 'test');
      await page.goto(link.url);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL('**/keys');
      await page.getByRole('link', { name: 'Communities' }).click();
      await expect(page.getByRole('heading', { level: 2, name: /Consent first/ }).isVisible()).resolves.toBe(true);
      await expect(page.getByRole('button', { name: /^Approve/ }).count()).resolves.toBeGreaterThan(0);
      const shot = screenshotPath('communities');
      if (shot) await page.screenshot({ path: shot, fullPage: true });
    } finally {
      await browser.close();
    }
  });

  it('fits a phone with its consent queue, and the queue is answered by keyboard alone', async () => {
    // A write waiting for the owner's consent (one per community and operation, however many retries).
    expect((await add(jitKey, 'c_phone', 'phone@example.org')).body.error.code).toBe('owner_consent_required');
    const browser: Browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 375, height: 800 } });
      const link = await mintSignInLink({ clients: sys.clients, signer: sys.signer, deadlineMs: 10_000 }, sys.settingsUrl!, 'u_jit', 'test');
      await page.goto(link.url);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL('**/keys');
      await page.goto(`${sys.settingsUrl}/communities`);
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
      const approve = page.getByRole('region', { name: /Pocket club/ }).getByRole('button', { name: /^Approve/ }).first();
      await expect(approve.isVisible()).resolves.toBe(true);
      // Tab until the first Approve button has the focus, then press it.
      for (let i = 0; i < 40 && !(await approve.evaluate((b) => b === document.activeElement)); i++) await page.keyboard.press('Tab');
      await expect(approve.evaluate((b) => b === document.activeElement)).resolves.toBe(true);
      await page.keyboard.press('Enter');
      await page.getByRole('status').waitFor();
      await expect(page.getByRole('status').textContent()).resolves.toContain('The consent request was approved');
    } finally {
      await browser.close();
    }
  });
});
