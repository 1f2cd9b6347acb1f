// Authentication: who an API key or an OAuth access token stands for, re-checked against live
// state on every request — or, for an API key when the edge checks its stamp in the same step,
// taken from the cache that stamps keep exact (credential-cache.ts) — and the credential's
// description (DescribeCredential, /v1/me). Each authenticated request is counted once
// (usage-recorder.ts).
import type { AuthenticateRequest, AuthenticateResponse, DescribeCredentialResponse } from '../../proto/gen/expertnet/identity/v1/identity_service.js';
import { type Caller, CredentialKind } from '../../proto/gen/expertnet/common/v1/common.js';
import { ownerTypes } from '../kit/enums.js';
import { domainError } from '../kit/grpc/errors.js';
import { callerOf } from '../kit/grpc/principal.js';
import type { ServiceContext } from '../kit/grpc/server.js';
import type { AccessTokenClaims } from './access-token.js';
import { checkSecret, hashSecret } from './api-key-secret.js';
import { callerOfServiceAccountToken, describeServiceAccount, isServiceAccountId } from './service-account-tokens.js';
import type { GrantRow } from './grant.repository.js';
import type { WithManagedOrganizations } from './managed-organizations.js';
import type { IdentityContext } from './identity-context.js';
import { callerOfGrant, callerOfKey, grantAsApiKey, toApiKey } from './identity-messages.js';
import type { DescribedKeyRow } from './key.repository.js';
import { utcDay } from '../kit/utc-day.js';

/**
 * Exactly one of an API key and an access token; `describe` adds the credential's description.
 * `ctx`: the call (its principal; its request id, named on what it logs). A relayed credential (a
 * service serving the credential's own call asks again) is authenticated live, not counted again.
 */
export async function authenticate(context: IdentityContext, request: AuthenticateRequest, ctx: ServiceContext): Promise<AuthenticateResponse> {
  const { requestId } = ctx;
  // Only a service serving a direct caller's call relays its credential.
  if (request.relayed && ctx.principal.kind !== 'service') throw domainError('forbidden', 'only a service relays a credential');
  if (Boolean(request.apiKey) === Boolean(request.accessToken)) {
    throw domainError('invalid_request', 'send exactly one of api_key and access_token');
  }
  if (request.relayed && (request.acceptCached || request.refresh || request.describe)) {
    throw domainError('invalid_request', 'a relayed credential is read live, alone: no accept_cached, refresh or describe');
  }
  const counted = !request.relayed;
  if (request.accessToken) {
    const claims = await verifiedAccessToken(context, request.accessToken, request.resource, requestId);
    if (claims.serviceAccountId !== undefined) {
      const caller = await callerOfServiceAccountToken(context, claims, request.resource);
      if (counted) context.serviceAccountUsage.record(caller.credentialId);
      return { caller, description: request.describe ? await describeServiceAccount(context, caller) : undefined, stamp: '' };
    }
    const { grant, scopes } = await grantOfAccessToken(context, claims);
    if (counted) context.grantUsage.record(grant.id);
    const caller = callerOfGrant(grant, scopes);
    return { caller, description: request.describe ? await describeGrant(context, caller) : undefined, stamp: '' };
  }
  // Made only when refusing: building an error (its stack) on every request cost 4.5% of the
  // edge's CPU under load (`npm run bench`).
  const refused = () => domainError('unauthorized', 'invalid or revoked API key');
  if (!checkSecret(request.apiKey)) throw refused();
  const secretHash = hashSecret(request.apiKey, context.deps.pepper);
  if (request.describe) {
    // One statement finds the live key and describes it, for every request of the moment at once.
    const today = utcDay(new Date());
    const row = await context.describeKeyByHash({ secretHash, day: today });
    if (!row) throw refused();
    if (hasExpired(row)) throw expired(row);
    context.keyUsage.record(row.id);
    return { caller: callerOfKey(row), description: describedKey(context, row, today), stamp: '' };
  }
  const { callers } = context;
  const cached = request.acceptCached && !request.refresh ? callers?.get(secretHash) : undefined;
  if (cached) {
    context.keyUsage.record(cached.caller.credentialId);
    return { caller: cached.caller, description: undefined, stamp: cached.stamp };
  }
  const readAt = Date.now();
  const row = await context.keys.findActiveByHash(secretHash);
  if (!row || hasExpired(row)) {
    if (request.refresh) await uncountRefused(context, secretHash);
    throw row ? expired(row) : refused();
  }
  // A refresh is the same request as the cached answer before it, which counted it.
  if (!request.refresh && counted) context.keyUsage.record(row.id);
  const caller = callerOfKey(row);
  // The cache keeps the caller no later than the key expires (credential-cache.ts).
  if (callers && (request.acceptCached || request.refresh)) await callers.remember(secretHash, caller, readAt, row.expires_at);
  return { caller, description: undefined, stamp: '' };
}

