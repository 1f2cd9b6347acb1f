// What the billing service's handlers and domain modules share: dependencies and the ledger.
import { batchedRead } from '../kit/batched-read.js';
import type { ServiceDeps } from '../kit/service-deps.js';
import { createLedger, type Ledger, type Owner } from './ledger.repository.js';

export type BillingDeps = Pick<ServiceDeps, 'db' | 'clients' | 'signer' | 'deadlineMs' | 'logger'> & {
  /** CREDIT_ENFORCEMENT=on arms the 402 checks. */
  enforcement: boolean;
};

export interface BillingContext {
  deps: BillingDeps;
  ledger: Ledger;
  /** A caller's payer balance and spend in a month (`ledger.balanceAndSpend`), read together with the other requests of the same moment. */
  balanceAndSpend: (caller: { owner: Owner; credentialId: string; month: string }) => Promise<{ balance: number; spent: number }>;
}

export function createBillingContext(deps: BillingDeps): BillingContext {
  const ledger = createLedger(deps.db);
  return {
    deps,
    ledger,
    balanceAndSpend: batchedRead(async (asked: readonly { owner: Owner; credentialId: string; month: string }[]) => {
      // One statement per month asked for (one, but across a month's end).
      const answers = new Array<{ balance: number; spent: number }>(asked.length);
      for (const month of new Set(asked.map((a) => a.month))) {
        const indexes = asked.flatMap((a, i) => (a.month === month ? [i] : []));
        const read = await ledger.balancesAndSpends(indexes.map((i) => asked[i]!), month);
        indexes.forEach((i, j) => (answers[i] = read[j]!));
      }
      return answers;
    }),
  };
}
