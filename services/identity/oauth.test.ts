// OAuth access tokens at the identity service, as the edge and the operator reach it: the real
// identity (and communities, for the rate tier) service on a real gRPC server over a throwaway
// store, called through the real clients. Covers the local issuer, an external issuer's JWKS
// (with key rotation), the verification rules, the audience of each resource (REST, MCP), the live
// grant re-check and revocation.
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { Status } from 'nice-grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CredentialKind,
  KeyEnvironment,
  OwnerType,
  Plan,
  RateTier,
} from '../../proto/gen/expertnet/common/v1/common.js';
import {
  accessTokenClaims,
  hs256WithPublicKey,
  nowSeconds,
  signToken,
  startJwksServer,
  tamperPayload,
  testSigningKey,
  unsignedToken,
  type JwksServer,
  type TestSigningKey,
} from '../../test/helpers/oauth.js';
import { openTestDatabase, storeNames } from '../../test/helpers/stores.js';
import { createCommunitiesService } from '../communities/communities.service.js';
import { SERVICE_ROLES, type ServiceRole } from '../kit/config.js';
import type { Database } from '../kit/db/database.js';
import { TokenSigner, TokenVerifier } from '../kit/grpc/caller-token.js';
import { callAs, createServiceClients, type ServiceClients } from '../kit/grpc/client.js';
import { readRemoteError, type RemoteError } from '../kit/grpc/errors.js';
import type { Principal } from '../kit/grpc/principal.js';
import { startGrpcServer } from '../kit/grpc/server.js';
import { createLogger } from '../kit/logger.js';
import { generateOAuthSigningKey, generateSecrets } from '../kit/secrets.js';
import { oauthOptionsFrom, type OAuthOptions } from './access-token.js';
import { createIdentityService } from './identity.service.js';

const ISSUER = 'https://issuer.test/oauth';
const AUDIENCE = 'https://api.test/v1';
/** The MCP server's resource URI: the audience of tokens for the MCP surface. */
const MCP_RESOURCE = 'https://api.test/mcp';
/** The configuration oauthOptionsFrom reads (MCP_RESOURCE_URL set, as behind a proxy). */
const CONFIG = { OAUTH_ISSUER: ISSUER, OAUTH_AUDIENCE: AUDIENCE, OAUTH_JWKS_URL: undefined, MCP_RESOURCE_URL: MCP_RESOURCE, HOST: '127.0.0.1', MCP_PORT: 8081 };
const DEADLINE_MS = 10_000;
const operator: Principal = { kind: 'operator', actor: 'oauth-test' };

interface IdentityUnderTest {
  clients: ServiceClients;
  as(principal: Principal): ReturnType<typeof callAs>;
  /** Authenticates an access token as the edge does, presented to `resource` ('' or absent: the REST API). */
  authenticate(token: string, resource?: string): ReturnType<ServiceClients['identity']['authenticate']>;
  stop(): Promise<void>;
}

/** Identity (with the given OAuth options) and communities on one gRPC server over `db`. */
async function startIdentity(db: Database, oauth: OAuthOptions | undefined): Promise<IdentityUnderTest> {
  const secrets = generateSecrets();
  const signer = new TokenSigner(secrets.callerTokenPrivateKey);
  const logger = createLogger('silent');
  let clients: ServiceClients | undefined;
  const lazyClients = new Proxy({} as ServiceClients, {
    get: (_t, name) => (clients as unknown as Record<string | symbol, unknown>)[name],
  });
  const identity = createIdentityService(
    { db, pepper: secrets.apiKeyPepper, clients: lazyClients, signer, deadlineMs: DEADLINE_MS, logger },
    { oauth },
  );
  const server = await startGrpcServer({
    address: '127.0.0.1:0',
    services: [
      identity.registration,
      createCommunitiesService({ db, pepper: secrets.apiKeyPepper, clients: lazyClients, signer, deadlineMs: DEADLINE_MS, logger }).registration,
    ],
    verifier: new TokenVerifier(secrets.callerTokenPublicKey),
    logger,
  });
  const built = createServiceClients(
    Object.fromEntries(SERVICE_ROLES.map((role) => [role, server.address])) as Record<ServiceRole, string>,
  );
  clients = built;
  const as = (principal: Principal) => callAs(signer, principal, 'req-oauth-test', DEADLINE_MS);
  return {
    clients: built,
    as,
    authenticate: async (token, resource = '') => built.identity.authenticate({ accessToken: token, resource }, await as({ kind: 'edge' })),
    async stop() {
      built.close();
      await server.shutdown();
      await identity.stop();
    },
  };
}

