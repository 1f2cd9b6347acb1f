// API keys: mint a personal key (or re-apply a seeded one), import a legacy organization key, list
// the keys a user minted, revoke a key. The minting rules are key-minting.ts's; the SQL is
// key.repository.ts's.
import type { ImportLegacyOrganizationKeyRequest, MintKeyRequest } from '../../proto/gen/expertnet/identity/v1/identity_service.js';
import { isUniqueViolation } from '../kit/db/database.js';
import { keyEnvironments } from '../kit/enums.js';
import { domainError } from '../kit/grpc/errors.js';
import type { ServiceContext } from '../kit/grpc/server.js';
import { newId, requireId } from '../kit/ids.js';
import { clampPageSize, pageOf } from '../kit/paging.js';
import { checkSecret, displayPrefixOf, generateSecret, hashSecret } from './api-key-secret.js';
import type { IdentityContext } from './identity-context.js';
import type { KeyRow, NewKey } from './key.repository.js';
import { requireAllowlistWithinReach } from './allowlist-reach.js';
import { rateTierFor, scopesWithPreset, validAllowlist, validKeyName, validRequestedRate, validScopes } from './key-minting.js';
import { personalRateTier } from './personal-rate-tier.js';
import { publishKeyStamps } from './stamp-publishing.js';

/**
 * Mints a key for a user. An operator may fix its id and secret (seed files); a key of that id
 * applied again keeps its secret, which is never shown again (`secret` is then empty).
 */
export async function mintKey(context: IdentityContext, request: MintKeyRequest, ctx: ServiceContext): Promise<{ row: KeyRow; secret: string }> {
  const isOperator = ctx.principal.kind === 'operator';
  if ((request.secret || request.id) && !isOperator) {
    throw domainError('forbidden', 'only an operator may fix a key id or secret');
  }
  const user = await context.users.findUser(request.userId);
  if (!user) throw domainError('invalid_request', `unknown user ${request.userId}; keys are always personal`);
  const scopes = validScopes(scopesWithPreset(request.preset, request.scopes));
  const allowlist = validAllowlist(request.allowlist?.communityIds);
  const requestedRate = validRequestedRate(request.requestedRate);
  const name = validKeyName(request.name);
  // A signed-in user names only communities they reach (the operator's seeds may run ahead of
  // memberships; an allowlist only ever narrows reach at use, so nothing widens either way).
  if (allowlist && ctx.principal.kind === 'user') await requireAllowlistWithinReach(context, ctx, user.id, allowlist);
  const wanted = request.environment ? keyEnvironments.toName(request.environment, 'environment') : 'live';
  const { secret, environment } = secretFor(request.secret, wanted);
  const tier = await personalRateTier(context, user, ctx);
  const { row, reapplied } = await insertOrReapply(context, {
    id: request.id ? requireId(request.id, 'id') : newId('key'),
    secret_hash: hashSecret(secret, context.deps.pepper),
    display_prefix: displayPrefixOf(secret),
    environment,
    owner_type: 'user',
    owner_id: user.id,
    minted_by_user_id: user.id,
    scopes,
    allowlist,
    rate_tier: tier,
    requested_rate: requestedRate,
    name,
  }, Boolean(request.secret));
  // A re-applied key keeps its original secret, which is never shown again.
  return { row, secret: reapplied ? '' : secret };
}

/** A legacy organization-owned key, imported with its secret (standard tier, as every organization key). */
export async function importLegacyOrganizationKey(context: IdentityContext, request: ImportLegacyOrganizationKeyRequest): Promise<KeyRow> {
  const org = await context.users.findOrganization(request.organizationId);
  if (!org) throw domainError('invalid_request', `unknown organization ${request.organizationId}`);
  const environment = checkSecret(request.secret);
  if (!environment) throw domainError('invalid_request', 'a legacy key needs a well-formed secret');
  const { row } = await insertOrReapply(context, {
    id: requireId(request.id, 'id'),
    secret_hash: hashSecret(request.secret, context.deps.pepper),
    display_prefix: displayPrefixOf(request.secret),
    environment,
    owner_type: 'organization',
    owner_id: org.id,
    minted_by_user_id: request.mintedByUserId || null,
    scopes: validScopes(request.scopes),
    allowlist: validAllowlist(request.allowlist?.communityIds),
    rate_tier: rateTierFor('organization'),
    requested_rate: validRequestedRate(request.requestedRate),
    name: '',
  }, true);
  return row;
}

/**
 * One page of the keys a user minted. The signed-in user sees their personal keys only: a legacy
 * organization key they once minted is shown to the organization's managers instead.
 */
export async function listKeys(context: IdentityContext, request: { userId: string; pageSize: number; pageToken: string }, ctx: ServiceContext) {
  const limit = clampPageSize(request.pageSize);
  const personalOnly = ctx.principal.kind === 'user';
  return pageOf(await context.keys.listMintedBy(request.userId, limit + 1, request.pageToken, personalOnly), limit, (k) => k.id);
}

export async function revokeKey(context: IdentityContext, keyId: string): Promise<KeyRow> {
  const row = await context.keys.revoke(keyId);
  if (!row) throw domainError('not_found', `key ${keyId} not found`);
  await publishKeyStamps(context, [row.id]);
  return row;
}

/** A verbatim secret (seed files) must be well-formed; otherwise a fresh one is generated. */
function secretFor(requested: string, environment: 'live' | 'test'): { secret: string; environment: 'live' | 'test' } {
  if (!requested) return { secret: generateSecret(environment), environment };
  const env = checkSecret(requested);
  if (!env) throw domainError('invalid_request', 'secret is not a well-formed key (prefix, length or checksum)');
  return { secret: requested, environment: env };
}

/**
 * Inserts a key. When its id exists (a seed applied again) the grants a seed may change are
 * updated and `reapplied` is true; a different owner, or a different verbatim secret, is refused.
 */
async function insertOrReapply(context: IdentityContext, row: NewKey, secretWasGiven: boolean): Promise<{ row: KeyRow; reapplied: boolean }> {
  const { keys } = context;
  try {
    const inserted = await keys.insert(row);
    if (inserted) return { row: inserted, reapplied: false };
  } catch (error) {
    if (isUniqueViolation(error)) throw domainError('invalid_request', 'that secret is already in use by another key');
    throw error;
  }
  const existing = (await keys.findById(row.id))!;
  if (existing.owner_type !== row.owner_type || existing.owner_id !== row.owner_id ||
      (secretWasGiven && existing.secret_hash !== row.secret_hash)) {
    throw domainError('invalid_request', `key ${row.id} already exists with another secret or owner`);
  }
  const updated = await keys.updateGrants(row.id, row.scopes, row.allowlist, row.requested_rate);
  await publishKeyStamps(context, [updated.id]);
  return { row: updated, reapplied: true };
}
