// OAuth access tokens (docs/OAUTH.md): short-lived JWTs naming a user (`sub`), the scopes they
// carry (`scope`, space-separated) and the grant they come from (`grant_id`). This file only checks
// and makes tokens; the identity service then re-checks the grant against live state.
//
// Verification: against the external issuer's JWKS when OAUTH_JWKS_URL is set, else against the
// local issuer's public key. An algorithm allowlist (asymmetric only: never `none`, never HS*),
// the configured issuer, `exp`, `iat` and `sub` required, `nbf` honoured, a small clock tolerance,
// and a maximum lifetime (exp − iat) so a long-lived token is refused even when signed.
//
// Audience (RFC 8707): the system serves two resources, the REST API (OAUTH_AUDIENCE) and the MCP
// server (its resource URL). A token is checked against the one resource the edge serves the request
// for, so a token minted for one surface is refused by the other. The edge names that resource, but
// only the resources configured here are ever accepted or issued: a resource named by anyone else
// is refused, never trusted.
import { createHash, createPrivateKey, createPublicKey, randomBytes, type KeyObject } from 'node:crypto';
import {
  createRemoteJWKSet,
  errors,
  jwtVerify,
  SignJWT,
  type JWTHeaderParameters,
  type JWTPayload,
  type JWTVerifyGetKey,
  type JWTVerifyOptions,
  type FlattenedJWSInput,
} from 'jose';
import { ServerError, Status } from 'nice-grpc';
import type { Config } from '../kit/config.js';
import { domainError } from '../kit/grpc/errors.js';
import { GRPC_AUDIENCE } from '../kit/grpc-audience.js';
import { mcpResourceUrlOf } from '../kit/mcp-resource.js';
import { oauthIssuerOf, restAudienceOf } from '../kit/public-urls.js';
import type { ServerSecrets } from '../kit/secrets.js';

/** Asymmetric algorithms accepted from an external issuer. */
export const REMOTE_ALGORITHMS = ['EdDSA', 'ES256', 'RS256'] as const;
/** The local issuer signs with Ed25519 and accepts nothing else. */
export const LOCAL_ALGORITHM = 'EdDSA';
export const DEFAULT_CLOCK_TOLERANCE_SECONDS = 30;
export const MAX_LIFETIME_SECONDS = 3600;
export const DEFAULT_TTL_SECONDS = 900;
/** `typ` header values accepted (absent is accepted too): RFC 9068 access tokens and plain JWTs. */
const ACCEPTED_TYPES = new Set(['at+jwt', 'application/at+jwt', 'jwt']);

export interface OAuthOptions {
  /** Required `iss` (OAUTH_ISSUER); also the issuer of locally signed tokens. */
  issuer: string;
  /**
   * The REST API's audience (OAUTH_AUDIENCE): the `aud` required of a token presented to it, and
   * the resource of a request that names none.
   */
  audience: string;
  /** The other resources served here, each a token audience of its own: the MCP server's resource URL. */
  resources?: string[];
  /** An external issuer's JWKS (OAUTH_JWKS_URL). When set, local issuing is refused. */
  jwksUrl?: string;
  /** The local issuer's Ed25519 pair (PEM), used when jwksUrl is unset. */
  localSigningKey?: { privateKey: string; publicKey: string };
  /** At most 30 s. */
  clockToleranceSeconds?: number;
  /** Longest accepted exp − iat, in seconds; at most (and by default) 3600. */
  maxLifetimeSeconds?: number;
  /** How long fetched JWKS keys are used before a refetch (default 5 minutes). */
  jwksCacheMaxAgeMs?: number;
  /** Least time between two JWKS fetches triggered by an unknown `kid` (default 30 s). */
  jwksCooldownMs?: number;
  /** Timeout of one JWKS fetch (default 5 s). */
  jwksTimeoutMs?: number;
}

/**
 * The identity service's OAuth options from the configuration and the loaded secrets; undefined
 * when neither an external issuer nor a local key is available (OAuth then stays off).
 */
export function oauthOptionsFrom(
  config: Pick<Config, 'OAUTH_ISSUER' | 'OAUTH_AUDIENCE' | 'OAUTH_JWKS_URL' | 'MCP_RESOURCE_URL' | 'HOST' | 'PORT' | 'MCP_PORT' | 'SETTINGS_PUBLIC_URL' | 'SETTINGS_PORT'>,
  secrets: Pick<ServerSecrets, 'oauthSigningPrivateKey' | 'oauthSigningPublicKey'>,
): OAuthOptions | undefined {
  const base = { issuer: oauthIssuerOf(config), audience: restAudienceOf(config), resources: [mcpResourceUrlOf(config), GRPC_AUDIENCE] };
  if (config.OAUTH_JWKS_URL) return { ...base, jwksUrl: config.OAUTH_JWKS_URL };
  if (!secrets.oauthSigningPrivateKey || !secrets.oauthSigningPublicKey) return undefined;
  return { ...base, localSigningKey: { privateKey: secrets.oauthSigningPrivateKey, publicKey: secrets.oauthSigningPublicKey } };
}

