// OAuth test tools: signing keys of the algorithms an external issuer may use, hand-made access
// tokens (well-formed or deliberately wrong), a JWKS endpoint on a loopback port whose key set a
// test can change (key rotation).
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, SignJWT, type JWK } from 'jose';

export type TestAlgorithm = 'EdDSA' | 'ES256' | 'RS256';

export interface TestSigningKey {
  alg: TestAlgorithm;
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** SPKI PEM of the public key (for the algorithm-confusion attack). */
  publicPem: string;
}

let counter = 0;

export function testSigningKey(alg: TestAlgorithm = 'EdDSA', kid = `test-key-${++counter}`): TestSigningKey {
  const pair =
    alg === 'EdDSA'
      ? generateKeyPairSync('ed25519')
      : alg === 'ES256'
        ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
        : generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    alg,
    kid,
    privateKey: pair.privateKey,
    publicKey: pair.publicKey,
    publicPem: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

/** The public JWK of a key, as an issuer's JWKS lists it. */
export async function publicJwk(key: TestSigningKey): Promise<JWK> {
  return { ...(await exportJWK(key.publicKey)), kid: key.kid, alg: key.alg, use: 'sig' };
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);

export interface AccessTokenClaimsInput {
  iss: string;
  aud: string | string[];
  sub: string;
  scope: string;
  grant_id: string;
  iat?: number;
  exp?: number;
  nbf?: number;
  [claim: string]: unknown;
}

/** Claims of a token issued now that lives five minutes, with any claim overridden or removed (undefined). */
export function accessTokenClaims(base: AccessTokenClaimsInput, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const now = nowSeconds();
  const claims: Record<string, unknown> = { iat: now, exp: now + 300, ...base, ...overrides };
  for (const [name, value] of Object.entries(claims)) if (value === undefined) delete claims[name];
  return claims;
}

/** Signs claims as they are (no defaults added) with a key; `header` adds or replaces header fields. */
export async function signToken(
  key: { alg: string; kid?: string; privateKey: KeyObject | Uint8Array },
  claims: Record<string, unknown>,
  header: Record<string, unknown> = {},
): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: key.alg, typ: 'at+jwt', ...(key.kid ? { kid: key.kid } : {}), ...header })
    .sign(key.privateKey);
}

/** An unsigned `alg: none` token: header.payload. (empty signature). */
export function unsignedToken(claims: Record<string, unknown>): string {
  const part = (json: unknown) => Buffer.from(JSON.stringify(json)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.`;
}

/** Algorithm confusion: HS256 with the issuer's public key PEM as the HMAC secret. */
export function hs256WithPublicKey(key: TestSigningKey, claims: Record<string, unknown>): Promise<string> {
  return signToken({ alg: 'HS256', kid: key.kid, privateKey: new TextEncoder().encode(key.publicPem) }, claims);
}

/** Re-encodes the payload of a signed token after editing it (the signature no longer matches). */
export function tamperPayload(token: string, edit: (claims: Record<string, unknown>) => void): string {
  const [header, payload, signature] = token.split('.');
  const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')) as Record<string, unknown>;
  edit(claims);
  return `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
}

export interface JwksServer {
  url: string;
  /** JWKS fetches served so far. */
  fetches: number;
  /** Replaces the served key set (rotation); `raw` serves an arbitrary JWK list as is. */
  serve(keys: TestSigningKey[], raw?: JWK[]): Promise<void>;
  /** Answers 500 until serve() is called again. */
  fail(): void;
  close(): Promise<void>;
}

export async function startJwksServer(keys: TestSigningKey[] = []): Promise<JwksServer> {
  let body = JSON.stringify({ keys: [] });
  let failing = false;
  const state = { fetches: 0 };
  const server: Server = createServer((req, res) => {
    state.fetches++;
    if (failing || req.url !== '/.well-known/jwks.json') {
      res.writeHead(failing ? 500 : 404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/jwk-set+json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const jwks: JwksServer = {
    url: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    get fetches() {
      return state.fetches;
    },
    async serve(next, raw = []) {
      failing = false;
      body = JSON.stringify({ keys: [...(await Promise.all(next.map(publicJwk))), ...raw] });
    },
    fail() {
      failing = true;
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  await jwks.serve(keys);
  return jwks;
}

/** The JSON payload of a JWT, unverified (to look at what a test was given). */
export function payloadOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
}
