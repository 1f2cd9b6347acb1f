// The billing service: wallets and the exact ledger (credit, adjust, read, balance and spend for
// /v1/me), and on top of it charging by reference, payer resolution, the funds check
// (enforcement) and self-enrich metering (docs/BILLING.md). Each handler delegates to the domain
// module named for what it does and maps the result with billing-messages.ts.
import { BillingServiceDefinition } from '../../proto/gen/expertnet/billing/v1/billing_service.js';
import type { ServiceRegistration } from '../kit/grpc/server.js';
import { type BillingDeps, createBillingContext } from './billing-context.js';
import { toEntry, toMismatch, toResolvePayerResponse, toSpendableWallets, toWallet } from './billing-messages.js';
import * as metering from './metering.js';
import * as payerSettings from './payer-settings.js';
import { loadRates, OPERATIONS } from './rates.js';
import { callerFor, resolvePayer } from './resolve-payer.js';
import { meterSelfEnrich } from './self-enrich.js';
import { listSpendableWallets } from './spendable-wallets.js';
import * as wallets from './wallets.js';

export function createBillingService(deps: BillingDeps) {
  const context = createBillingContext(deps);
  // Read at start-up: a bad CREDIT_RATES stops the service before it serves a mispriced charge.
  const rates = loadRates();

  const implementation: ServiceRegistration<typeof BillingServiceDefinition>['implementation'] = {
    async getWallet(request) {
      return { wallet: toWallet(await wallets.getWallet(context, request.owner)) };
    },

    async listLedgerEntries(request, ctx) {
      const page = await wallets.listLedgerEntries(context, request, ctx);
      return { entries: page.items.map(toEntry), nextPageToken: page.nextPageToken };
    },

    async listSpendableWallets(request, ctx) {
      return toSpendableWallets(await listSpendableWallets(context, ctx, request.userId));
    },

    async creditWallet(request, ctx) {
      const { entry, wallet, created } = await wallets.creditWallet(context, request, ctx);
      return { entry: toEntry(entry), wallet: toWallet(wallet), created };
    },

    async setWalletBalance(request) {
      return { wallet: toWallet(await wallets.setWalletBalance(context, request)) };
    },

    async grantSeedBalance(request) {
      const { wallet, posted } = await wallets.grantSeedBalance(context, request);
      return { wallet: toWallet(wallet), posted };
    },

    async getCallerUsage(_request, ctx) {
      const { balance, spent } = await wallets.callerUsage(context, ctx);
      return { creditBalance: balance, creditsSpentThisMonth: spent };
    },

    async resolvePayer(request, ctx) {
      const caller = callerFor(ctx, request.caller);
      const resolved = await resolvePayer(context, { operation: request.operation, communityId: request.communityId, caller }, ctx.requestId);
      return toResolvePayerResponse(resolved);
    },

    async setGlobalSearchPreference(request, ctx) {
      await payerSettings.setGlobalSearchPreference(context, request, ctx);
      return {};
    },

    async setOrganizationFunding(request, ctx) {
      await payerSettings.setOrganizationFunding(context, request, ctx);
      return {};
    },

    async charge(request, ctx) {
      const { entry, created } = await metering.charge(context, rates, request, ctx.requestId);
      return { entry: toEntry(entry), created };
    },

    async chargeMany(request, ctx) {
      const charges = await metering.chargeMany(context, rates, request, ctx.requestId);
      return { charges: charges.map(({ entry, created }) => ({ entry: toEntry(entry), created })) };
    },

    async checkFunds(request, ctx) {
      const { resolved, covered } = await metering.checkFunds(context, rates, request, ctx);
      return { payer: toResolvePayerResponse(resolved), covered };
    },

    async meterSelfEnrich(request, ctx) {
      const { entry, availableAt } = await meterSelfEnrich(context, rates, request, ctx.requestId);
      return { entry: entry && toEntry(entry), availableAt: availableAt?.toISOString() };
    },

    async listRates() {
      return { rates: OPERATIONS.map((operation) => ({ operation, creditsPerUnit: rates[operation] })) };
    },

    async reconcile() {
      const { walletsChecked, mismatches } = await metering.reconcile(context);
      return { walletsChecked, mismatches: mismatches.map(toMismatch) };
    },
  };

  const registration: ServiceRegistration<typeof BillingServiceDefinition> = {
    definition: BillingServiceDefinition,
    implementation,
    access: {
      getWallet: ['operator', 'service'],
      listLedgerEntries: ['operator', 'user'],
      listSpendableWallets: ['operator', 'user'],
      creditWallet: ['operator'],
      setWalletBalance: ['operator'],
      grantSeedBalance: ['operator'],
      charge: ['service'],
      chargeMany: ['service'],
      resolvePayer: ['service', 'caller', 'operator'],
      checkFunds: ['service', 'caller'],
      meterSelfEnrich: ['service'],
      listRates: ['service', 'caller', 'operator'],
      setGlobalSearchPreference: ['operator', 'user'],
      setOrganizationFunding: ['operator'],
      reconcile: ['operator'],
      getCallerUsage: ['caller', 'direct'],
    },
  };
  return { registration, stop: async () => undefined };
}