/** A token issued over a user's grant, or (local issuer only) to a service account (`sub`, no `grant_id`). */
export type AccessTokenClaims =
  | { userId: string; /** Deduplicated, in token order. */ scopes: string[]; grantId: string; serviceAccountId?: undefined }
  | { serviceAccountId: string; scopes: string[]; userId?: undefined; grantId?: undefined };

export interface IssuedAccessToken {
  token: string;
  expiresAt: Date;
}

/** A refusal: the token is not acceptable. The message never contains the token. */
function refused(message = 'invalid access token') {
  return domainError('unauthorized', message);
}

/** The JWKS could not be fetched or read: not the caller's fault, and worth a retry (503 at the edge). */
class JwksUnavailable extends Error {}

function refusalOf(error: unknown) {
  if (error instanceof errors.JWTExpired) return refused('access token expired');
  if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'nbf') return refused('access token not yet valid');
  // Claims are checked only once the signature verified: this says nothing about a forged token.
  if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'aud') return refused('access token is not for this resource (aud)');
  return refused();
}

function stringClaim(payload: JWTPayload, name: string): string | undefined {
  const value = payload[name];
  return typeof value === 'string' && value.length > 0 && value.length <= 512 ? value : undefined;
}

/** RFC 7638 JWK thumbprint of an Ed25519 public key: the `kid` of locally signed tokens. */
function ed25519Thumbprint(publicKey: KeyObject): string {
  const { x } = publicKey.export({ format: 'jwk' });
  return createHash('sha256').update(JSON.stringify({ crv: 'Ed25519', kty: 'OKP', x })).digest('base64url');
}

