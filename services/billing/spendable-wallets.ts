// What a signed-in user (the settings web app's `user` principal) may see of wallets: the wallets
// they may spend from — their own, and those of the organizations they belong to (any role). That
// is the set the global-search order draws from and a saved preference may name (docs/BILLING.md).
// An organization that only covers searches in its communities (standing funding, a delegation
// budget) is not among them: the user does not choose it, and its balance is its own business.
// Any other wallet is answered as not found, so its existence is not revealed. The operator may
// read every wallet.
import { Caller } from '../../proto/gen/expertnet/common/v1/common.js';
import { ownerTypes } from '../kit/enums.js';
import { domainError } from '../kit/grpc/errors.js';
import type { ServiceContext } from '../kit/grpc/server.js';
import type { BillingContext } from './billing-context.js';
import type { Owner, WalletRow } from './ledger.repository.js';
import { createPayerDirectory } from './payer-directory.js';
import { createPayerSettings } from './payer-settings.repository.js';
import { resolvePayer, type ResolvedPayer } from './resolve-payer.js';

/** A signed-in user acts only for themself. */
export function requireSelf(ctx: ServiceContext, userId: string): void {
  if (ctx.principal.kind === 'user' && ctx.principal.userId !== userId) {
    throw domainError('forbidden', 'a signed-in user sees and sets only their own wallets and preference');
  }
}

/** The wallets `userId` may spend from: their own first, then their organizations' in join order. */
async function spendableOwners(context: BillingContext, userId: string, requestId: string): Promise<Owner[]> {
  const organizations = await createPayerDirectory(context, requestId).organizationsOf(userId);
  return [{ type: 'user', id: userId }, ...organizations.map((o): Owner => ({ type: 'organization', id: o.organizationId }))];
}

/** Refuses a signed-in user a wallet they may not spend from (as not found); the operator passes. */
export async function requireSpendable(context: BillingContext, ctx: ServiceContext, owner: Owner): Promise<void> {
  if (ctx.principal.kind !== 'user') return;
  const owners = await spendableOwners(context, ctx.principal.userId, ctx.requestId);
  if (!owners.some((o) => o.type === owner.type && o.id === owner.id)) {
    throw domainError('not_found', `wallet ${owner.type}:${owner.id} not found`);
  }
}

export interface SpendableWallets {
  wallets: Array<{ row: WalletRow; name: string }>;
  preference: Owner | undefined;
  globalSearchPayer: ResolvedPayer;
}

/** The user's spendable wallets with balances and names, their saved preference and who pays their next global search. */
export async function listSpendableWallets(context: BillingContext, ctx: ServiceContext, rawUserId: string): Promise<SpendableWallets> {
  const userId = rawUserId.trim();
  if (!userId) throw domainError('invalid_request', 'user_id is required');
  requireSelf(ctx, userId);
  const directory = createPayerDirectory(context, ctx.requestId);
  if (ctx.principal.kind !== 'user' && !(await directory.userExists(userId))) throw domainError('not_found', `user ${userId} not found`);
  const owners = await spendableOwners(context, userId, ctx.requestId);
  const wallets = await Promise.all(owners.map(async (owner) => ({
    row: await context.ledger.wallet(owner),
    name: (await directory.nameOf(owner)) ?? owner.id,
  })));
  const preference = await createPayerSettings(context.deps.db).globalPreference(userId);
  // As a personal key of this user would be resolved: the credential plays no part in who pays.
  const caller = Caller.fromPartial({ owner: { type: ownerTypes.toEnum('user'), id: userId }, userId });
  const globalSearchPayer = await resolvePayer(context, { operation: 'search', caller }, ctx.requestId);
  return { wallets, preference, globalSearchPayer };
}
