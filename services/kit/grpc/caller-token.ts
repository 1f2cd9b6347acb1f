// The token the edge (and the operator tools) put on every internal gRPC call: a short-lived
// EdDSA-signed JWT naming the principal. Every service verifies it on every call with the public
// key, so a request that did not pass through a trusted signer is refused.
//
// Two key pairs, two issuers: the edge's (CALLER_TOKEN_*) signs caller, edge and user principals;
// the operator's (OPERATOR_TOKEN_*), held only by the admin tooling, signs operator principals and
// nothing else. An edge process cannot make itself the operator: an operator principal under the
// edge's issuer (or the reverse) is refused. Services hold neither private key: a service forwards
// the token of the call it serves, and is known by its client certificate (peer-role.ts), so no
// token names a service principal.
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { decodeJwt, jwtVerify, SignJWT } from 'jose';
import { Caller } from '../../../proto/gen/expertnet/common/v1/common.js';
import type { Principal } from './principal.js';

const ISSUER = 'expertnet-edge';
const OPERATOR_ISSUER = 'expertnet-operator';
const AUDIENCE = 'expertnet-internal';
const ALGORITHM = 'EdDSA';
const TTL_SECONDS = 60;
// A signed token is reused until this many seconds before it expires.
const REUSE_MARGIN_SECONDS = 20;

interface Claims {
  pk: Principal['kind'];
  caller?: unknown;
  actor?: string;
  uid?: string;
}

function claimsOf(p: Principal): Claims {
  switch (p.kind) {
    case 'caller':
      return { pk: 'caller', caller: Caller.toJSON(p.caller) };
    case 'direct':
      // A direct caller proved itself to one service; a service acting for it names it a caller.
      throw new Error('a direct principal is never signed into a caller token');
    case 'edge':
      return { pk: 'edge' };
    case 'operator':
      return { pk: 'operator', actor: p.actor };
    case 'service':
      throw new Error('a service principal is never signed into a caller token: its client certificate names it');
    case 'user':
      return { pk: 'user', uid: p.userId };
  }
}

function unverifiedIssuer(token: string): unknown {
  try {
    return decodeJwt(token).iss;
  } catch {
    return undefined;
  }
}

/**
 * The token says (unverified) that the edge or the operator issued it: a caller token, good or bad.
 * Such a bearer is never taken for an end user's own access token (services refuse it when it does
 * not verify).
 */
export function claimsEdgeIssuer(token: string): boolean {
  const issuer = unverifiedIssuer(token);
  return issuer === ISSUER || issuer === OPERATOR_ISSUER;
}

/** The private keys a process signs with; the operator's only in the admin tooling (and local data folders). */
export interface SigningKeys {
  callerTokenPrivateKey: string;
  operatorTokenPrivateKey?: string;
}

/** The public keys every service verifies with. */
export interface VerifyingKeys {
  callerTokenPublicKey: string;
  operatorTokenPublicKey: string;
}

/** The signer of a process holding the edge's private key (an edge role, the admin tooling); none for a service that only verifies. */
export function signerOf(keys: { callerTokenPrivateKey?: string | undefined; operatorTokenPrivateKey?: string | undefined }): TokenSigner | undefined {
  const { callerTokenPrivateKey, operatorTokenPrivateKey } = keys;
  return callerTokenPrivateKey ? new TokenSigner({ callerTokenPrivateKey, ...(operatorTokenPrivateKey && { operatorTokenPrivateKey }) }) : undefined;
}

/** The signer of a process that must sign (it calls services for callers or as the operator). */
export function requireSigner(keys: Parameters<typeof signerOf>[0]): TokenSigner {
  const signer = signerOf(keys);
  if (!signer) throw new Error('CALLER_TOKEN_PRIVATE_KEY is not set: this process signs caller tokens, so it needs the private key as well as the public one');
  return signer;
}

