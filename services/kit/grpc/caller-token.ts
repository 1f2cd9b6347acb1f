// The token the edge (and the operator tools) put on every internal gRPC call: a short-lived
// EdDSA-signed JWT naming the principal. Every service verifies it on every call with the public
// key, so a request that did not pass through a trusted signer is refused.
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
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
}

function claimsOf(p: Principal): Claims {
  switch (p.kind) {
    case 'caller':
      return { pk: 'caller', caller: Caller.toJSON(p.caller) };
    case 'edge':
      return { pk: 'edge' };
    case 'operator':
      return { pk: 'operator', actor: p.actor };
    case 'service':
      return { pk: 'service', svc: p.service };
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

export class TokenVerifier {
  private readonly key: KeyObject;

  constructor(publicKeyPem: string) {
    this.key = createPublicKey(publicKeyPem);
  }

  /** Throws when the token is not one of ours or has expired. */
  async verify(token: string): Promise<Principal> {
    const { payload } = await jwtVerify<Claims>(token, this.key, {
      algorithms: [ALGORITHM],
      issuer: ISSUER,
      audience: AUDIENCE,
      requiredClaims: ['exp', 'iat'],
    });
    switch (payload.pk) {
      case 'caller':
        return { kind: 'caller', caller: Caller.fromJSON(payload.caller) };
      case 'edge':
        return { kind: 'edge' };
      case 'operator':
        if (typeof payload.actor !== 'string') break;
        return { kind: 'operator', actor: payload.actor };
      case 'service':
        if (typeof payload.svc !== 'string') break;
        return { kind: 'service', service: payload.svc };
    }
    throw new Error('token names no known principal');
  }
}
