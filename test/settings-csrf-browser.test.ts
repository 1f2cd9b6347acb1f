// Cross-site request forgery against the settings app, in headless Chromium: a page on another
// port of the same host plants the app's CSRF cookie for the form's path (document.cookie: cookies
// ignore ports) and auto-posts a token it got elsewhere — from an anonymous sign-in page (with that
// page's pre-session cookie planted too), or from the attacker's own session. For every
// state-changing form of the app, the victim's browser gets the 403 page and nothing changes: the
// token is bound to the victim's session (or, signed out, the form refuses another origin's post).
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { mintSignInLink } from '../deploy/launcher/sign-in-link.js';
import { OwnerType } from '../proto/gen/expertnet/common/v1/common.js';
import { ConsentStatus } from '../proto/gen/expertnet/communities/v1/communities_service.js';
import { callAs } from '../services/kit/grpc/client.js';
import { useSystemWithBrowser } from './helpers/chromium.js';
import { startForgeryServer, type ForgeryServer } from './helpers/forgery-page.js';
import { bearer, request } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { CSRF_COOKIE, csrfTokenOf, PRE_SESSION_COOKIE, SettingsClient } from './helpers/settings-browser-http.js';

const adaKey = liveKey();
const seed: SeedInput = {
  users: [
    { id: 'u_ada', email: 'ada@example.org', name: 'Ada Lovelace', plan: 'paid', jit_consent: true },
    { id: 'u_mal', email: 'mal@example.org', name: 'Mallory Attacker', plan: 'paid' },
  ],
  organizations: [{ id: 'o_lab', name: 'Lab', members: [{ user: 'u_ada', role: 'owner' }] }],
  communities: [
    { id: 'c_off', name: 'Writes off', owner: { user: 'u_ada' } },
    { id: 'c_on', name: 'Writes on', owner: { user: 'u_ada' }, api_writes: true },
    { id: 'c_lab', name: 'Lab experts', owner: { organization: 'o_lab' } },
  ],
  keys: [{ id: 'k_ada', secret: adaKey, owner: { user: 'u_ada' }, scopes: ['member:write', 'profile:read'] }],
};
const REDIRECT = 'http://127.0.0.1:9/callback';
const lab = { type: OwnerType.OWNER_TYPE_ORGANIZATION, id: 'o_lab' };

/** A CSRF cookie and token pair an attacker holds, and the cookies to plant with it. */
interface StolenPair {
  source: string;
  token: string;
  plant: { name: string; value: string }[];
}

/** A state-changing form: where it posts and what, once the victim's page is ready (`prepare`). */
interface Form {
  name: string;
  /** The route it posts to, as the app declares it. */
  route: string;
  signedOut?: boolean;
  prepare(page: Page): Promise<{ path: string; fields: Record<string, string> }>;
}

