// Wallets and their exact ledger as the operator keeps them: read entries in pages (a signed-in
// user, only of a wallet they may spend from), credit once per reference, set a balance (an
// adjustment entry), grant a seed balance once; and a caller's balance and spend for /v1/me. The
// SQL is ledger.repository.ts's.
import type { CreditWalletRequest, ListLedgerEntriesRequest } from '../../proto/gen/expertnet/billing/v1/billing_service.js';
import type { OwnerRef } from '../../proto/gen/expertnet/common/v1/common.js';
import { domainError } from '../kit/grpc/errors.js';
import { callerOf } from '../kit/grpc/principal.js';
import type { ServiceContext } from '../kit/grpc/server.js';
import { clampPageSize, pageOf } from '../kit/paging.js';
import type { BillingContext } from './billing-context.js';
import { ownerOf } from './billing-messages.js';
import { utcMonth } from './funding-consumption.js';
import type { LedgerRow, WalletRow } from './ledger.repository.js';
import { requireSpendable } from './spendable-wallets.js';

export async function getWallet(context: BillingContext, owner: OwnerRef | undefined): Promise<WalletRow> {
  return context.ledger.wallet(ownerOf(owner));
}

/** One page of a wallet's entries, newest first; a signed-in user reads only a wallet they may spend from. */
export async function listLedgerEntries(context: BillingContext, request: ListLedgerEntriesRequest, ctx: ServiceContext) {
  const { ledger } = context;
  const owner = ownerOf(request.owner);
  await requireSpendable(context, ctx, owner);
  const limit = clampPageSize(request.pageSize);
  const cursor = request.pageToken ? await ledger.entryById(request.pageToken) : undefined;
  if (request.pageToken && !cursor) throw domainError('invalid_request', 'unknown page_token');
  const rows = await ledger.entries(owner, limit + 1, cursor && { createdAt: cursor.created_at, id: cursor.id });
  return pageOf(rows, limit, (e) => e.id);
}

/** Credits a wallet once per reference; the same reference for another credit is a conflict. */
export async function creditWallet(
  context: BillingContext,
  request: CreditWalletRequest,
  ctx: ServiceContext,
): Promise<{ entry: LedgerRow; wallet: WalletRow; created: boolean }> {
  const { ledger } = context;
  const owner = ownerOf(request.owner);
  if (!Number.isSafeInteger(request.amount) || request.amount <= 0) {
    throw domainError('invalid_request', 'amount must be a positive whole number of credits');
  }
  if (!request.reference.trim()) throw domainError('invalid_request', 'reference is required (it makes the credit idempotent)');
  const { entry, created } = await ledger.post({
    owner,
    amount: request.amount,
    reference: `credit:${request.reference}`,
    operation: 'credit',
    note: request.note || (ctx.principal.kind === 'operator' ? `by ${ctx.principal.actor}` : undefined),
    requestId: ctx.requestId,
  });
  if (!created && (entry.owner_type !== owner.type || entry.owner_id !== owner.id || entry.amount !== request.amount)) {
    throw domainError('conflict', `reference ${request.reference} was already used for another credit`);
  }
  return { entry, wallet: await ledger.wallet(owner), created };
}

/** Sets a wallet's balance by an adjustment entry. */
export async function setWalletBalance(context: BillingContext, request: { owner: OwnerRef | undefined; balance: number }): Promise<WalletRow> {
  if (!Number.isSafeInteger(request.balance)) throw domainError('invalid_request', 'balance must be a whole number');
  return context.ledger.adjustTo(ownerOf(request.owner), request.balance, 'operator adjustment');
}

/** A seed file's balance, granted once; `posted` is false when it already was. */
export async function grantSeedBalance(context: BillingContext, request: { owner: OwnerRef | undefined; balance: number }) {
  if (!Number.isSafeInteger(request.balance)) throw domainError('invalid_request', 'balance must be a whole number');
  return context.ledger.grantSeed(ownerOf(request.owner), request.balance);
}

/** The calling credential's payer balance and this month's spend. */
export async function callerUsage(context: BillingContext, ctx: ServiceContext): Promise<{ balance: number; spent: number }> {
  const caller = callerOf(ctx.principal);
  if (!caller) throw domainError('forbidden', 'needs a caller');
  return context.balanceAndSpend({ owner: ownerOf(caller.owner), credentialId: caller.credentialId, month: utcMonth(new Date()) });
}