/** The remote error of a call that must fail. */
async function failure(call: Promise<unknown>): Promise<RemoteError> {
  try {
    await call;
  } catch (error) {
    const remote = readRemoteError(error);
    if (!remote) throw error;
    return remote;
  }
  throw new Error('expected the call to fail');
}

/** The call must fail as `unauthorized` without echoing the token. */
async function expectRefused(sys: IdentityUnderTest, token: string, message?: RegExp, resource?: string): Promise<void> {
  const error = await failure(sys.authenticate(token, resource));
  expect(error).toMatchObject({ status: Status.UNAUTHENTICATED, code: 'unauthorized' });
  expect(error.message).not.toContain(token);
  for (const part of token.split('.').filter((p) => p.length > 8)) expect(error.message).not.toContain(part);
  if (message) expect(error.message).toMatch(message);
}

async function seedUsers(sys: IdentityUnderTest): Promise<void> {
  const options = await sys.as(operator);
  await sys.clients.identity.upsertUser({ user: { id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: Plan.PLAN_PAID } }, options);
  await sys.clients.identity.upsertUser({ user: { id: 'u_bob', email: 'bob@example.org', name: 'Bob', plan: Plan.PLAN_FREE } }, options);
}

async function createGrant(sys: IdentityUnderTest, userId: string, scopes: string[], clientId = 'mcp-client') {
  const { grant } = await sys.clients.identity.createGrant({ userId, scopes, clientId, requestedRate: 0 }, await sys.as(operator));
  return grant!;
}