describe('settings web app in a browser: forged forms from another port of the same host', () => {
  const suite = useSystemWithBrowser(seed);
  let forgeries: ForgeryServer;
  let grantId: string;
  let consentId: string;
  let clientId: string;
  let serviceAccountId: string;
  let endpointId: string;
  let deliveryId: string;
  beforeAll(async () => {
    forgeries = await startForgeryServer();
    grantId = (await suite.sys.clients.identity.issueAccessToken(
      { userId: 'u_ada', scopes: ['profile:read'], clientId: 'notebook', ttlSeconds: 300, requestedRate: 0, resource: '' }, await operator())).grantId;
    // A write to a community whose API writes are off waits for Ada's consent (her switch is on).
    const queued = await request(suite.sys.restUrl, 'POST', '/v1/communities/c_off/members', { headers: bearer(adaKey), body: { members: [{ email: 'x@example.org' }] } });
    expect(queued.body.error.code).toBe('owner_consent_required');
    consentId = (await pendingConsents())[0]!.id;
    const registered = await request(suite.sys.settingsUrl!, 'POST', '/oauth/reg', {
      body: { redirect_uris: [REDIRECT], client_name: 'Desk Assistant', token_endpoint_auth_method: 'none', grant_types: ['authorization_code'], response_types: ['code'] },
    });
    clientId = registered.body.client_id;
    serviceAccountId = (await suite.sys.clients.identity.createServiceAccount(
      { owner: lab, name: 'Nightly sync', scopes: ['profile:read'], communityIds: ['c_lab'], requestedRate: 0, publicJwk: '' }, await operator())).serviceAccount!.id;
    endpointId = (await suite.sys.clients.communities.createWebhookEndpoint(
      { url: 'https://93.184.216.34/hooks', events: ['member.added'] }, await asAda())).endpoint!.id;
    deliveryId = (await suite.sys.clients.communities.sendTestWebhook({ endpointId }, await asAda())).delivery!.id;
  });
  afterAll(async () => forgeries?.close());

  const operator = () => callAs(suite.sys.signer, { kind: 'operator', actor: 'csrf-test' }, undefined, 10_000);
  const asAda = () => callAs(suite.sys.signer, { kind: 'user', userId: 'u_ada' }, undefined, 10_000);
  const pendingConsents = async () => (await suite.sys.clients.communities.listConsentRequests(
    { communityId: 'c_off', pageSize: 50, pageToken: '', status: ConsentStatus.CONSENT_STATUS_PENDING }, await operator())).requests;

  /** Everything the forms could change, as stored by the services. */
  async function storedState() {
    const { identity, communities, billing } = suite.sys.clients;
    const [keys, grants, controlled, user, organization, wallets, pending, accounts, endpoints, deliveries] = await Promise.all([
      identity.listKeys({ userId: 'u_ada', pageSize: 100, pageToken: '' }, await operator()),
      identity.listGrants({ userId: 'u_ada', pageSize: 100, pageToken: '' }, await asAda()),
      communities.listControlledCommunities({ userId: 'u_ada' }, await asAda()),
      identity.getUser({ userId: 'u_ada' }, await operator()),
      identity.getOrganization({ organizationId: 'o_lab' }, await operator()),
      billing.listSpendableWallets({ userId: 'u_ada' }, await asAda()),
      pendingConsents(),
      identity.listServiceAccounts({ owner: lab, pageSize: 100, pageToken: '' }, await operator()),
      communities.listWebhookEndpoints({}, await asAda()),
      communities.listWebhookDeliveries({ endpointId, pageSize: 100, pageToken: '' }, await asAda()),
    ]);
    return {
      keys: keys.keys.map((k) => `${k.id}:${k.name}:${k.revokedAt ? 'revoked' : 'active'}:${k.expiresAt ?? ''}`).sort(),
      grants: grants.grants.map((g) => `${g.clientId}:${g.revokedAt ? 'revoked' : 'active'}`).sort(),
      writes: controlled.communities.map((c) => `${c.community!.id}:${c.community!.apiWrites}:${c.attestations.length}`).sort(),
      jit: [user.user!.jitConsent, organization.organization!.jitConsent],
      preference: wallets.globalSearchPreference ?? null,
      pending: pending.map((p) => p.id),
      serviceAccounts: accounts.serviceAccounts.map((a) => `${a.id}:${a.name}:${a.revokedAt ? 'revoked' : 'active'}`).sort(),
      // A rotation shows only in a delivery's signatures: the endpoint page shows no secret to compare.
      webhookEndpoints: endpoints.endpoints.map((e) => `${e.id}:${e.url}:${e.status}`).sort(),
      // The deliveries made: a forged test would add one (a resend's new attempt races the worker's own retries).
      webhookDeliveries: deliveries.deliveries.map((d) => d.id).sort(),
    };
  }

  /** A pair from an anonymous sign-in page (any token will do), with its pre-session. */
  async function anonymousPair(): Promise<StolenPair> {
    const anonymous = new SettingsClient(suite.sys.settingsUrl!);
    const page = await anonymous.get('/sign-in/link?token=x');
    return {
      source: 'an anonymous sign-in page',
      token: csrfTokenOf(page.text),
      plant: [CSRF_COOKIE, PRE_SESSION_COOKIE].map((name) => ({ name, value: anonymous.cookies.get(name)! })),
    };
  }

  /** A pair from the attacker's own signed-in page. */
  async function attackersSessionPair(): Promise<StolenPair> {
    const mallory = new SettingsClient(suite.sys.settingsUrl!);
    await mallory.signIn(suite.sys, 'u_mal');
    const page = await mallory.get('/keys');
    return { source: "the attacker's own session", token: csrfTokenOf(page.text), plant: [{ name: CSRF_COOKIE, value: mallory.cookies.get(CSRF_COOKIE)! }] };
  }

  async function victimPage(signedIn: boolean): Promise<Page> {
    const page = await (await suite.browser.newContext()).newPage();
    const link = await mintSignInLink({ clients: suite.sys.clients, signer: suite.sys.signer, deadlineMs: 10_000 }, suite.sys.settingsUrl!, 'u_ada', 'test');
    await page.goto(link.url);
    if (!signedIn) return page; // a signed-out browser with a sign-in page (and so a pre-session) of its own
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/keys');
    return page;
  }

  const signInLinkOfMallory = async () =>
    (await mintSignInLink({ clients: suite.sys.clients, signer: suite.sys.signer, deadlineMs: 10_000 }, suite.sys.settingsUrl!, 'u_mal', 'test')).url;

  /** Opens an authorization request in the victim's browser: the consent page's form. */
  async function consentForm(page: Page, decision: string) {
    const url = new URL(`${suite.sys.settingsUrl}/oauth/auth`);
    const verifier = randomBytes(32).toString('base64url');
    for (const [k, v] of Object.entries({
      client_id: clientId, response_type: 'code', redirect_uri: REDIRECT, scope: 'profile:read',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256', state: 'st',
    })) url.searchParams.set(k, v);
    await page.goto(url.href);
    await page.waitForURL('**/authorize/*');
    return { path: new URL(page.url()).pathname, fields: { decision } };
  }

  const FORMS: Form[] = [
    { name: 'key mint', route: '/keys', prepare: async () => ({ path: '/keys', fields: { preset: 'read', name: 'forged' } }) },
    { name: 'key revoke', route: '/keys/:id/revoke', prepare: async () => ({ path: '/keys/k_ada/revoke', fields: {} }) },
    { name: 'key roll', route: '/keys/:id/roll', prepare: async () => ({ path: '/keys/k_ada/roll', fields: { grace_seconds: '3600' } }) },
    { name: 'key rename', route: '/keys/:id/rename', prepare: async () => ({ path: '/keys/k_ada/rename', fields: { name: 'forged' } }) },
    { name: 'connected application revoke', route: '/grants/:id/revoke', prepare: async () => ({ path: `/grants/${grantId}/revoke`, fields: {} }) },
    { name: 'global-search wallet preference', route: '/credits/preference', prepare: async () => ({ path: '/credits/preference', fields: { wallet: 'user:u_ada' } }) },
    { name: 'API writes on', route: '/communities/:id/writes', prepare: async () => ({ path: '/communities/c_off/writes', fields: { enabled: 'on', attest: 'yes' } }) },
    { name: 'API writes off', route: '/communities/:id/writes', prepare: async () => ({ path: '/communities/c_on/writes', fields: { enabled: 'off', confirm: 'yes' } }) },
    { name: 'own just-in-time consent off', route: '/jit-consent', prepare: async () => ({ path: '/jit-consent', fields: { enabled: 'off' } }) },
    { name: "an organization's just-in-time consent on", route: '/jit-consent', prepare: async () => ({ path: '/jit-consent', fields: { enabled: 'on', organization: 'o_lab' } }) },
    { name: 'consent request approve', route: '/consent/:id', prepare: async () => ({ path: `/consent/${consentId}`, fields: { decision: 'approve' } }) },
    { name: 'consent request deny', route: '/consent/:id', prepare: async () => ({ path: `/consent/${consentId}`, fields: { decision: 'deny' } }) },
    { name: 'service account create', route: '/service-accounts', prepare: async () => ({ path: '/service-accounts', fields: { organization_id: 'o_lab', name: 'forged', scopes: 'profile:read', communities: 'c_lab' } }) },
    { name: 'service account revoke', route: '/service-accounts/:id/revoke', prepare: async () => ({ path: `/service-accounts/${serviceAccountId}/revoke`, fields: {} }) },
    { name: 'webhook endpoint add', route: '/webhooks', prepare: async () => ({ path: '/webhooks', fields: { url: 'https://93.184.216.34/forged', events: 'member.added' } }) },
    { name: 'webhook endpoint disable', route: '/webhooks/:id/status', prepare: async () => ({ path: `/webhooks/${endpointId}/status`, fields: { status: 'disabled' } }) },
    { name: 'webhook secret rotate', route: '/webhooks/:id/rotate', prepare: async () => ({ path: `/webhooks/${endpointId}/rotate`, fields: {} }) },
    { name: 'webhook test event', route: '/webhooks/:id/test', prepare: async () => ({ path: `/webhooks/${endpointId}/test`, fields: {} }) },
    { name: 'webhook delivery resend', route: '/webhooks/:id/deliveries/:deliveryId/resend', prepare: async () => ({ path: `/webhooks/${endpointId}/deliveries/${deliveryId}/resend`, fields: {} }) },
    { name: 'webhook endpoint delete', route: '/webhooks/:id/delete', prepare: async () => ({ path: `/webhooks/${endpointId}/delete`, fields: {} }) },
    { name: 'OAuth consent approve', route: '/authorize/:uid', prepare: (page) => consentForm(page, 'approve') },
    { name: 'OAuth consent deny', route: '/authorize/:uid', prepare: (page) => consentForm(page, 'deny') },
    { name: 'sign-out', route: '/sign-out', prepare: async () => ({ path: '/sign-out', fields: {} }) },
    { name: "sign-in with the attacker's link, signed in", route: '/sign-in/link', prepare: async () => ({ path: '/sign-in/link', fields: { token: await signInLinkOfMallory() } }) },
    { name: "sign-in with the attacker's link, signed out", route: '/sign-in/link', signedOut: true, prepare: async () => ({ path: '/sign-in/link', fields: { token: await signInLinkOfMallory() } }) },
  ];

  it('covers every state-changing route the app declares', () => {
    const dir = join(import.meta.dirname, '..', 'gateway/settings');
    const declared = readdirSync(dir).filter((f) => f.endsWith('-routes.ts'))
      .flatMap((f) => [...readFileSync(join(dir, f), 'utf8').matchAll(/app\.(?:post|put|patch|delete)(?:<.*?>)?\('([^']+)'/g)].map((m) => m[1]!));
    expect(declared.length).toBeGreaterThan(0);
    expect([...new Set(declared)].sort()).toEqual([...new Set(FORMS.map((f) => f.route))].sort());
  });

  it.each(FORMS)('refuses a forged $name (403) and changes nothing', async (form) => {
    const page = await victimPage(!form.signedOut);
    try {
      for (const pair of [await anonymousPair(), await attackersSessionPair()]) {
        const { path, fields } = await form.prepare(page);
        expect(path).toMatch(new RegExp(`^${form.route.replace(/:\w+/g, '[^/]+')}$`));
        const before = await storedState();
        const action = `${suite.sys.settingsUrl}${path}`;
        const answered = page.waitForResponse((r) => r.url() === action && r.request().method() === 'POST');
        await page.goto(forgeries.pageFor({ action, fields: { _csrf: pair.token, ...fields }, plant: pair.plant.map((c) => ({ ...c, path })) }), { waitUntil: 'commit' });
        const answer = await answered;
        expect(answer.status(), `a forged ${form.name} with a pair from ${pair.source}`).toBe(403);
        await page.waitForLoadState();
        await expect(page.getByRole('alert').textContent()).resolves.toContain('Reload the page and try again');
        expect(await storedState(), `a forged ${form.name} with a pair from ${pair.source}`).toEqual(before);
      }
      // The victim's browser is as it was: still Ada's session, or still signed out.
      await page.goto(`${suite.sys.settingsUrl}/keys`);
      if (form.signedOut) expect(new URL(page.url()).pathname).toBe('/sign-in');
      else await expect(page.locator('nav .who').textContent()).resolves.toBe('Ada Lovelace');
    } finally {
      await page.context().close();
    }
  });
});
