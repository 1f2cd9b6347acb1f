// The token the edge (and the operator tools) put on every internal gRPC call: a short-lived
// EdDSA-signed JWT naming the principal. Every service verifies it on every call with the public
// key, so a request that did not pass through a trusted signer is refused.
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { decodeJwt, jwtVerify, SignJWT } from 'jose';
import { Caller } from '../../../proto/gen/expertnet/common/v1/common.js';
import type { Principal } from './principal.js';

const ISSUER = 'expertnet-edge';
const AUDIENCE = 'expertnet-internal';
const ALGORITHM = 'EdDSA';
const TTL_SECONDS = 60;
// A signed token is reused until this many seconds before it expires.
const REUSE_MARGIN_SECONDS = 20;

interface Claims {
  pk: Principal['kind'];
  caller?: unknown;
  actor?: string;
  svc?: string;
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
      return { pk: 'service', svc: p.service };
    case 'user':
      return { pk: 'user', uid: p.userId };
  }
}

/**
 * The token says (unverified) that the edge issued it: a caller token, good or bad. Such a bearer
 * is never taken for an end user's own access token (services refuse it when it does not verify).
 */
export function claimsEdgeIssuer(token: string): boolean {
  try {
    return decodeJwt(token).iss === ISSUER;
  } catch {
    return false;
  }
}

export class TokenSigner {
  private readonly key: KeyObject;
  private readonly cache = new Map<string, { token: string; reuseUntil: number }>();

  constructor(privateKeyPem: string) {
    this.key = createPrivateKey(privateKeyPem);
  }

  async sign(principal: Principal): Promise<string> {
    const claims = claimsOf(principal);
    const cacheKey = JSON.stringify(claims);
    const now = Math.floor(Date.now() / 1000);
    const hit = this.cache.get(cacheKey);
    if (hit && hit.reuseUntil > now) return hit.token;
    const token = await new SignJWT({ ...claims })
      .setProtectedHeader({ alg: ALGORITHM })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt(now)
      .setExpirationTime(now + TTL_SECONDS)
      .sign(this.key);
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(cacheKey, { token, reuseUntil: now + TTL_SECONDS - REUSE_MARGIN_SECONDS });
    return token;
  }
}

// Signers reuse a token for tens of seconds, so most calls present a token already verified.
const VERIFIED_CACHE_LIMIT = 10_000;

export class TokenVerifier {
  private readonly key: KeyObject;
  /** Verified tokens (the exact string) and when they expire; an entry never outlives its token. */
  private readonly verified = new Map<string, { principal: Principal; expiresAtMs: number }>();

  constructor(publicKeyPem: string) {
    this.key = createPublicKey(publicKeyPem);
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
    const { payload } = await jwtVerify<Claims>(token, this.key, {
      algorithms: [ALGORITHM],
      issuer: ISSUER,
      audience: AUDIENCE,
      requiredClaims: ['exp', 'iat'],
    });
    const expiresAtMs = payload.exp! * 1000;
    switch (payload.pk) {
      case 'caller':
        return { principal: { kind: 'caller', caller: Caller.fromJSON(payload.caller) }, expiresAtMs };
      case 'edge':
        return { principal: { kind: 'edge' }, expiresAtMs };
      case 'operator':
        if (typeof payload.actor !== 'string') break;
        return { principal: { kind: 'operator', actor: payload.actor }, expiresAtMs };
      case 'service':
        if (typeof payload.svc !== 'string') break;
        return { principal: { kind: 'service', service: payload.svc }, expiresAtMs };
      case 'user':
        if (typeof payload.uid !== 'string' || payload.uid === '') break;
        return { principal: { kind: 'user', userId: payload.uid }, expiresAtMs };
    }
    throw new Error('token names no known principal');
  }
}