describe.each(storeNames())('OAuth access tokens at the identity service on %s', (store) => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  beforeAll(async () => {
    database = await openTestDatabase(store);
  });
  afterAll(async () => database?.close());

  describe('the local issuer', () => {
    const localKey = generateOAuthSigningKey();
    const signing = {
      alg: 'EdDSA',
      kid: 'local',
      privateKey: createPrivateKey(localKey.oauthSigningPrivateKey),
      publicKey: createPublicKey(localKey.oauthSigningPublicKey),
      publicPem: localKey.oauthSigningPublicKey,
    } as TestSigningKey;
    let sys: IdentityUnderTest;
    let grantId: string;
    const claims = (overrides: Record<string, unknown> = {}) =>
      accessTokenClaims({ iss: ISSUER, aud: AUDIENCE, sub: 'u_ada', scope: 'search:read profile:read', grant_id: grantId }, overrides);

    beforeAll(async () => {
      sys = await startIdentity(database.db, oauthOptionsFrom(CONFIG, localKey));
      await seedUsers(sys);
      grantId = (await createGrant(sys, 'u_ada', ['search:read', 'profile:read'])).id;
    });
    afterAll(async () => sys?.stop());

    it('issues a short-lived token for a new grant; it authenticates as an oauth caller', async () => {
      const issued = await sys.clients.identity.issueAccessToken(
        { userId: 'u_ada', scopes: ['search:read'], clientId: 'claude-desktop', ttlSeconds: 600, requestedRate: 0 },
        await sys.as(operator),
      );
      expect(issued.accessToken.split('.')).toHaveLength(3);
      expect(issued.grantId).toMatch(/^grant_/);
      expect(issued.grant).toMatchObject({
        id: issued.grantId, userId: 'u_ada', clientId: 'claude-desktop', scopes: ['search:read'],
        rateTier: RateTier.RATE_TIER_STANDARD, requestedRate: 60,
      });
      const expiresIn = (Date.parse(issued.expiresAt!) - Date.now()) / 1000;
      expect(expiresIn).toBeGreaterThan(590);
      expect(expiresIn).toBeLessThanOrEqual(600);

      const header = JSON.parse(Buffer.from(issued.accessToken.split('.')[0]!, 'base64url').toString('utf8'));
      expect(header).toMatchObject({ alg: 'EdDSA', typ: 'at+jwt', kid: expect.any(String) });
      const payload = JSON.parse(Buffer.from(issued.accessToken.split('.')[1]!, 'base64url').toString('utf8'));
      expect(payload).toMatchObject({
        iss: ISSUER, aud: AUDIENCE, sub: 'u_ada', scope: 'search:read', grant_id: issued.grantId, client_id: 'claude-desktop',
      });
      expect(payload.exp - payload.iat).toBe(600);

      const { caller } = await sys.authenticate(issued.accessToken);
      expect(caller).toEqual({
        credentialId: issued.grantId,
        credential: CredentialKind.CREDENTIAL_KIND_OAUTH,
        owner: { type: OwnerType.OWNER_TYPE_USER, id: 'u_ada' },
        userId: 'u_ada',
        scopes: ['search:read'],
        allowlist: undefined,
        rateTier: RateTier.RATE_TIER_STANDARD,
        requestedRate: 60,
        environment: KeyEnvironment.KEY_ENVIRONMENT_LIVE,
      });
    });

    it('decides the grant tier like a key: a free user gets restricted', async () => {
      const issued = await sys.clients.identity.issueAccessToken(
        { userId: 'u_bob', scopes: ['search:read'], clientId: '', ttlSeconds: 0, requestedRate: 30 },
        await sys.as(operator),
      );
      expect(issued.grant).toMatchObject({ clientId: 'local', rateTier: RateTier.RATE_TIER_RESTRICTED, requestedRate: 30 });
      const payload = JSON.parse(Buffer.from(issued.accessToken.split('.')[1]!, 'base64url').toString('utf8'));
      expect(payload.exp - payload.iat).toBe(900);
      const { caller } = await sys.authenticate(issued.accessToken);
      expect(caller?.rateTier).toBe(RateTier.RATE_TIER_RESTRICTED);
    });

    it('refuses to issue beyond an hour, for an unknown user, or with unknown scopes', async () => {
      const options = await sys.as(operator);
      const base = { userId: 'u_ada', scopes: ['search:read'], clientId: '', ttlSeconds: 0, requestedRate: 0 };
      expect(await failure(sys.clients.identity.issueAccessToken({ ...base, ttlSeconds: 3601 }, options)))
        .toMatchObject({ code: 'invalid_request' });
      expect(await failure(sys.clients.identity.issueAccessToken({ ...base, userId: 'u_nobody' }, options)))
        .toMatchObject({ code: 'invalid_request' });
      expect(await failure(sys.clients.identity.issueAccessToken({ ...base, scopes: ['admin'] }, options)))
        .toMatchObject({ code: 'invalid_request' });
      expect(await failure(sys.clients.identity.issueAccessToken({ ...base, scopes: [] }, options)))
        .toMatchObject({ code: 'invalid_request' });
      expect(await failure(sys.clients.identity.issueAccessToken({ ...base, clientId: 'has space' }, options)))
        .toMatchObject({ code: 'invalid_request' });
    });

    it('lets only an operator issue, create, list and revoke grants', async () => {
      const edge = await sys.as({ kind: 'edge' });
      const request = { userId: 'u_ada', scopes: ['search:read'], clientId: '', ttlSeconds: 0, requestedRate: 0 };
      expect((await failure(sys.clients.identity.issueAccessToken(request, edge))).status).toBe(Status.PERMISSION_DENIED);
      expect((await failure(sys.clients.identity.revokeGrant({ grantId }, edge))).status).toBe(Status.PERMISSION_DENIED);
      expect((await failure(sys.clients.identity.listGrants({ userId: 'u_ada', pageSize: 0, pageToken: '' }, edge))).status)
        .toBe(Status.PERMISSION_DENIED);
    });

    it('accepts a token narrower than its grant: the caller gets the token scopes', async () => {
      const token = await signToken(signing, claims({ scope: 'profile:read' }));
      const { caller } = await sys.authenticate(token);
      expect(caller).toMatchObject({ credentialId: grantId, scopes: ['profile:read'], credential: CredentialKind.CREDENTIAL_KIND_OAUTH });
    });

    it('refuses a token whose scopes are wider than its grant', async () => {
      await expectRefused(sys, await signToken(signing, claims({ scope: 'search:read enrich:write' })), /scopes exceed/);
      await expectRefused(sys, await signToken(signing, claims({ scope: 'search:read openid' })), /scopes exceed/);
    });

    it('refuses the wrong audience and the wrong issuer', async () => {
      await expectRefused(sys, await signToken(signing, claims({ aud: 'https://elsewhere.test/v1' })));
      await expectRefused(sys, await signToken(signing, claims({ iss: 'https://evil.test/oauth' })));
      await expectRefused(sys, await signToken(signing, claims({ aud: undefined })));
      await expectRefused(sys, await signToken(signing, claims({ iss: undefined })));
    });

    it('checks the audience of the resource the edge names: REST tokens on REST only, MCP tokens on MCP only', async () => {
      const rest = await signToken(signing, claims());
      const mcp = await signToken(signing, claims({ aud: MCP_RESOURCE }));
      expect((await sys.authenticate(rest)).caller?.credentialId).toBe(grantId);
      expect((await sys.authenticate(rest, AUDIENCE)).caller?.credentialId).toBe(grantId);
      expect((await sys.authenticate(mcp, MCP_RESOURCE)).caller?.credentialId).toBe(grantId);
      await expectRefused(sys, rest, /not for this resource/, MCP_RESOURCE);
      await expectRefused(sys, mcp, /not for this resource/);
      // A token minted for both resources (aud: [REST, MCP]) is good on both.
      const both = await signToken(signing, claims({ aud: [AUDIENCE, MCP_RESOURCE] }));
      expect((await sys.authenticate(both)).caller?.credentialId).toBe(grantId);
      expect((await sys.authenticate(both, MCP_RESOURCE)).caller?.credentialId).toBe(grantId);
    });

    it('never trusts a resource it does not serve, even for a token that names it', async () => {
      const elsewhere = 'https://evil.test/mcp';
      await expectRefused(sys, await signToken(signing, claims({ aud: elsewhere })), /not accepted for/, elsewhere);
      await expectRefused(sys, await signToken(signing, claims({ aud: [AUDIENCE, elsewhere] })), /not accepted for/, elsewhere);
      // API keys have no audience: the resource does not matter to them.
      const minted = await sys.clients.identity.mintKey(
        { userId: 'u_ada', scopes: ['search:read'], requestedRate: 0, environment: 0, id: '', secret: '' },
        await sys.as(operator),
      );
      const { caller } = await sys.clients.identity.authenticate({ apiKey: minted.secret, resource: elsewhere }, await sys.as({ kind: 'edge' }));
      expect(caller?.credentialId).toBe(minted.key!.id);
    });

    it('issues a token for the MCP resource, and for no resource it does not serve (no grant left behind)', async () => {
      const options = await sys.as(operator);
      const base = { userId: 'u_ada', scopes: ['profile:read'], clientId: 'mcp-client', ttlSeconds: 300, requestedRate: 0 };
      const issued = await sys.clients.identity.issueAccessToken({ ...base, resource: MCP_RESOURCE }, options);
      const payload = JSON.parse(Buffer.from(issued.accessToken.split('.')[1]!, 'base64url').toString('utf8'));
      expect(payload.aud).toBe(MCP_RESOURCE);
      expect((await sys.authenticate(issued.accessToken, MCP_RESOURCE)).caller?.credentialId).toBe(issued.grantId);
      await expectRefused(sys, issued.accessToken, /not for this resource/);

      const rest = await sys.clients.identity.issueAccessToken({ ...base, resource: AUDIENCE }, options);
      expect(JSON.parse(Buffer.from(rest.accessToken.split('.')[1]!, 'base64url').toString('utf8')).aud).toBe(AUDIENCE);

      const before = (await sys.clients.identity.listGrants({ userId: 'u_ada', pageSize: 200, pageToken: '' }, options)).grants.length;
      const error = await failure(sys.clients.identity.issueAccessToken({ ...base, resource: 'https://evil.test/mcp' }, options));
      expect(error).toMatchObject({ code: 'invalid_request' });
      expect(error.message).toContain(MCP_RESOURCE);
      const after = (await sys.clients.identity.listGrants({ userId: 'u_ada', pageSize: 200, pageToken: '' }, options)).grants.length;
      expect(after).toBe(before);
    });

    it('refuses an expired token, and accepts one within the clock tolerance', async () => {
      const now = nowSeconds();
      await expectRefused(sys, await signToken(signing, claims({ iat: now - 600, exp: now - 300 })), /expired/);
      await expectRefused(sys, await signToken(signing, claims({ iat: now - 600, exp: now - 31 })), /expired/);
      const justExpired = await signToken(signing, claims({ iat: now - 600, exp: now - 5 }));
      expect((await sys.authenticate(justExpired)).caller?.credentialId).toBe(grantId);
      await expectRefused(sys, await signToken(signing, claims({ exp: undefined })));
    });

    it('honours nbf: a token not valid yet is refused', async () => {
      const now = nowSeconds();
      await expectRefused(sys, await signToken(signing, claims({ nbf: now + 300, exp: now + 600 })), /not yet valid/);
      expect((await sys.authenticate(await signToken(signing, claims({ nbf: now - 10 })))).caller?.userId).toBe('u_ada');
    });

    it('refuses a long-lived token (exp − iat over an hour) and one issued in the future', async () => {
      const now = nowSeconds();
      await expectRefused(sys, await signToken(signing, claims({ iat: now, exp: now + 7200 })), /lifetime/);
      await expectRefused(sys, await signToken(signing, claims({ iat: now + 300, exp: now + 600 })));
      await expectRefused(sys, await signToken(signing, claims({ iat: undefined })));
    });

    it('refuses alg none, HS256 keyed with the public key PEM, and a token signed by another key', async () => {
      await expectRefused(sys, unsignedToken(claims()));
      await expectRefused(sys, await hs256WithPublicKey(signing, claims()));
      await expectRefused(sys, await signToken(testSigningKey('EdDSA'), claims()));
      await expectRefused(sys, await signToken(testSigningKey('ES256'), claims()));
      await expectRefused(sys, tamperPayload(await signToken(signing, claims()), (c) => void (c.scope = 'search:read')));
      await expectRefused(sys, tamperPayload(await signToken(signing, claims()), (c) => void (c.sub = 'u_bob')));
    });

    it('refuses missing claims, a foreign typ, and garbage', async () => {
      await expectRefused(sys, await signToken(signing, claims({ sub: undefined })));
      await expectRefused(sys, await signToken(signing, claims({ scope: undefined })));
      await expectRefused(sys, await signToken(signing, claims({ scope: '  ' })));
      await expectRefused(sys, await signToken(signing, claims({ grant_id: undefined })));
      await expectRefused(sys, await signToken(signing, claims(), { typ: 'dpop+jwt' }));
      await expectRefused(sys, 'aaa.bbb.ccc');
      await expectRefused(sys, 'not-a-jwt');
    });

    it('re-checks the grant live: unknown grant, another user’s grant', async () => {
      await expectRefused(sys, await signToken(signing, claims({ grant_id: 'grant_unknown' })), /revoked or unknown/);
      await expectRefused(sys, await signToken(signing, claims({ sub: 'u_bob' })), /revoked or unknown/);
    });

    it('refuses a revoked grant on the very next call, for every token of it', async () => {
      const { id } = await createGrant(sys, 'u_ada', ['search:read']);
      const first = await signToken(signing, claims({ grant_id: id, scope: 'search:read' }));
      const second = await signToken(signing, claims({ grant_id: id, scope: 'search:read', jti: 'other' }));
      expect((await sys.authenticate(first)).caller?.credentialId).toBe(id);
      const { grant } = await sys.clients.identity.revokeGrant({ grantId: id }, await sys.as(operator));
      expect(grant?.revokedAt).toBeTruthy();
      await expectRefused(sys, first, /revoked or unknown/);
      await expectRefused(sys, second, /revoked or unknown/);
      expect(await failure(sys.clients.identity.revokeGrant({ grantId: 'grant_nope' }, await sys.as(operator))))
        .toMatchObject({ code: 'not_found' });
    });

    it('lists a user’s grants with their state, never a token', async () => {
      const { grants, nextPageToken } = await sys.clients.identity.listGrants({ userId: 'u_ada', pageSize: 0, pageToken: '' }, await sys.as(operator));
      expect(nextPageToken).toBe('');
      expect(grants.length).toBeGreaterThanOrEqual(3);
      expect(grants.every((g) => g.userId === 'u_ada')).toBe(true);
      expect(grants.some((g) => g.revokedAt)).toBe(true);
      const page = await sys.clients.identity.listGrants({ userId: 'u_ada', pageSize: 1, pageToken: '' }, await sys.as(operator));
      expect(page.grants).toHaveLength(1);
      expect(page.nextPageToken).toBe(page.grants[0]!.id);
    });

    it('describes a grant as the caller’s credential, and counts its requests', async () => {
      const token = await signToken(signing, claims());
      const { caller } = await sys.authenticate(token);
      const options = await sys.as({ kind: 'caller', caller: caller! });
      const first = await sys.clients.identity.describeCredential({}, options);
      expect(first.key).toMatchObject({
        id: grantId, prefix: '', environment: KeyEnvironment.KEY_ENVIRONMENT_LIVE,
        owner: { type: OwnerType.OWNER_TYPE_USER, id: 'u_ada' }, scopes: ['search:read', 'profile:read'],
        rateTier: RateTier.RATE_TIER_STANDARD, requestedRate: 60,
      });
      expect(first.owner).toEqual({ type: OwnerType.OWNER_TYPE_USER, id: 'u_ada', name: 'Ada' });
      await sys.authenticate(token);
      const second = await sys.clients.identity.describeCredential({}, options);
      expect(second.usage!.requestsToday).toBe(first.usage!.requestsToday + 1);
      expect(second.usage!.requestsThisMonth).toBe(first.usage!.requestsThisMonth + 1);
    });

    it('needs exactly one of api_key and access_token', async () => {
      const edge = await sys.as({ kind: 'edge' });
      expect(await failure(sys.clients.identity.authenticate({ apiKey: '', accessToken: '' }, edge)))
        .toMatchObject({ code: 'invalid_request' });
      const token = await signToken(signing, claims());
      expect(await failure(sys.clients.identity.authenticate({ apiKey: 'svc_live_x', accessToken: token }, edge)))
        .toMatchObject({ code: 'invalid_request' });
    });

    it('still authenticates API keys', async () => {
      const minted = await sys.clients.identity.mintKey(
        { userId: 'u_ada', scopes: ['search:read'], requestedRate: 0, environment: 0, id: '', secret: '' },
        await sys.as(operator),
      );
      const { caller } = await sys.clients.identity.authenticate({ apiKey: minted.secret }, await sys.as({ kind: 'edge' }));
      expect(caller?.credential).toBe(CredentialKind.CREDENTIAL_KIND_API_KEY);
    });
  });

  describe('an external issuer (remote JWKS)', () => {
    const edKey = testSigningKey('EdDSA', 'ed-1');
    const ecKey = testSigningKey('ES256', 'ec-1');
    const rsaKey = testSigningKey('RS256', 'rsa-1');
    const nextKey = testSigningKey('ES256', 'ec-2');
    let jwks: JwksServer;
    let sys: IdentityUnderTest;
    let grantId: string;
    const claims = (overrides: Record<string, unknown> = {}) =>
      accessTokenClaims({ iss: ISSUER, aud: AUDIENCE, sub: 'u_ada', scope: 'search:read', grant_id: grantId }, overrides);

    beforeAll(async () => {
      jwks = await startJwksServer([edKey, ecKey, rsaKey]);
      sys = await startIdentity(database.db, {
        ...oauthOptionsFrom({ ...CONFIG, OAUTH_JWKS_URL: jwks.url }, {})!,
        // Short so that a test sees a rotation quickly; production keeps minutes.
        jwksCacheMaxAgeMs: 300,
        jwksCooldownMs: 100,
      });
      await seedUsers(sys);
      grantId = (await createGrant(sys, 'u_ada', ['search:read', 'profile:read'], 'https://client.example/app')).id;
    });
    afterAll(async () => {
      await sys?.stop();
      await jwks?.close();
    });

    it('verifies EdDSA, ES256 and RS256 tokens from the JWKS', async () => {
      for (const key of [edKey, ecKey, rsaKey]) {
        const { caller } = await sys.authenticate(await signToken(key, claims()));
        expect(caller).toMatchObject({ credentialId: grantId, userId: 'u_ada', scopes: ['search:read'] });
      }
    });

    it('verifies an external token for the MCP resource on MCP only (RFC 8707 `resource` at the IdP)', async () => {
      const mcp = await signToken(ecKey, claims({ aud: MCP_RESOURCE }));
      expect((await sys.authenticate(mcp, MCP_RESOURCE)).caller?.credentialId).toBe(grantId);
      await expectRefused(sys, mcp, /not for this resource/);
      await expectRefused(sys, await signToken(ecKey, claims()), /not for this resource/, MCP_RESOURCE);
    });

    it('refuses to issue tokens itself: they come from the identity provider', async () => {
      const error = await failure(sys.clients.identity.issueAccessToken(
        { userId: 'u_ada', scopes: ['search:read'], clientId: '', ttlSeconds: 0, requestedRate: 0 },
        await sys.as(operator),
      ));
      expect(error).toMatchObject({ status: Status.FAILED_PRECONDITION, code: 'unprocessable' });
    });

    it('refuses a key the JWKS does not hold, the wrong audience or issuer, expiry and nbf', async () => {
      const now = nowSeconds();
      await expectRefused(sys, await signToken(testSigningKey('ES256', 'ec-1'), claims())); // same kid, other key
      await expectRefused(sys, await signToken(testSigningKey('ES256', 'stranger'), claims()));
      await expectRefused(sys, await signToken(ecKey, claims({ aud: 'https://elsewhere.test' })));
      await expectRefused(sys, await signToken(ecKey, claims({ iss: 'https://evil.test' })));
      await expectRefused(sys, await signToken(ecKey, claims({ iat: now - 900, exp: now - 120 })), /expired/);
      await expectRefused(sys, await signToken(ecKey, claims({ nbf: now + 120, exp: now + 600 })), /not yet valid/);
      await expectRefused(sys, await signToken(ecKey, claims({ scope: 'search:read member:write' })), /scopes exceed/);
    });

    it('refuses alg none and HS256 made with a JWKS public key, even with an oct key in the set', async () => {
      await expectRefused(sys, unsignedToken(claims()));
      await expectRefused(sys, await hs256WithPublicKey(rsaKey, claims()));
      await expectRefused(sys, await hs256WithPublicKey(edKey, claims()));
      const secret = new TextEncoder().encode('a shared secret that is long enough for HS256!!');
      await jwks.serve([edKey, ecKey, rsaKey], [{ kty: 'oct', kid: 'hmac', alg: 'HS256', k: Buffer.from(secret).toString('base64url') }]);
      await new Promise((r) => setTimeout(r, 400));
      await expectRefused(sys, await signToken({ alg: 'HS256', kid: 'hmac', privateKey: secret }, claims()));
      await jwks.serve([edKey, ecKey, rsaKey]);
    });

    it('follows key rotation: a new key verifies once published, a key rotated out is refused', async () => {
      const before = await signToken(edKey, claims());
      expect((await sys.authenticate(before)).caller?.credentialId).toBe(grantId);
      // A new key published while the old set is cached: its unknown kid makes identity refetch.
      await jwks.serve([edKey, nextKey]);
      await new Promise((r) => setTimeout(r, 150));
      expect((await sys.authenticate(await signToken(nextKey, claims()))).caller?.credentialId).toBe(grantId);
      // The old key is withdrawn: once the cached set ages out, its tokens are refused.
      await jwks.serve([nextKey]);
      await new Promise((r) => setTimeout(r, 400));
      await expectRefused(sys, before);
      await expectRefused(sys, await signToken(edKey, claims()));
      expect((await sys.authenticate(await signToken(nextKey, claims()))).caller?.credentialId).toBe(grantId);
    });

    it('re-checks and revokes grants as in local mode', async () => {
      const { id } = await createGrant(sys, 'u_ada', ['search:read']);
      const token = await signToken(nextKey, claims({ grant_id: id }));
      expect((await sys.authenticate(token)).caller?.credentialId).toBe(id);
      await sys.clients.identity.revokeGrant({ grantId: id }, await sys.as(operator));
      await expectRefused(sys, token, /revoked or unknown/);
    });

    it('answers UNAVAILABLE (not unauthorized) when the JWKS cannot be fetched', async () => {
      jwks.fail();
      await new Promise((r) => setTimeout(r, 400));
      const error = await failure(sys.authenticate(await signToken(nextKey, claims())));
      expect(error.status).toBe(Status.UNAVAILABLE);
      expect(error.code).toBeUndefined();
      await jwks.serve([nextKey]);
    });
  });

  describe('OAuth not configured', () => {
    let sys: IdentityUnderTest;
    beforeAll(async () => {
      sys = await startIdentity(database.db, undefined);
      await seedUsers(sys);
    });
    afterAll(async () => sys?.stop());

    it('refuses every access token with unauthorized, and refuses to issue', async () => {
      const key = testSigningKey('EdDSA');
      await expectRefused(sys, await signToken(key, accessTokenClaims({ iss: ISSUER, aud: AUDIENCE, sub: 'u_ada', scope: 'search:read', grant_id: 'g' })));
      const error = await failure(sys.clients.identity.issueAccessToken(
        { userId: 'u_ada', scopes: ['search:read'], clientId: '', ttlSeconds: 0, requestedRate: 0 },
        await sys.as(operator),
      ));
      expect(error.code).toBe('unprocessable');
    });

    it('keeps API keys working', async () => {
      const minted = await sys.clients.identity.mintKey(
        { userId: 'u_bob', scopes: ['search:read'], requestedRate: 0, environment: 0, id: '', secret: '' },
        await sys.as(operator),
      );
      const { caller } = await sys.clients.identity.authenticate({ apiKey: minted.secret }, await sys.as({ kind: 'edge' }));
      expect(caller?.userId).toBe('u_bob');
    });
  });
});

