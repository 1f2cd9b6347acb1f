// Service accounts, end to end on the running system: created by the operator (admin CLI) for an
// organization or a user, with explicit scopes and communities (never "all"); the authorization
// server's client-credentials grant (client_secret_basic and client_secret_post) answers a
// 10-minute JWT for the gRPC API, and refuses a wrong secret (401 invalid_client) and a scope
// outside the account's (400 invalid_scope); identity's Authenticate turns that token into the
// caller of the account — its owner (who pays), its scopes and its communities — for the gRPC
// audience only, and refuses it once the account is revoked. The settings app: an organization's
// owner creates one on the screen (the secret shown once, post/redirect/get) and revokes it; a
// manager who is not an owner manages none. Over the gRPC door (the services called directly with
// the token): the roster of its one community, PERMISSION_DENIED on another of its owner's, and a
// search charged to its owner with the account named on the ledger entry.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OwnerType } from '../proto/gen/expertnet/common/v1/common.js';
import { SearchScope, SearchStatus } from '../proto/gen/expertnet/search/v1/search_service.js';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { callAs } from '../services/kit/grpc/client.js';
import { readRemoteError } from '../services/kit/grpc/errors.js';
import { GRPC_AUDIENCE } from '../services/kit/grpc-audience.js';
import { adminJson, runAdminCli } from './helpers/admin-cli.js';
import { asBearer, directClients, outcomeOf } from './helpers/direct-grpc.js';
import { bearer, request } from './helpers/http.js';
import { payloadOf } from './helpers/oauth.js';
import { SettingsClient } from './helpers/settings-browser-http.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const seed: SeedInput = {
  users: [
    { id: 'u_owner', email: 'owner@example.org', name: 'Olga Owner', plan: 'paid' },
    { id: 'u_admin', email: 'admin@example.org', name: 'Adam Admin' },
  ],
  organizations: [{ id: 'o_lab', name: 'Lab', members: [{ user: 'u_owner', role: 'owner' }, { user: 'u_admin', role: 'admin' }] }],
  communities: [
    { id: 'c_lab', name: 'Lab community', owner: { organization: 'o_lab' } },
    { id: 'c_lab2', name: 'Second lab community', owner: { organization: 'o_lab' } },
  ],
  profiles: [
    { id: 'p_eco', name: 'Elin Ecologist', headline: 'Freshwater pond ecologist' },
    { id: 'p_chem', name: 'Carl Chemist', headline: 'Organic chemistry and catalysis' },
    { id: 'p_geo', name: 'Gina Geologist', headline: 'Glacial sediment geology' },
  ],
  memberships: [
    { community: 'c_lab', profile: 'p_eco' },
    { community: 'c_lab', profile: 'p_chem' },
    { community: 'c_lab2', profile: 'p_geo' },
  ],
  wallets: [{ owner: { organization: 'o_lab' }, balance: 1000 }],
};

let sys: TestSystem;
const cli = (args: string[]) => adminJson({ ...sys.env, USER: 'ops' }, args);

/** A token request to the authorization server, as a machine client makes it. */
async function tokenRequest(form: Record<string, string>, basic?: { id: string; secret: string }) {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (basic) headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(basic.id)}:${encodeURIComponent(basic.secret)}`).toString('base64')}`;
  const response = await fetch(`${sys.settingsUrl}/oauth/token`, { method: 'POST', headers, body: new URLSearchParams(form) });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> };
}

/** Identity's Authenticate as the gRPC door asks it: the token, for `resource`. */
async function authenticate(accessToken: string, resource = GRPC_AUDIENCE) {
  return sys.clients.identity.authenticate(
    { apiKey: '', accessToken, resource, describe: false, acceptCached: false, refresh: false },
    await callAs(sys.signer, { kind: 'edge' }, undefined, 10_000),
  );
}

const refusal = (call: Promise<unknown>) => call.then(() => undefined, (error) => readRemoteError(error));

