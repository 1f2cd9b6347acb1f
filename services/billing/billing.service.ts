// The billing service: wallets and the exact ledger (credit, adjust, read, balance and spend for
// /v1/me), and on top of it charging by reference, payer resolution, the funds check
// (enforcement) and self-enrich metering (docs/BILLING.md).
import { BillingServiceDefinition } from '../../proto/gen/expertnet/billing/v1/billing_service.js';
import type { BillingContext, BillingDeps } from './billing-context.js';
import { createMeteringHandlers } from './metering.handlers.js';
import { createPayerHandlers } from './payer.handlers.js';
import { domainError } from '../kit/grpc/errors.js';
import type { ServiceRegistration } from '../kit/grpc/server.js';
import { clampPageSize, pageOf } from '../kit/paging.js';
import { createLedger } from './ledger.repository.js';
import { ownerOf, toEntry, toWallet } from './ledger-messages.js';

export function createBillingService(deps: BillingDeps) {
  const ledger = createLedger(deps.db);
  const context: BillingContext = { deps, ledger };

  const implementation: ServiceRegistration<typeof BillingServiceDefinition>['implementation'] = {
    async getWallet(request) {
      return { wallet: toWallet(await ledger.wallet(ownerOf(request.owner))) };
    },

    async listLedgerEntries(request) {
      const owner = ownerOf(request.owner);
      const limit = clampPageSize(request.pageSize);
      const cursor = request.pageToken ? await ledger.entryById(request.pageToken) : undefined;
      if (request.pageToken && !cursor) throw domainError('invalid_request', 'unknown page_token');
      const rows = await ledger.entries(owner, limit + 1, cursor && { createdAt: cursor.created_at, id: cursor.id });
      const page = pageOf(rows, limit, (e) => e.id);
      return { entries: page.items.map(toEntry), nextPageToken: page.nextPageToken };
    },

    async creditWallet(request, ctx) {
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
      });
      if (!created && (entry.owner_type !== owner.type || entry.owner_id !== owner.id || entry.amount !== request.amount)) {
        throw domainError('conflict', `reference ${request.reference} was already used for another credit`);
      }
      return { entry: toEntry(entry), wallet: toWallet(await ledger.wallet(owner)), created };
    },

    async setWalletBalance(request) {
      if (!Number.isSafeInteger(request.balance)) throw domainError('invalid_request', 'balance must be a whole number');
      return { wallet: toWallet(await ledger.adjustTo(ownerOf(request.owner), request.balance, 'operator adjustment')) };
    },

    async grantSeedBalance(request) {
      if (!Number.isSafeInteger(request.balance)) throw domainError('invalid_request', 'balance must be a whole number');
      const { wallet, posted } = await ledger.grantSeed(ownerOf(request.owner), request.balance);
      return { wallet: toWallet(wallet), posted };
    },

    ...createPayerHandlers(context),
    ...createMeteringHandlers(context),

    async getCallerUsage(_request, ctx) {
      if (ctx.principal.kind !== 'caller') throw domainError('forbidden', 'needs a caller');
      const caller = ctx.principal.caller;
      const { balance, spent } = await ledger.balanceAndSpend(ownerOf(caller.owner), caller.credentialId);
      return { creditBalance: balance, creditsSpentThisMonth: spent };
    },
  };

  const registration: ServiceRegistration<typeof BillingServiceDefinition> = {
    definition: BillingServiceDefinition,
    implementation,
    access: {
      getWallet: ['operator', 'service'],
      listLedgerEntries: ['operator'],
      creditWallet: ['operator'],
      setWalletBalance: ['operator'],
      grantSeedBalance: ['operator'],
      charge: ['service'],
      resolvePayer: ['service', 'caller', 'operator'],
      checkFunds: ['service', 'caller'],
      meterSelfEnrich: ['service'],
      listRates: ['service', 'caller', 'operator'],
      setGlobalSearchPreference: ['operator'],
      setOrganizationFunding: ['operator'],
      reconcile: ['operator'],
      getCallerUsage: ['caller'],
    },
  };
  return { registration, stop: async () => undefined };
}
