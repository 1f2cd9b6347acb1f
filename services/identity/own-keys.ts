// What a signed-in user (the settings web app's `user` principal) may do with keys: mint and list
// only their own, and revoke a key they own or a legacy key of an organization they manage (owner
// or admin); likewise read their own usage and account. The operator may act for anyone. Any other
// key is answered as not found, so its existence is not revealed.
import { domainError } from '../kit/grpc/errors.js';
import type { ServiceContext } from '../kit/grpc/server.js';
import type { IdentityContext } from './identity-context.js';
import { managedOrganizationIds } from './organization-keys.js';

/** The user a request may act for: a signed-in user only for themself (their keys, usage, account). */
export function requireSelf(ctx: ServiceContext, userId: string, what = 'keys'): void {
  if (ctx.principal.kind === 'user' && ctx.principal.userId !== userId) {
    throw domainError('forbidden', `a signed-in user manages only their own ${what}`);
  }
}

/** Refuses revoking a key the signed-in user may not revoke (as not found); the operator passes. */
export async function requireOwnKey(context: IdentityContext, ctx: ServiceContext, keyId: string): Promise<void> {
  if (ctx.principal.kind !== 'user') return;
  const userId = ctx.principal.userId;
  const key = await context.keys.findById(keyId);
  const mayRevoke = key !== undefined && (key.owner_type === 'user'
    ? key.owner_id === userId
    : (await managedOrganizationIds(context, userId)).includes(key.owner_id));
  if (!mayRevoke) throw domainError('not_found', `key ${keyId} not found`);
}

/**
 * Refuses rolling or renaming a key that is not the signed-in user's own personal key (as not
 * found): legacy organization keys cannot be changed, only revoked. The operator passes.
 */
export async function requireOwnPersonalKey(context: IdentityContext, ctx: ServiceContext, keyId: string): Promise<void> {
  if (ctx.principal.kind !== 'user') return;
  const key = await context.keys.findById(keyId);
  if (!key || key.owner_type !== 'user' || key.owner_id !== ctx.principal.userId) throw domainError('not_found', `key ${keyId} not found`);
}