describe('service accounts', () => {
  beforeAll(async () => {
    sys = await startTestSystem({ seed });
  });
  afterAll(async () => sys?.stop());

  it('advertises the client-credentials grant and secret authentication in the authorization server metadata', async () => {
    const metadata = await request(sys.settingsUrl!, 'GET', '/.well-known/oauth-authorization-server/oauth');
    expect(metadata.body.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token', 'client_credentials']));
    expect(metadata.body.token_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none']));
  });

  it('creates one by the CLI for an organization; its credentials get a 10-minute gRPC token that authenticates as the organization within its communities; revoked, it is refused', async () => {
    const created = await cli([
      'service-accounts', 'create', '--owner-org', 'o_lab', '--name', 'Roster sync', '--scopes', 'profile:read,search:read', '--communities', 'c_lab',
    ]);
    const account = created.service_account;
    const secret = created.client_secret as string;
    expect(account).toMatchObject({
      id: expect.stringMatching(/^sa_/), name: 'Roster sync', owner: { type: 'organization', id: 'o_lab' },
      scopes: ['profile:read', 'search:read'], community_ids: ['c_lab'], rate_tier: 'standard', created_by: 'operator:cli:ops', revoked_at: null,
    });
    expect(secret).toMatch(/^svc_sa_[\w-]{43}$/);
    const listed = await cli(['service-accounts', 'list', '--owner-org', 'o_lab']);
    expect(listed.service_accounts.map((a: { id: string }) => a.id)).toEqual([account.id]);
    expect(JSON.stringify(listed)).not.toContain(secret);

    const issued = await tokenRequest({ grant_type: 'client_credentials' }, { id: account.id, secret });
    expect(issued.status).toBe(200);
    expect(issued.headers.get('cache-control')).toBe('no-store');
    expect(issued.body).toMatchObject({ token_type: 'Bearer', expires_in: 600, scope: 'profile:read search:read' });
    const claims = payloadOf(issued.body.access_token);
    expect(claims).toMatchObject({ iss: `${sys.settingsUrl}/oauth`, aud: GRPC_AUDIENCE, sub: account.id, scope: 'profile:read search:read' });
    expect(Number(claims.exp) - Number(claims.iat)).toBe(600);

    const { caller } = await authenticate(issued.body.access_token);
    expect(caller).toMatchObject({
      credentialId: account.id, owner: { type: OwnerType.OWNER_TYPE_ORGANIZATION, id: 'o_lab' }, userId: '',
      scopes: ['profile:read', 'search:read'], allowlist: { communityIds: ['c_lab'] },
    });
    // The payer of what it does is its owner.
    const payer = await sys.clients.billing.resolvePayer({ operation: 'search', communityId: '', caller },
      await callAs(sys.signer, { kind: 'service', service: 'search' }, undefined, 10_000));
    expect(payer.payer).toMatchObject({ type: OwnerType.OWNER_TYPE_ORGANIZATION, id: 'o_lab' });
    // For the gRPC API only: the REST API and the MCP server refuse it.
    expect((await refusal(authenticate(issued.body.access_token, '')))?.code).toBe('unauthorized');
    expect((await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(issued.body.access_token) })).status).toBe(401);

    const revoked = await cli(['service-accounts', 'revoke', account.id]);
    expect(revoked.service_account.revoked_at).toEqual(expect.any(String));
    const refused = await refusal(authenticate(issued.body.access_token));
    expect(refused).toMatchObject({ code: 'unauthorized', message: 'access token service account is revoked or unknown' });
    expect((await tokenRequest({ grant_type: 'client_credentials' }, { id: account.id, secret })).body.error).toBe('invalid_client');
  });

  it('answers a wrong secret with 401 invalid_client, a scope outside the account with 400 invalid_scope, and a narrower scope (client_secret_post) with that scope', async () => {
    const { service_account: account, client_secret: secret } = await cli([
      'service-accounts', 'create', '--owner-user', 'u_owner', '--name', 'Search bot', '--scopes', 'search:read,profile:read', '--communities', 'c_lab,c_lab2',
    ]);
    const wrong = await tokenRequest({ grant_type: 'client_credentials' }, { id: account.id, secret: `${secret.slice(0, -1)}x` });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('invalid_client');
    expect(wrong.headers.get('www-authenticate')).toContain('Basic');
    const unknown = await tokenRequest({ grant_type: 'client_credentials', client_id: 'sa_nobody', client_secret: secret });
    expect(unknown).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    const outside = await tokenRequest({ grant_type: 'client_credentials', scope: 'search:read member:write' }, { id: account.id, secret });
    expect(outside.status).toBe(400);
    expect(outside.body).toMatchObject({ error: 'invalid_scope', error_description: expect.stringContaining('member:write') });

    const narrow = await tokenRequest({ grant_type: 'client_credentials', scope: 'search:read', client_id: account.id, client_secret: secret });
    expect(narrow.status).toBe(200);
    expect(narrow.body.scope).toBe('search:read');
    const { caller } = await authenticate(narrow.body.access_token);
    // A user's account: the user stands behind it (reach and payer), narrowed to its communities.
    expect(caller).toMatchObject({
      owner: { type: OwnerType.OWNER_TYPE_USER, id: 'u_owner' }, userId: 'u_owner', scopes: ['search:read'], allowlist: { communityIds: ['c_lab', 'c_lab2'] },
    });
  });

  it('registers a public key instead of a secret (private_key_jwt): a signed assertion gets a token once; a replay, another key or a long-lived assertion is invalid_client', async () => {
    const pair = generateKeyPairSync('ed25519');
    const other = generateKeyPairSync('ed25519');
    const folder = mkdtempSync(join(tmpdir(), 'sa-key-'));
    const keyFile = join(folder, 'public.jwk.json');
    writeFileSync(keyFile, JSON.stringify(await exportJWK(pair.publicKey)));
    const { service_account: account, client_secret: secret } = await cli([
      'service-accounts', 'create', '--owner-org', 'o_lab', '--name', 'Keyed job', '--scopes', 'profile:read', '--communities', 'c_lab', '--public-key', keyFile,
    ]);
    expect(secret).toBe('');
    expect(account.token_endpoint_auth_method).toBe('private_key_jwt');

    const now = Math.floor(Date.now() / 1000);
    const assertion = (key = pair.privateKey, exp = now + 120) => new SignJWT({ jti: randomBytes(12).toString('base64url') })
      .setProtectedHeader({ alg: 'EdDSA' }).setIssuer(account.id).setSubject(account.id).setAudience(`${sys.settingsUrl}/oauth/token`)
      .setIssuedAt(now).setExpirationTime(exp).sign(key);
    const withAssertion = (jwt: string) => tokenRequest({
      grant_type: 'client_credentials', client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: jwt,
    });
    const good = await assertion();
    const issued = await withAssertion(good);
    expect(issued.status).toBe(200);
    expect(issued.body.scope).toBe('profile:read');
    expect((await authenticate(issued.body.access_token)).caller).toMatchObject({ credentialId: account.id, allowlist: { communityIds: ['c_lab'] } });

    for (const refused of [good, await assertion(other.privateKey), await assertion(pair.privateKey, now + 3600)]) {
      expect(await withAssertion(refused)).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    }
    // It has no secret to present.
    expect((await tokenRequest({ grant_type: 'client_credentials' }, { id: account.id, secret: 'svc_sa_guess' })).status).toBe(401);
    // A key with its private part is refused at creation.
    writeFileSync(keyFile, JSON.stringify(await exportJWK(pair.privateKey)));
    const leaked = await runAdminCli({ ...sys.env, USER: 'ops' }, [
      'service-accounts', 'create', '--owner-org', 'o_lab', '--name', 'Leaky', '--scopes', 'profile:read', '--communities', 'c_lab', '--public-key', keyFile,
    ]);
    expect(leaked.code).not.toBe(0);
    expect(leaked.stderr).toContain('public_jwk must be a public key');
  });

  it('refuses an account for "all" communities, or for none, and creates nothing', async () => {
    for (const communities of ['all', '*']) {
      const result = await runAdminCli({ ...sys.env, USER: 'ops' }, [
        'service-accounts', 'create', '--owner-org', 'o_lab', '--name', 'Everything', '--scopes', 'search:read', '--communities', communities,
      ]);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain('never reaches "all"');
    }
    const listed = await cli(['service-accounts', 'list', '--owner-org', 'o_lab']);
    expect(listed.service_accounts.map((a: { name: string }) => a.name)).not.toContain('Everything');
  });

  it('lets an organization owner create one on the settings screen (secret shown once) and revoke it; its token is then refused', async () => {
    const owner = new SettingsClient(sys.settingsUrl!);
    await owner.signIn(sys, 'u_owner');
    const screen = await owner.get('/service-accounts');
    expect(screen.text).toContain('<h2>Lab <span class="hint">(o_lab)</span></h2>');
    expect(screen.text).toContain('value="c_lab"');

    // A form without the page's CSRF token is refused, creating nothing.
    const forged = await owner.send('POST', '/service-accounts', { organization_id: 'o_lab', name: 'Forged', scopes: 'search:read', communities: 'c_lab' });
    expect(forged.status).toBe(403);
    const refused = await owner.submit('/service-accounts', '/service-accounts', { organization_id: 'o_lab', name: 'No communities', scopes: 'search:read' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('The service account was not created: tick at least one community');

    const created = await owner.submit('/service-accounts', '/service-accounts', {
      organization_id: 'o_lab', name: 'Nightly export', scopes: ['profile:read'], communities: ['c_lab2'],
    });
    expect(created.status).toBe(303);
    const location = created.headers.get('location')!;
    const id = /^\/service-accounts\/(sa_[\w-]+)\/created$/.exec(location)![1]!;
    const shown = await owner.get(location);
    const secret = /<code id="new-secret">([^<]+)<\/code>/.exec(shown.text)![1]!;
    expect(shown.text).toContain(`Client id: <code>${id}</code>`);
    const again = await owner.get(location);
    expect(again.text).not.toContain(secret);
    expect(again.text).toContain('Its secret was already shown');

    const issued = await tokenRequest({ grant_type: 'client_credentials' }, { id, secret });
    expect(issued.status).toBe(200);
    expect((await authenticate(issued.body.access_token)).caller).toMatchObject({
      credentialId: id, owner: { type: OwnerType.OWNER_TYPE_ORGANIZATION, id: 'o_lab' }, allowlist: { communityIds: ['c_lab2'] },
    });
    const listed = (await owner.get('/service-accounts')).text;
    expect(listed).toContain(`<code>${id}</code>`);
    expect(listed).not.toContain('Forged');

    const revoked = await owner.submit(`/service-accounts/${id}/revoke`, `/service-accounts/${id}/revoke`);
    expect(revoked.status).toBe(303);
    expect((await owner.get(revoked.headers.get('location')!)).text).toContain('Nightly export was revoked: its access tokens are refused.');
    expect((await refusal(authenticate(issued.body.access_token)))?.code).toBe('unauthorized');
  });

  it('over gRPC directly: an account limited to one community lists its roster (its calls counted), is PERMISSION_DENIED on another, and its search is billed to its owner', async () => {
    const { service_account: account, client_secret: secret } = await cli([
      'service-accounts', 'create', '--owner-org', 'o_lab', '--name', 'Directory', '--scopes', 'profile:read,search:read', '--communities', 'c_lab',
    ]);
    const { access_token: token } = (await tokenRequest({ grant_type: 'client_credentials' }, { id: account.id, secret })).body;
    const team = directClients(sys.grpcAddresses);
    try {
      const roster = await outcomeOf(team.communities.listMembers({ communityId: 'c_lab' }, asBearer(token)));
      if (!roster.ok) throw new Error(`roster refused: ${roster.message}`);
      expect(roster.value.members.map((m) => m.profile?.id).sort()).toEqual(['p_chem', 'p_eco']);
      // It describes itself as the organization's account, its calls counted (the roster read and this one).
      expect(await outcomeOf(team.identity.describeCredential({}, asBearer(token)))).toMatchObject({
        ok: true, value: {
          key: { id: account.id, name: 'Directory', scopes: ['profile:read', 'search:read'] }, owner: { id: 'o_lab', name: 'Lab' },
          usage: { requestsToday: 2, requestsThisMonth: 2 },
        },
      });
      // The organization reaches c_lab2; the account does not.
      expect(await outcomeOf(team.communities.listMembers({ communityId: 'c_lab2' }, asBearer(token)))).toMatchObject({
        ok: false, status: 'PERMISSION_DENIED', reason: 'forbidden',
      });

      const started = await outcomeOf(team.search.startSearch(
        { query: 'pond ecologist', scope: SearchScope.SEARCH_SCOPE_COMMUNITY, communityId: 'c_lab', limit: 3 }, asBearer(token)));
      expect(started).toMatchObject({ ok: true });
      let job = (started as { value: { job: { searchId: string; status: SearchStatus } } }).value.job;
      for (let i = 0; i < 100 && job.status !== SearchStatus.SEARCH_STATUS_COMPLETE && job.status !== SearchStatus.SEARCH_STATUS_FAILED; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        job = (await team.search.getSearch({ searchId: job.searchId }, asBearer(token))).job as typeof job;
      }
      expect(job.status).toBe(SearchStatus.SEARCH_STATUS_COMPLETE);
      const { entries } = await sys.clients.billing.listLedgerEntries(
        { owner: { type: OwnerType.OWNER_TYPE_ORGANIZATION, id: 'o_lab' }, pageSize: 100, pageToken: '' },
        await callAs(sys.signer, { kind: 'operator', actor: 'test' }, undefined, 10_000),
      );
      expect(entries.filter((e) => e.reference === `search:${job.searchId}`)).toMatchObject([{ credentialId: account.id, amount: expect.any(Number) }]);
      expect(entries.find((e) => e.reference === `search:${job.searchId}`)!.amount).toBeLessThan(0);
    } finally {
      team.close();
    }
  });

  it('gives an organization admin who is not its owner no service account to see, create or revoke', async () => {
    const admin = new SettingsClient(sys.settingsUrl!);
    await admin.signIn(sys, 'u_admin');
    const screen = await admin.get('/service-accounts');
    expect(screen.text).toContain('you own none');
    const forged = await admin.submit('/service-accounts', '/service-accounts', {
      organization_id: 'o_lab', name: 'Forged', scopes: 'search:read', communities: 'c_lab',
    });
    expect(forged.status).toBe(403);
    const listed = await cli(['service-accounts', 'list', '--owner-org', 'o_lab']);
    expect(listed.service_accounts.map((a: { name: string }) => a.name)).not.toContain('Forged');
    const asAdmin = await callAs(sys.signer, { kind: 'user', userId: 'u_admin' }, undefined, 10_000);
    const other = listed.service_accounts[0].id as string;
    expect((await refusal(sys.clients.identity.revokeServiceAccount({ serviceAccountId: other }, asAdmin)))?.code).toBe('not_found');
  });
});