/** A key past its expiry (chosen at mint, or the end of a roll's grace period) authenticates no more. */
function hasExpired(row: { expires_at: Date | null }, now = Date.now()): boolean {
  return row.expires_at !== null && row.expires_at.getTime() <= now;
}

/** The refusal of an expired key says so, and when: its owner then knows to mint or roll one. */
function expired(row: { expires_at: Date | null }) {
  return domainError('unauthorized', `API key expired at ${row.expires_at!.toISOString()}`);
}

/**
 * A cached answer counted the request, then its stamp was stale and the key turned out revoked:
 * the request is refused after all, and uncounted (usage counts authenticated requests only).
 */
async function uncountRefused(context: IdentityContext, secretHash: string): Promise<void> {
  context.callers?.forget(secretHash);
  const id = await context.keys.findIdByHash(secretHash);
  if (id) context.keyUsage.record(id, new Date(), -1);
}

/** The description of the credential a caller authenticated with (a live key or grant; only a `caller` principal has one). */
export async function describeCredential(context: IdentityContext, ctx: ServiceContext): Promise<DescribeCredentialResponse> {
  const caller = callerOf(ctx.principal);
  if (!caller) throw domainError('forbidden', 'needs a caller');
  if (caller.credential === CredentialKind.CREDENTIAL_KIND_OAUTH) {
    return isServiceAccountId(caller.credentialId) ? describeServiceAccount(context, caller) : describeGrant(context, caller);
  }
  const today = utcDay(new Date());
  const row = await context.keys.describe(caller.credentialId, today);
  if (!row) throw domainError('unauthorized', 'invalid or revoked API key');
  if (hasExpired(row)) throw expired(row);
  return describedKey(context, row, today);
}

/** The claims of an access token presented to `resource` (the edge's; '' is the REST API), verified for that resource's audience. */
async function verifiedAccessToken(context: IdentityContext, token: string, resource: string, requestId: string): Promise<AccessTokenClaims> {
  const { accessTokens } = context;
  if (!accessTokens) throw domainError('unauthorized', 'access tokens are not accepted: OAuth is not configured');
  if (resource && !accessTokens.audiences.includes(resource)) {
    // The edge and identity disagree on a resource URL: every token on that surface is refused.
    context.deps.logger.warn({ requestId, resource, served: accessTokens.audiences }, 'access token presented for a resource identity does not serve (check MCP_RESOURCE_URL)');
  }
  return accessTokens.verify(token, resource);
}

/**
 * The grant behind a verified access token, re-checked against live state: it exists, is not
 * revoked and belongs to the token's subject, and the token's scopes are within the grant's.
 */
async function grantOfAccessToken(
  context: IdentityContext,
  claims: AccessTokenClaims & { grantId: string },
): Promise<{ grant: GrantRow & WithManagedOrganizations; scopes: string[] }> {
  const grant = await context.grants.findForAuthentication(claims.grantId);
  if (!grant || grant.revoked_at || grant.user_id !== claims.userId) {
    throw domainError('unauthorized', 'access token grant is revoked or unknown');
  }
  if (claims.scopes.some((s) => !grant.scopes.includes(s))) {
    throw domainError('unauthorized', 'access token scopes exceed its grant');
  }
  return { grant, scopes: claims.scopes };
}

/** A live key's description; requests counted in this process and not yet stored are added. */
function describedKey(context: IdentityContext, row: DescribedKeyRow, today: string): DescribeCredentialResponse {
  const unflushed = context.keyUsage.unflushed(row.id, today);
  return {
    key: toApiKey(row),
    owner: { type: ownerTypes.toEnum(row.owner_type), id: row.owner_id, name: row.owner_name ?? '' },
    usage: { requestsToday: row.today + unflushed, requestsThisMonth: row.month + unflushed },
  };
}

async function describeGrant(context: IdentityContext, caller: Caller): Promise<DescribeCredentialResponse> {
  const row = await context.grants.findById(caller.credentialId);
  if (!row || row.revoked_at || row.user_id !== caller.userId) {
    throw domainError('unauthorized', 'access token grant is revoked or unknown');
  }
  const today = utcDay(new Date());
  const stored = await context.grants.usage(row.id, today);
  const unflushed = context.grantUsage.unflushed(row.id, today);
  return {
    key: grantAsApiKey(row),
    owner: { type: ownerTypes.toEnum('user'), id: row.user_id, name: (await context.users.findUser(row.user_id))?.name ?? '' },
    usage: { requestsToday: stored.today + unflushed, requestsThisMonth: stored.month + unflushed },
  };
}
