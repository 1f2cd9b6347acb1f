// OAuth access tokens from the identity service's own (local) issuer: issuing, the verification
// rules (audience per resource, lifetime, algorithms, claims), the live grant re-check and
// revocation, and grants described and listed as credentials.
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { Status } from 'nice-grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CredentialKind, KeyEnvironment, OwnerType, RateTier } from '../../proto/gen/expertnet/common/v1/common.js';
import {
  AUDIENCE, CONFIG, createGrant, databaseFor, expectRefused, failure, ISSUER, MCP_RESOURCE, operator, seedUsers, startIdentity,
  type IdentityUnderTest,
} from '../../test/helpers/oauth-identity.js';
import {
  accessTokenClaims, hs256WithPublicKey, nowSeconds, signToken, tamperPayload, testSigningKey, unsignedToken, type TestSigningKey,
} from '../../test/helpers/oauth.js';
import { storeNames } from '../../test/helpers/stores.js';
import { generateOAuthSigningKey } from '../kit/secrets.js';
import { oauthOptionsFrom } from './access-token.js';

describe.each(storeNames())('OAuth access tokens at the identity service on %s', (store) => {
  const db = databaseFor(store);

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
      sys = await startIdentity(db(), oauthOptionsFrom(CONFIG, localKey));
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
        // Read with the grant: u_ada manages no organization here.
        managedOrganizations: { organizationIds: [] },
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
});