export function createAccessTokens(options: OAuthOptions) {
  const tolerance = Math.min(Math.max(options.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_SECONDS, 0), 30);
  const maxLifetime = Math.min(Math.max(options.maxLifetimeSeconds ?? MAX_LIFETIME_SECONDS, 1), MAX_LIFETIME_SECONDS);
  // The audiences known here: the only ones a token is ever checked against or signed for.
  const audiences = new Set([options.audience, ...(options.resources ?? [])]);
  const verifyOptions: JWTVerifyOptions = {
    issuer: options.issuer,
    requiredClaims: ['exp', 'iat', 'sub'],
    clockTolerance: tolerance,
    // Also refuses an `iat` in the future (beyond the tolerance).
    maxTokenAge: maxLifetime,
  };

  let verifyJwt: (token: string, audience: string) => Promise<{ payload: JWTPayload; protectedHeader: JWTHeaderParameters }>;
  let signingKey: { key: KeyObject; kid: string } | undefined;

  if (options.jwksUrl) {
    const jwks = createRemoteJWKSet(new URL(options.jwksUrl), {
      cacheMaxAge: options.jwksCacheMaxAgeMs ?? 5 * 60_000,
      cooldownDuration: options.jwksCooldownMs ?? 30_000,
      timeoutDuration: options.jwksTimeoutMs ?? 5_000,
    });
    // A key the set does not hold is the token's fault; failing to fetch or read the set is not.
    const getKey: JWTVerifyGetKey = async (header: JWTHeaderParameters, token: FlattenedJWSInput) => {
      try {
        return await jwks(header, token);
      } catch (error) {
        if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) throw error;
        throw new JwksUnavailable('the OAuth issuer JWKS could not be fetched or read', { cause: error });
      }
    };
    verifyJwt = (token, audience) => jwtVerify(token, getKey, { ...verifyOptions, audience, algorithms: [...REMOTE_ALGORITHMS] });
  } else if (options.localSigningKey) {
    const publicKey = createPublicKey(options.localSigningKey.publicKey);
    const privateKey = createPrivateKey(options.localSigningKey.privateKey);
    if (publicKey.asymmetricKeyType !== 'ed25519' || privateKey.asymmetricKeyType !== 'ed25519') {
      throw new Error('the local OAuth signing key pair must be Ed25519');
    }
    verifyJwt = (token, audience) => jwtVerify(token, publicKey, { ...verifyOptions, audience, algorithms: [LOCAL_ALGORITHM] });
    signingKey = { key: privateKey, kid: ed25519Thumbprint(publicKey) };
  } else {
    throw new Error('OAuth needs either a JWKS URL or a local signing key pair');
  }

  /** The audience of a resource ('' is the REST API); undefined when it is not one served here. */
  const audienceOf = (resource: string): string | undefined => {
    const audience = resource || options.audience;
    return audiences.has(audience) ? audience : undefined;
  };

  return {
    mode: options.jwksUrl ? ('external' as const) : ('local' as const),
    /** The issuer (`iss`) tokens carry: also the audience of a client assertion sent to its token endpoint. */
    issuer: options.issuer,
    maxLifetimeSeconds: maxLifetime,
    /** Every audience served here, the REST API's first. */
    audiences: [...audiences],

    /**
     * The claims of a token acceptable for `resource` (its `aud` must name it; '' is the REST API).
     * Throws `unauthorized` for an unacceptable token or a resource not served here, and UNAVAILABLE
     * when the external issuer's keys cannot be fetched.
     */
    async verify(token: string, resource = ''): Promise<AccessTokenClaims> {
      const audience = audienceOf(resource);
      if (!audience) throw refused(`access tokens are not accepted for ${resource}`);
      let payload: JWTPayload;
      let header: JWTHeaderParameters;
      try {
        ({ payload, protectedHeader: header } = await verifyJwt(token, audience));
      } catch (error) {
        if (error instanceof JwksUnavailable) throw new ServerError(Status.UNAVAILABLE, 'the OAuth issuer keys are unavailable');
        throw refusalOf(error);
      }
      if (header.typ !== undefined && !ACCEPTED_TYPES.has(header.typ.toLowerCase())) throw refused();
      // Short-lived: a token whose lifetime exceeds the maximum is refused however well signed.
      if (payload.exp! - payload.iat! > maxLifetime) throw refused('access token lifetime exceeds the maximum');
      const subject = stringClaim(payload, 'sub');
      const scope = stringClaim(payload, 'scope');
      const grantId = stringClaim(payload, 'grant_id');
      const scopes = [...new Set((scope ?? '').split(' ').filter(Boolean))];
      if (!subject || scopes.length === 0) throw refused();
      if (grantId) return { userId: subject, scopes, grantId };
      // A service account's token names it twice (sub and service_account_id) and only this
      // system's own issuer signs one: an external issuer's token without a grant is refused.
      if (signingKey && stringClaim(payload, 'service_account_id') === subject) return { serviceAccountId: subject, scopes };
      throw refused();
    },

    /**
     * The audience of a token to be issued for `resource` ('' is the REST API); `invalid_request`
     * for a resource not served here.
     */
    audienceFor(resource: string): string {
      const audience = audienceOf(resource);
      if (!audience) throw domainError('invalid_request', `resource must be one served here: ${[...audiences].join(', ')}`);
      return audience;
    },

    /** Local issuer only: signs a token for a grant, for one audience (see audienceFor). */
    async issue(input: { userId: string; scopes: string[]; grantId: string; clientId: string; ttlSeconds: number; audience: string }): Promise<IssuedAccessToken> {
      return sign(input.userId, { scope: input.scopes.join(' '), grant_id: input.grantId, client_id: input.clientId }, input);
    },

    /** Local issuer only: signs a service account's token (client credentials), for one audience. */
    async issueForServiceAccount(input: { serviceAccountId: string; scopes: string[]; ttlSeconds: number; audience: string }): Promise<IssuedAccessToken> {
      const id = input.serviceAccountId;
      return sign(id, { scope: input.scopes.join(' '), service_account_id: id, client_id: id }, input);
    },
  };

  async function sign(subject: string, claims: JWTPayload, input: { ttlSeconds: number; audience: string }): Promise<IssuedAccessToken> {
    if (!signingKey) throw domainError('unprocessable', 'access tokens come from the external identity provider');
    if (!audiences.has(input.audience)) throw domainError('invalid_request', 'that audience is not served here');
    if (input.ttlSeconds < 1 || input.ttlSeconds > maxLifetime) {
      throw domainError('invalid_request', `ttl_seconds must be 1 to ${maxLifetime}`);
    }
    const now = Math.floor(Date.now() / 1000);
    const exp = now + input.ttlSeconds;
    const token = await new SignJWT(claims)
      .setProtectedHeader({ alg: LOCAL_ALGORITHM, typ: 'at+jwt', kid: signingKey.kid })
      .setIssuer(options.issuer)
      .setAudience(input.audience)
      .setSubject(subject)
      .setIssuedAt(now)
      .setExpirationTime(exp)
      .setJti(randomBytes(16).toString('base64url'))
      .sign(signingKey.key);
    return { token, expiresAt: new Date(exp * 1000) };
  }
}

export type AccessTokens = ReturnType<typeof createAccessTokens>;
