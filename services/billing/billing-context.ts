// What the billing service's handlers and domain modules share: dependencies and the ledger.
import { batchedRead, perGroup } from '../kit/batched-read.js';
import type { ServiceDeps } from '../kit/service-deps.js';
import { createLedger, type Ledger, type Owner } from './ledger.repository.js';

export type BillingDeps = Pick<ServiceDeps, 'db' | 'clients' | 'signer' | 'deadlineMs' | 'logger'> & {
  /** CREDIT_ENFORCEMENT=on arms the 402 checks. */
  enforcement: boolean;
};

/** A credential and its payer, in a month (YYYY-MM). */
type CallerMonth = { owner: Owner; credentialId: string; month: string };

export interface BillingContext {
  deps: BillingDeps;
  ledger: Ledger;
  /**
   * A caller's payer balance and spend in a month (`ledger.balanceAndSpend`), read together with
   * the other requests of the same moment (batched-read.ts).
   */
  balanceAndSpend: (caller: CallerMonth) => Promise<{ balance: number; spent: number }>;
}

export function createBillingContext(deps: BillingDeps): BillingContext {
  const ledger = createLedger(deps.db);
  return {
    deps,
    ledger,
    balanceAndSpend: batchedRead(perGroup((ask: CallerMonth) => ask.month, ledger.balancesAndSpends)),
  };
}
