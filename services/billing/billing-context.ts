// What the billing service's handlers and domain modules share: dependencies and the ledger.
import type { ServiceDeps } from '../kit/service-deps.js';
import { createLedger, type Ledger } from './ledger.repository.js';

export type BillingDeps = Pick<ServiceDeps, 'db' | 'clients' | 'signer' | 'deadlineMs' | 'logger'> & {
  /** CREDIT_ENFORCEMENT=on arms the 402 checks. */
  enforcement: boolean;
};

export interface BillingContext {
  deps: BillingDeps;
  ledger: Ledger;
}

export function createBillingContext(deps: BillingDeps): BillingContext {
  return { deps, ledger: createLedger(deps.db) };
}