export class TokenSigner {
  private readonly key: KeyObject;
  private readonly operatorKey: KeyObject | undefined;
  private readonly cache = new Map<string, { token: string; reuseUntil: number }>();

  constructor(keys: SigningKeys) {
    this.key = createPrivateKey(keys.callerTokenPrivateKey);
    this.operatorKey = keys.operatorTokenPrivateKey ? createPrivateKey(keys.operatorTokenPrivateKey) : undefined;
  }

  async sign(principal: Principal): Promise<string> {
    const claims = claimsOf(principal);
    const operator = claims.pk === 'operator';
    if (operator && !this.operatorKey) {
      throw new Error('this process holds no OPERATOR_TOKEN_PRIVATE_KEY: only the admin tooling acts as the operator over gRPC');
    }
    const cacheKey = JSON.stringify(claims);
    const now = Math.floor(Date.now() / 1000);
    const hit = this.cache.get(cacheKey);
    if (hit && hit.reuseUntil > now) return hit.token;
    const token = await new SignJWT({ ...claims })
      .setProtectedHeader({ alg: ALGORITHM })
      .setIssuer(operator ? OPERATOR_ISSUER : ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt(now)
      .setExpirationTime(now + TTL_SECONDS)
      .sign(operator ? this.operatorKey! : this.key);
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(cacheKey, { token, reuseUntil: now + TTL_SECONDS - REUSE_MARGIN_SECONDS });
    return token;
  }
}

// Signers reuse a token for tens of seconds, so most calls present a token already verified.
const VERIFIED_CACHE_LIMIT = 10_000;

export class TokenVerifier {
  private readonly key: KeyObject;
  private readonly operatorKey: KeyObject;
  /** Verified tokens (the exact string) and when they expire; an entry never outlives its token. */
  private readonly verified = new Map<string, { principal: Principal; expiresAtMs: number }>();

  constructor(keys: VerifyingKeys) {
    this.key = createPublicKey(keys.callerTokenPublicKey);
    this.operatorKey = createPublicKey(keys.operatorTokenPublicKey);
  }

  /** Throws when the token is not one of ours or has expired. */
  async verify(token: string): Promise<Principal> {
    const hit = this.verified.get(token);
    if (hit && hit.expiresAtMs > Date.now()) return hit.principal;
    const { principal, expiresAtMs } = await this.verifySignature(token);
    if (this.verified.size >= VERIFIED_CACHE_LIMIT) this.verified.clear();
    this.verified.set(token, { principal, expiresAtMs });
    return principal;
  }

  private async verifySignature(token: string): Promise<{ principal: Principal; expiresAtMs: number }> {
    // The issuer picks the key; each key vouches only for its own principal kinds (below).
    const operator = unverifiedIssuer(token) === OPERATOR_ISSUER;
    const { payload } = await jwtVerify<Claims>(token, operator ? this.operatorKey : this.key, {
      algorithms: [ALGORITHM],
      issuer: operator ? OPERATOR_ISSUER : ISSUER,
      audience: AUDIENCE,
      requiredClaims: ['exp', 'iat'],
    });
    const expiresAtMs = payload.exp! * 1000;
    if (operator !== (payload.pk === 'operator')) throw new Error(`the ${operator ? 'operator' : 'edge'} key does not vouch for this principal`);
    switch (payload.pk) {
      case 'caller':
        return { principal: { kind: 'caller', caller: Caller.fromJSON(payload.caller) }, expiresAtMs };
      case 'edge':
        return { principal: { kind: 'edge' }, expiresAtMs };
      case 'operator':
        if (typeof payload.actor !== 'string') break;
        return { principal: { kind: 'operator', actor: payload.actor }, expiresAtMs };
      case 'user':
        if (typeof payload.uid !== 'string' || payload.uid === '') break;
        return { principal: { kind: 'user', userId: payload.uid }, expiresAtMs };
    }
    throw new Error('token names no known principal');
  }
}
