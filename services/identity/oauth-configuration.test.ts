// Whether and how OAuth is on: the identity service without OAuth (access tokens refused, API keys
// still working), and the OAuth options read from the configuration.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessTokenClaims, signToken, testSigningKey } from '../../test/helpers/oauth.js';
import {
  AUDIENCE, CONFIG, databaseFor, expectRefused, failure, ISSUER, MCP_RESOURCE, operator, seedUsers, startIdentity,
  type IdentityUnderTest,
} from '../../test/helpers/oauth-identity.js';
import { storeNames } from '../../test/helpers/stores.js';
import { generateOAuthSigningKey } from '../kit/secrets.js';
import { GRPC_AUDIENCE } from '../kit/grpc-audience.js';
import { oauthOptionsFrom } from './access-token.js';

describe.each(storeNames())('OAuth access tokens at the identity service on %s', (store) => {
  const db = databaseFor(store);

  describe('OAuth not configured', () => {
    let sys: IdentityUnderTest;
    beforeAll(async () => {
      sys = await startIdentity(db(), undefined);
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
      issuer: ISSUER, audience: AUDIENCE, resources: [MCP_RESOURCE, GRPC_AUDIENCE], jwksUrl: 'https://idp.test/jwks',
    });
    expect(oauthOptionsFrom(config, key)).toEqual({
      issuer: ISSUER, audience: AUDIENCE, resources: [MCP_RESOURCE, GRPC_AUDIENCE],
      localSigningKey: { privateKey: key.oauthSigningPrivateKey, publicKey: key.oauthSigningPublicKey },
    });
    expect(oauthOptionsFrom(config, {})).toBeUndefined();
  });

  it('serves the MCP resource the MCP server names itself (MCP_RESOURCE_URL, else http://HOST:MCP_PORT/mcp) and the gRPC API', () => {
    const key = generateOAuthSigningKey();
    expect(oauthOptionsFrom({ ...config, MCP_RESOURCE_URL: undefined }, key)?.resources).toEqual(['http://127.0.0.1:8081/mcp', GRPC_AUDIENCE]);
    expect(oauthOptionsFrom({ ...config, MCP_RESOURCE_URL: undefined, HOST: '::1', MCP_PORT: 9000 }, key)?.resources).toEqual(['http://[::1]:9000/mcp', GRPC_AUDIENCE]);
  });
});
