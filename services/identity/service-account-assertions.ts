// private_key_jwt (RFC 7523 §2.2, §3): a service account that registered a public JWK proves itself
// at the token endpoint with a JWT it signed — iss and sub its id, aud this authorization server
// (its issuer or its token endpoint), exp at most five minutes ahead, a jti used once. Verified
// with jose against the account's key alone (asymmetric algorithms only), then the jti is recorded
// until the assertion expires, so a replayed assertion is refused.
import { createLocalJWKSet, decodeJwt, errors, importJWK, jwtVerify, type JWK } from 'jose';
import { domainError } from '../kit/grpc/errors.js';
import { REMOTE_ALGORITHMS } from './access-token.js';
import type { IdentityContext } from './identity-context.js';
import type { ServiceAccountRow } from './service-account.repository.js';

/** The longest an assertion may live ahead of now (RFC 7523 asks for a short one). */
const MAX_ASSERTION_SECONDS = 300;
const CLOCK_TOLERANCE_SECONDS = 30;
/** Private members a registered public key must not carry. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/** A public JWK as registered: Ed25519, P-256 or RSA (2048 bits or more), no private part. */
export async function validPublicJwk(text: string): Promise<Record<string, unknown>> {
  const refused = (why: string) => domainError('invalid_request', `public_jwk ${why}`);
  let jwk: Record<string, unknown>;
  try {
    jwk = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw refused('must be a JSON object (a JWK)');
  }
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) throw refused('must be a JSON object (a JWK)');
  if (PRIVATE_MEMBERS.some((m) => m in jwk)) throw refused('must be a public key: it holds a private or symmetric part');
  const kind = jwk.kty === 'OKP' && jwk.crv === 'Ed25519' ? 'EdDSA' : jwk.kty === 'EC' && jwk.crv === 'P-256' ? 'ES256' : jwk.kty === 'RSA' ? 'RS256' : undefined;
  if (!kind) throw refused('must be an Ed25519 (OKP), P-256 (EC) or RSA key');
  if (kind === 'RS256' && typeof jwk.n === 'string' && Buffer.from(jwk.n, 'base64url').length < 256) throw refused('RSA modulus must be at least 2048 bits');
  try {
    await importJWK(jwk as JWK, kind);
  } catch {
    throw refused('is not a usable key');
  }
  const { kty, crv, x, y, n, e, kid } = jwk;
  return Object.fromEntries(Object.entries({ kty, crv, x, y, n, e, kid }).filter(([, v]) => v !== undefined));
}

/** The account an assertion authenticates, or `refused()` (one answer for every failure). */
export async function accountOfAssertion(
  context: IdentityContext, assertion: string, clientId: string, issuer: string, refused: () => Error,
): Promise<ServiceAccountRow> {
  let subject: string | undefined;
  try {
    subject = decodeJwt(assertion).sub;
  } catch {
    throw refused();
  }
  if (!subject || (clientId && clientId !== subject)) throw refused();
  const account = await context.serviceAccounts.findById(subject);
  if (!account?.public_jwk || account.revoked_at) throw refused();
  let payload;
  try {
    ({ payload } = await jwtVerify(assertion, createLocalJWKSet({ keys: [account.public_jwk as JWK] }), {
      algorithms: [...REMOTE_ALGORITHMS], issuer: account.id, subject: account.id, audience: [issuer, `${issuer}/token`],
      requiredClaims: ['exp', 'jti'], clockTolerance: CLOCK_TOLERANCE_SECONDS,
    }));
  } catch (error) {
    if (error instanceof errors.JOSEError) throw refused();
    throw error;
  }
  const now = Math.floor(Date.now() / 1000);
  const jti = String(payload.jti);
  if (payload.exp! > now + MAX_ASSERTION_SECONDS + CLOCK_TOLERANCE_SECONDS || jti.length === 0 || jti.length > 200) throw refused();
  if (!(await context.serviceAccounts.useAssertion(account.id, jti, new Date(payload.exp! * 1000)))) throw refused();
  return account;
}
