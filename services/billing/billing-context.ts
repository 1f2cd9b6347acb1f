// What the groups of billing handlers share (payer.handlers.ts, metering.handlers.ts).
import type { ServiceDeps } from '../kit/service-deps.js';
import type { Ledger } from './ledger.repository.js';

export type BillingDeps = Pick<ServiceDeps, 'db' | 'clients' | 'signer' | 'deadlineMs' | 'logger'> & {
  /** CREDIT_ENFORCEMENT=on arms the 402 checks. */
  enforcement: boolean;
};

export interface BillingContext {
  deps: BillingDeps;
  ledger: Ledger;
}
