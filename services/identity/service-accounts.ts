// Service accounts: create (the secret returned once, only its keyed hash kept), list and revoke —
// by the operator for any user or organization, or by a signed-in owner (role `owner`) of the
// organization that owns them. Their scopes are the six of the spec, chosen explicitly; their
// allowlist names at least one community and never "all" (a signed-in owner may name only
// communities they reach, as for a key). The rate tier is decided now, like a key's. An account
// created with a public JWK authenticates with signed assertions (private_key_jwt) and has no secret.
import { randomBytes } from 'node:crypto';
import type { CreateServiceAccountRequest, ServiceAccount } from '../../proto/gen/expertnet/identity/v1/service_accounts.js';
import type { OwnerRef } from '../../proto/gen/expertnet/common/v1/common.js';
import { ownerTypes, rateTiers } from '../kit/enums.js';
import { domainError } from '../kit/grpc/errors.js';
import { describePrincipal } from '../kit/grpc/principal.js';
import type { ServiceContext } from '../kit/grpc/server.js';
import { newId } from '../kit/ids.js';
import { clampPageSize, pageOf } from '../kit/paging.js';
import { requireAllowlistWithinReach } from './allowlist-reach.js';
import { hashSecret } from './api-key-secret.js';
import type { IdentityContext } from './identity-context.js';
import { rateTierFor, validAllowlist, validKeyName, validRequestedRate, validScopes } from './key-minting.js';
import { personalRateTier } from './personal-rate-tier.js';
import { validPublicJwk } from './service-account-assertions.js';
import type { ServiceAccountRow } from './service-account.repository.js';

/** What a client secret starts with (a secret scanner's handle), then 256 random bits. */
export const SERVICE_ACCOUNT_SECRET_PREFIX = 'svc_sa_';
/** Words that would mean "every community": an allowlist is explicit. */
const EVERYTHING = new Set(['all', '*']);

type Owner = { type: 'user' | 'organization'; id: string };

function ownerOf(ref: OwnerRef | undefined): Owner {
  if (!ref?.id) throw domainError('invalid_request', 'owner is required: a user or an organization');
  return { type: ownerTypes.toName(ref.type, 'owner.type'), id: ref.id };
}

/**
 * Refuses a signed-in user acting for an owner other than an organization they own (as not found
 * for an account id, so its existence is not revealed); the operator passes.
 */
async function requireOwnerRights(context: IdentityContext, ctx: ServiceContext, owner: Owner, notFound?: string): Promise<void> {
  if (ctx.principal.kind !== 'user') return;
  const userId = ctx.principal.userId;
  const owns = owner.type === 'organization'
    && (await context.users.organizationsOfUser(userId)).some((m) => m.organization_id === owner.id && m.role === 'owner');
  if (owns) return;
  if (notFound) throw domainError('not_found', `service account ${notFound} not found`);
  throw domainError('forbidden', 'a signed-in user manages the service accounts of organizations they own');
}

function validCommunities(ids: readonly string[]): string[] {
  if (ids.some((id) => EVERYTHING.has(id.trim().toLowerCase()))) {
    throw domainError('invalid_request', 'community_ids must name communities: a service account never reaches "all"');
  }
  const communities = validAllowlist(ids) ?? [];
  if (communities.length === 0) throw domainError('invalid_request', 'community_ids must name at least one community');
  return communities;
}

export async function createServiceAccount(context: IdentityContext, request: CreateServiceAccountRequest, ctx: ServiceContext) {
  const owner = ownerOf(request.owner);
  await requireOwnerRights(context, ctx, owner);
  const name = validKeyName(request.name);
  if (!name) throw domainError('invalid_request', 'name is required');
  const scopes = validScopes(request.scopes);
  const communityIds = validCommunities(request.communityIds);
  const requestedRate = validRequestedRate(request.requestedRate);
  let rateTier: 'restricted' | 'standard' = rateTierFor('organization');
  if (owner.type === 'organization') {
    if (!(await context.users.findOrganization(owner.id))) throw domainError('invalid_request', `unknown organization ${owner.id}`);
  } else {
    const user = await context.users.findUser(owner.id);
    if (!user) throw domainError('invalid_request', `unknown user ${owner.id}`);
    rateTier = await personalRateTier(context, user, ctx);
  }
  if (ctx.principal.kind === 'user') await requireAllowlistWithinReach(context, ctx, ctx.principal.userId, communityIds);
  // A registered key (private_key_jwt) replaces the secret; otherwise a secret is made, shown once.
  const publicJwk = request.publicJwk ? await validPublicJwk(request.publicJwk) : null;
  const secret = publicJwk ? '' : SERVICE_ACCOUNT_SECRET_PREFIX + randomBytes(32).toString('base64url');
  const row = await context.serviceAccounts.insert({
    id: newId('sa'), name, owner_type: owner.type, owner_id: owner.id, scopes, community_ids: communityIds,
    secret_hash: secret ? hashSecret(secret, context.deps.pepper) : null, public_jwk: publicJwk, rate_tier: rateTier, requested_rate: requestedRate,
    created_by: ctx.principal.kind === 'user' ? ctx.principal.userId : describePrincipal(ctx.principal),
  });
  return { serviceAccount: toServiceAccount(row), clientSecret: secret };
}

export async function listServiceAccounts(context: IdentityContext, request: { owner?: OwnerRef; pageSize: number; pageToken: string }, ctx: ServiceContext) {
  const owner = ownerOf(request.owner);
  await requireOwnerRights(context, ctx, owner);
  const limit = clampPageSize(request.pageSize);
  const page = pageOf(await context.serviceAccounts.listOfOwner(owner.type, owner.id, limit + 1, request.pageToken), limit, (s) => s.id);
  return { serviceAccounts: page.items.map(toServiceAccount), nextPageToken: page.nextPageToken };
}

export async function revokeServiceAccount(context: IdentityContext, id: string, ctx: ServiceContext) {
  const found = await context.serviceAccounts.findById(id);
  if (!found) throw domainError('not_found', `service account ${id} not found`);
  await requireOwnerRights(context, ctx, { type: found.owner_type, id: found.owner_id }, id);
  return { serviceAccount: toServiceAccount((await context.serviceAccounts.revoke(id))!) };
}

export function toServiceAccount(row: ServiceAccountRow): ServiceAccount {
  return {
    id: row.id, name: row.name, owner: { type: ownerTypes.toEnum(row.owner_type), id: row.owner_id },
    scopes: row.scopes, communityIds: row.community_ids, rateTier: rateTiers.toEnum(row.rate_tier), requestedRate: row.requested_rate,
    createdBy: row.created_by, createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at?.toISOString(), revokedAt: row.revoked_at?.toISOString(),
    tokenEndpointAuthMethod: row.public_jwk ? 'private_key_jwt' : 'client_secret',
  };
}
