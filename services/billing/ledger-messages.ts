// Ledger rows and owner references, to and from the billing protos: one mapping for every handler.
import { LedgerEntry, Wallet } from '../../proto/gen/expertnet/billing/v1/billing_service.js';
import type { OwnerRef } from '../../proto/gen/expertnet/common/v1/common.js';
import { ownerTypes } from '../kit/enums.js';
import { domainError } from '../kit/grpc/errors.js';
import type { LedgerRow, Owner, WalletRow } from './ledger.repository.js';

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
  });
}
