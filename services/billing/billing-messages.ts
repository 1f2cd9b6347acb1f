// Billing rows to and from the billing protos — owner references, wallets, ledger entries, a
// resolved payer, a user's spendable wallets, reconciliation mismatches: one mapping for every
// handler and domain module.
import { LedgerEntry, ListSpendableWalletsResponse, ResolvePayerResponse, Wallet } from '../../proto/gen/expertnet/billing/v1/billing_service.js';
import type { OwnerRef } from '../../proto/gen/expertnet/common/v1/common.js';
import { ownerTypes } from '../kit/enums.js';
import { domainError } from '../kit/grpc/errors.js';
import type { LedgerRow, Owner, UnreconciledRow, WalletRow } from './ledger.repository.js';
import { PAYER_SOURCES, type ResolvedPayer } from './resolve-payer.js';
import type { SpendableWallets } from './spendable-wallets.js';

/** A required owner reference of a request; `field` names it in the error. */
export function ownerOf(ref: OwnerRef | undefined, field = 'owner'): Owner {
  if (!ref?.id) throw domainError('invalid_request', `${field} is required`);
  return { type: ownerTypes.toName(ref.type, `${field}.type`), id: ref.id };
}

export function toWallet(row: WalletRow): Wallet {
  return Wallet.fromPartial({
    owner: { type: ownerTypes.toEnum(row.owner_type), id: row.owner_id },
    balance: row.balance,
    updatedAt: row.updated_at.toISOString(),
  });
}

export function toEntry(row: LedgerRow): LedgerEntry {
  return LedgerEntry.fromPartial({
    id: row.id,
    owner: { type: ownerTypes.toEnum(row.owner_type), id: row.owner_id },
    amount: row.amount,
    reference: row.reference,
    operation: row.operation,
    rate: row.rate,
    credentialId: row.credential_id ?? '',
    createdAt: row.created_at.toISOString(),
    balanceAfter: row.balance_after,
    requestId: row.request_id ?? '',
  });
}

/** The wire form of a resolved payer (ResolvePayer, and CheckFunds' `payer`). */
export function toResolvePayerResponse(resolved: ResolvedPayer): ResolvePayerResponse {
  return ResolvePayerResponse.fromPartial({
    payer: { type: ownerTypes.toEnum(resolved.payer.type), id: resolved.payer.id },
    payerName: resolved.payerName,
    source: PAYER_SOURCES[resolved.source],
  });
}

/** A signed-in user's wallets, preference and global-search payer (ListSpendableWallets). */
export function toSpendableWallets(found: SpendableWallets): ListSpendableWalletsResponse {
  return ListSpendableWalletsResponse.fromPartial({
    wallets: found.wallets.map(({ row, name }) => ({ wallet: toWallet(row), name })),
    globalSearchPreference: found.preference && { type: ownerTypes.toEnum(found.preference.type), id: found.preference.id },
    globalSearchPayer: toResolvePayerResponse(found.globalSearchPayer),
  });
}

/** A wallet whose balance differs from the sum of its entries. */
export function toMismatch(m: UnreconciledRow) {
  return {
    owner: { type: ownerTypes.toEnum(m.owner_type as Owner['type']), id: m.owner_id },
    balance: Number(m.balance),
    ledgerSum: Number(m.ledger_sum),
  };
}