describe('oauthOptionsFrom', () => {
  const config = CONFIG;
  it('uses the JWKS URL when set, else the local key, else nothing (OAuth off)', () => {
    const key = generateOAuthSigningKey();
    expect(oauthOptionsFrom({ ...config, OAUTH_JWKS_URL: 'https://idp.test/jwks' }, key)).toEqual({
      issuer: ISSUER, audience: AUDIENCE, resources: [MCP_RESOURCE], jwksUrl: 'https://idp.test/jwks',
    });
    expect(oauthOptionsFrom(config, key)).toEqual({
      issuer: ISSUER, audience: AUDIENCE, resources: [MCP_RESOURCE],
      localSigningKey: { privateKey: key.oauthSigningPrivateKey, publicKey: key.oauthSigningPublicKey },
    });
    expect(oauthOptionsFrom(config, {})).toBeUndefined();
  });

  it('serves the MCP resource the MCP server names itself: MCP_RESOURCE_URL, else http://HOST:MCP_PORT/mcp', () => {
    const key = generateOAuthSigningKey();
    expect(oauthOptionsFrom({ ...config, MCP_RESOURCE_URL: undefined }, key)?.resources).toEqual(['http://127.0.0.1:8081/mcp']);
    expect(oauthOptionsFrom({ ...config, MCP_RESOURCE_URL: undefined, HOST: '::1', MCP_PORT: 9000 }, key)?.resources).toEqual(['http://[::1]:9000/mcp']);
  });
});
