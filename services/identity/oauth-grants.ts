// OAuth grants: a user's consent to one client, with its scopes and a rate tier decided at
// creation like a key's; access tokens issued over a grant by the local issuer (access-token.ts);
// creating, revoking and listing grants — by the operator, or by a signed-in user for their own
// grants only (the settings web app's consent page and keys screen): another user's grant is
// answered as not found.
import type { IssueAccessTokenRequest } from '../../proto/gen/expertnet/identity/v1/identity_service.js';
import { domainError } from '../kit/grpc/errors.js';
import type { ServiceContext } from '../kit/grpc/server.js';
import { newId } from '../kit/ids.js';
import { clampPageSize, pageOf } from '../kit/paging.js';
import { DEFAULT_TTL_SECONDS } from './access-token.js';
import type { GrantRow } from './grant.repository.js';
import type { IdentityContext } from './identity-context.js';
import { validRequestedRate, validScopes } from './key-minting.js';
import { requireSelf } from './own-keys.js';
import { personalRateTier } from './personal-rate-tier.js';

/** An OAuth client id: 1-200 visible ASCII characters (URLs allowed). Empty means "local". */
const CLIENT_ID_PATTERN = /^[\x21-\x7e]{1,200}$/;

export interface GrantRequest {
  userId: string;
  scopes: string[];
  clientId: string;
  requestedRate: number;
}

/** Creates a grant for a user's consent to one client; the tier is decided now, like a key's. */
export async function createGrant(context: IdentityContext, request: GrantRequest, ctx: ServiceContext): Promise<GrantRow> {
  // A signed-in user consents for themself only (the settings app's consent page).
  requireSelf(ctx, request.userId, 'grants');
  const user = await context.users.findUser(request.userId);
  if (!user) throw domainError('invalid_request', `unknown user ${request.userId}; grants are always personal`);
  const clientId = request.clientId || 'local';
  if (!CLIENT_ID_PATTERN.test(clientId)) throw domainError('invalid_request', 'client_id must be 1-200 visible ASCII characters');
  const scopes = validScopes(request.scopes);
  const requestedRate = validRequestedRate(request.requestedRate);
  return context.grants.insert({
    id: newId('grant'),
    user_id: user.id,
    client_id: clientId,
    scopes,
    rate_tier: await personalRateTier(context, user, ctx),
    requested_rate: requestedRate,
  });
}

/** A new grant and an access token over it, signed by the local issuer for the resource asked. */
export async function issueAccessToken(context: IdentityContext, request: IssueAccessTokenRequest, ctx: ServiceContext) {
  const { accessTokens } = context;
  if (!accessTokens) throw domainError('unprocessable', 'OAuth is not configured: no access tokens can be issued');
  if (accessTokens.mode === 'external') {
    throw domainError('unprocessable', 'access tokens come from the external identity provider (OAUTH_JWKS_URL); use CreateGrant');
  }
  const ttlSeconds = request.ttlSeconds || DEFAULT_TTL_SECONDS;
  if (ttlSeconds > accessTokens.maxLifetimeSeconds) {
    throw domainError('invalid_request', `ttl_seconds must be 1 to ${accessTokens.maxLifetimeSeconds}`);
  }
  // Checked before the grant is created: a refused request leaves nothing behind.
  const audience = accessTokens.audienceFor(request.resource);
  const grant = await createGrant(context, request, ctx);
  const issued = await accessTokens.issue({
    userId: grant.user_id, scopes: grant.scopes, grantId: grant.id, clientId: grant.client_id, ttlSeconds, audience,
  });
  return { grant, token: issued.token, expiresAt: issued.expiresAt };
}

export async function revokeGrant(context: IdentityContext, ctx: ServiceContext, grantId: string): Promise<GrantRow> {
  const notFound = () => domainError('not_found', `grant ${grantId} not found`);
  if (ctx.principal.kind === 'user' && (await context.grants.findById(grantId))?.user_id !== ctx.principal.userId) throw notFound();
  const row = await context.grants.revoke(grantId);
  if (!row) throw notFound();
  return row;
}

/** One page of a user's grants (a signed-in user's own only). */
export async function listGrants(context: IdentityContext, ctx: ServiceContext, request: { userId: string; pageSize: number; pageToken: string }) {
  requireSelf(ctx, request.userId, 'grants');
  const limit = clampPageSize(request.pageSize);
  return pageOf(await context.grants.listOfUser(request.userId, limit + 1, request.pageToken), limit, (g) => g.id);
}
