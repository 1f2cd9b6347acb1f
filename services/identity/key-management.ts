// API keys: mint a personal key (or re-apply a seeded one), import a legacy organization key, list
// the keys a user minted (newest first), revoke, roll and rename a key. The minting rules are key-minting.ts's; the SQL is
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
import { expiryAfter, rateTierFor, scopesWithPreset, validAllowlist, validGrace, validKeyName, validRequestedRate, validScopes } from './key-minting.js';
import { createKeyRepository } from './key.repository.js';
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
  const expiresAt = expiryAfter(request.expiresInSeconds);
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
    expires_at: expiresAt,
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

/**
 * Rolls a personal key: a new key with its name, scopes, allowlist, environment and requested rate
 * (the tier decided now, as at any mint) and a new secret; a key that expires gets the same
 * lifetime again from now. The old key is revoked at once (no grace) or expires at the end of the
 * grace period (never later than it already would), and names its replacement. One transaction:
 * a key is rolled once, and a concurrent roll or revocation leaves nothing half done.
 */
export async function rollKey(context: IdentityContext, request: { keyId: string; graceSeconds: number }, ctx: ServiceContext) {
  const graceSeconds = validGrace(request.graceSeconds);
  const old = await context.keys.findById(request.keyId);
  if (!old) throw domainError('not_found', `key ${request.keyId} not found`);
  if (old.owner_type !== 'user') throw domainError('invalid_request', 'a legacy organization key cannot be rolled; revoke it and mint a personal key');
  const now = new Date();
  if (old.revoked_at || (old.expires_at && old.expires_at <= now)) throw domainError('invalid_request', 'only an active key can be rolled');
  if (old.replaced_by) throw domainError('invalid_request', `this key was already rolled: key ${old.replaced_by} replaced it`);
  const user = await context.users.findUser(old.owner_id);
  if (!user) throw domainError('not_found', `key ${request.keyId} not found`);
  const secret = generateSecret(old.environment);
  const lifetimeMs = old.expires_at ? old.expires_at.getTime() - old.created_at.getTime() : 0;
  const tier = await personalRateTier(context, user, ctx);
  const { row, previous } = await context.deps.db.transaction(async (tx) => {
    const keys = createKeyRepository(tx);
    const row = (await keys.insert({
      id: newId('key'),
      secret_hash: hashSecret(secret, context.deps.pepper),
      display_prefix: displayPrefixOf(secret),
      environment: old.environment,
      owner_type: 'user',
      owner_id: old.owner_id,
      minted_by_user_id: old.minted_by_user_id,
      scopes: old.scopes,
      allowlist: old.allowlist,
      rate_tier: tier,
      requested_rate: old.requested_rate,
      name: old.name,
      expires_at: lifetimeMs > 0 ? new Date(now.getTime() + lifetimeMs) : null,
    }))!;
    const previous = await keys.markReplaced(old.id, row.id, graceSeconds === 0 ? null : new Date(now.getTime() + graceSeconds * 1000));
    if (!previous) throw domainError('invalid_request', 'this key was revoked or rolled meanwhile');
    return { row, previous };
  });
  // The old key's stamp carries its expiry (or `revoked`): a caller cached before the roll is stale.
  await publishKeyStamps(context, [previous.id]);
  return { row, secret, previous };
}

/** A key's new name (the rules of a name at mint). */
export async function renameKey(context: IdentityContext, request: { keyId: string; name: string }): Promise<KeyRow> {
  const row = await context.keys.rename(request.keyId, validKeyName(request.name));
  if (!row) throw domainError('not_found', `key ${request.keyId} not found`);
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
