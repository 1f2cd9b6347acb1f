// OAuth access tokens from an external issuer: verified against its remote JWKS (EdDSA, ES256,
// RS256), key rotation, the audience per resource, the grant re-check, and a JWKS that cannot be
// fetched.
import { Status } from 'nice-grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AUDIENCE, CONFIG, createGrant, databaseFor, expectRefused, failure, ISSUER, MCP_RESOURCE, operator, seedUsers, startIdentity,
  type IdentityUnderTest,
} from '../../test/helpers/oauth-identity.js';
import {
  accessTokenClaims, hs256WithPublicKey, nowSeconds, signToken, startJwksServer, testSigningKey, unsignedToken, type JwksServer,
} from '../../test/helpers/oauth.js';
import { storeNames } from '../../test/helpers/stores.js';
import { oauthOptionsFrom } from './access-token.js';

describe.each(storeNames())('OAuth access tokens at the identity service on %s', (store) => {
  const db = databaseFor(store);

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
      sys = await startIdentity(db(), {
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
});
