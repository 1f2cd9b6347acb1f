// Service accounts' access tokens: the client-credentials grant (RFC 6749 §4.4) behind the
// authorization server's token endpoint — the client authenticated by its secret, compared as a
// keyed hash in constant time, or by an assertion signed with its key (service-account-assertions.ts), the scope asked for checked against the account's — and the caller
// such a token stands for when the gRPC door presents it, re-read live on every call: a revoked
// account, or a scope it no longer holds, is refused on the next call.
import { timingSafeEqual } from 'node:crypto';
import { ApiKey, type DescribeCredentialResponse } from '../../proto/gen/expertnet/identity/v1/identity_service.js';
import type { IssueServiceAccountTokenRequest, IssueServiceAccountTokenResponse } from '../../proto/gen/expertnet/identity/v1/service_accounts.js';
import { Caller } from '../../proto/gen/expertnet/common/v1/common.js';
import { credentialKinds, keyEnvironments, ownerTypes, rateTiers } from '../kit/enums.js';
import { domainError } from '../kit/grpc/errors.js';
import { GRPC_AUDIENCE } from '../kit/grpc-audience.js';
import { utcDay } from '../kit/utc-day.js';
import { hashSecret } from './api-key-secret.js';
import { accountOfAssertion } from './service-account-assertions.js';
import type { ServiceAccountRow } from './service-account.repository.js';
import type { IdentityContext } from './identity-context.js';
import { toManagedOrganizations } from './managed-organizations.js';

/** How long a service account's token lives: short, it asks again with its secret. */
export const SERVICE_ACCOUNT_TOKEN_SECONDS = 600;

/** The OAuth error the token endpoint answers with (RFC 6749 §5.2), carried in ErrorInfo's metadata. */
const oauthError = (code: 'unauthorized' | 'invalid_request', error: string, message: string) =>
  domainError(code, message, { oauth_error: error });

const sameHash = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** The live account whose secret this is, or `refused()`: one answer for an unknown id, a revoked account and a wrong secret. */
async function accountOfSecret(context: IdentityContext, request: IssueServiceAccountTokenRequest, refused: () => Error): Promise<ServiceAccountRow> {
  const account = request.clientId ? await context.serviceAccounts.findById(request.clientId) : undefined;
  const presented = hashSecret(request.clientSecret, context.deps.pepper);
  if (!account?.secret_hash || account.revoked_at || !request.clientSecret || !sameHash(presented, account.secret_hash)) throw refused();
  return account;
}

export async function issueServiceAccountToken(context: IdentityContext, request: IssueServiceAccountTokenRequest): Promise<IssueServiceAccountTokenResponse> {
  const { accessTokens } = context;
  if (!accessTokens || accessTokens.mode !== 'local') {
    throw oauthError('invalid_request', 'unsupported_grant_type', 'service account tokens come from this system\'s own authorization server');
  }
  // One answer for an unknown account, a revoked one and a wrong secret: the id alone proves nothing.
  const refused = () => oauthError('unauthorized', 'invalid_client', 'client authentication failed');
  const account = request.clientAssertion
    ? await accountOfAssertion(context, request.clientAssertion, request.clientId, accessTokens.issuer, refused)
    : await accountOfSecret(context, request, refused);
  const asked = [...new Set(request.scope.split(' ').filter(Boolean))];
  const outside = asked.filter((s) => !account.scopes.includes(s));
  if (outside.length > 0) throw oauthError('invalid_request', 'invalid_scope', `scope outside this service account's: ${outside.join(' ')}`);
  const scopes = asked.length > 0 ? asked : account.scopes;
  const issued = await accessTokens.issueForServiceAccount({
    serviceAccountId: account.id, scopes, ttlSeconds: SERVICE_ACCOUNT_TOKEN_SECONDS, audience: GRPC_AUDIENCE,
  });
  await context.serviceAccounts.touch(account.id);
  return { accessToken: issued.token, expiresIn: SERVICE_ACCOUNT_TOKEN_SECONDS, scope: scopes.join(' ') };
}

/**
 * The caller a verified service-account token stands for, presented to `resource`: only the gRPC
 * API's audience serves them. Its owner pays and reaches (intersected with the account's allowlist);
 * a user-owned account carries its user, an organization's none (as a legacy organization key).
 */
export async function callerOfServiceAccountToken(context: IdentityContext, claims: { serviceAccountId: string; scopes: string[] }, resource: string): Promise<Caller> {
  if (resource !== GRPC_AUDIENCE) throw domainError('unauthorized', 'access token is not for this resource (aud)');
  const row = await context.serviceAccounts.findForAuthentication(claims.serviceAccountId);
  if (!row || row.revoked_at) throw domainError('unauthorized', 'access token service account is revoked or unknown');
  if (claims.scopes.some((s) => !row.scopes.includes(s))) throw domainError('unauthorized', 'access token scopes exceed its service account');
  return Caller.fromPartial({
    credentialId: row.id,
    credential: credentialKinds.toEnum('oauth'),
    owner: { type: ownerTypes.toEnum(row.owner_type), id: row.owner_id },
    userId: row.owner_type === 'user' ? row.owner_id : '',
    scopes: claims.scopes,
    allowlist: { communityIds: row.community_ids },
    rateTier: rateTiers.toEnum(row.rate_tier),
    requestedRate: row.requested_rate,
    environment: keyEnvironments.toEnum('live'),
    managedOrganizations: toManagedOrganizations(row),
  });
}

/** A service account as DescribeCredential shows it, in the shape of a key (no prefix, live, its owner). */
export async function describeServiceAccount(context: IdentityContext, caller: Caller): Promise<DescribeCredentialResponse> {
  const row = await context.serviceAccounts.findById(caller.credentialId);
  if (!row || row.revoked_at) throw domainError('unauthorized', 'access token service account is revoked or unknown');
  const owner = row.owner_type === 'user' ? await context.users.findUser(row.owner_id) : await context.users.findOrganization(row.owner_id);
  // Calls counted in this process and not yet stored are added, as for keys and grants.
  const today = utcDay(new Date());
  const stored = await context.serviceAccounts.usage(row.id, today);
  const unflushed = context.serviceAccountUsage.unflushed(row.id, today);
  return {
    key: ApiKey.fromPartial({
      id: row.id, prefix: '', name: row.name, environment: keyEnvironments.toEnum('live'),
      owner: { type: ownerTypes.toEnum(row.owner_type), id: row.owner_id }, scopes: row.scopes,
      allowlist: { communityIds: row.community_ids }, rateTier: rateTiers.toEnum(row.rate_tier), requestedRate: row.requested_rate,
      createdAt: row.created_at.toISOString(), lastUsedAt: row.last_used_at?.toISOString(),
    }),
    owner: { type: ownerTypes.toEnum(row.owner_type), id: row.owner_id, name: owner?.name ?? '' },
    usage: { requestsToday: stored.today + unflushed, requestsThisMonth: stored.month + unflushed },
  };
}

/** Whether a caller's credential id names a service account (its token's caller), not a grant. */
export const isServiceAccountId = (credentialId: string) => credentialId.startsWith('sa_');
