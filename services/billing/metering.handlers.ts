// Metering: rates, charges exactly once, enforcement before billable work, self-enrich, reconciliation.
// docs/BILLING.md ("Metering") states the rules.
import { metrics } from '../kit/metrics.js';
import type { BillingServiceDefinition } from '../../proto/gen/expertnet/billing/v1/billing_service.js';
import { ownerTypes } from '../kit/enums.js';
import { domainError } from '../kit/grpc/errors.js';
import type { ServiceRegistration } from '../kit/grpc/server.js';
import type { BillingContext } from './billing-context.js';
import { assessFunds, fundingKind, isCommunityEnrichment, refusal } from './enforcement.js';
import { recordDelegatedCharge } from './funding-consumption.js';
import { ownerOf, toEntry } from './ledger-messages.js';
import type { LedgerRow, Owner } from './ledger.repository.js';
import { createPayerDirectory } from './payer-directory.js';
import { callerFor } from './payer.handlers.js';
import { createPayerSettings } from './payer-settings.repository.js';
import { isOperation, loadRates, OPERATIONS, type Operation, type Rates } from './rates.js';
import { resolvePayer, toResolvePayerResponse } from './resolve-payer.js';
import { meterSelfEnrich } from './self-enrich.js';

type Handlers = ServiceRegistration<typeof BillingServiceDefinition>['implementation'];

function operationOf(value: string): Operation {
  if (!isOperation(value)) throw domainError('invalid_request', `unknown operation "${value}"; one of ${OPERATIONS.join(', ')}`);
  return value;
}

/** Units of a charge: a whole number, at least 1. */
function unitsOf(value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw domainError('invalid_request', 'units must be a whole number, at least 1');
  return value;
}

/** A charge's reference is `<operation>:<business id>` (search:<id>, enrichment_standard:<run>:<profile>, …). */
function referenceOf(value: string, operation: Operation): string {
  const prefix = `${operation}:`;
  if (!value.startsWith(prefix) || value.length === prefix.length || value.trim() !== value) {
    throw domainError('invalid_request', `reference must be "${prefix}<id>" (the business reference that makes the charge happen once)`);
  }
  return value;
}

export function createMeteringHandlers(
  context: BillingContext,
  // Read at start-up: a bad CREDIT_RATES stops the service before it serves a mispriced charge.
  rates: Rates = loadRates(),
): Pick<Handlers, 'charge' | 'checkFunds' | 'meterSelfEnrich' | 'listRates' | 'reconcile'> {
  const { deps, ledger } = context;
  const settings = createPayerSettings(deps.db);

  /**
   * A charge to an organization, naming a community it owns, for a caller-side operation, while
   * its setting for that community is a delegation budget: payer resolution chose the budget, so
   * the charge counts against it. Counted by the ledger reference (a retry counts once), in the
   * UTC month of the ledger entry.
   */
  async function countAgainstDelegationBudget(entry: LedgerRow, communityId: string, requestId: string): Promise<void> {
    if (!communityId || entry.owner_type !== 'organization' || isCommunityEnrichment(entry.operation)) return;
    if (fundingKind(await settings.fundingFor(entry.owner_id, communityId)) !== 'delegation_budget') return;
    const owner = (await createPayerDirectory(context, requestId).community(communityId))?.billingOwner;
    if (owner?.type !== 'organization' || owner.id !== entry.owner_id) return;
    await recordDelegatedCharge(deps.db, {
      organizationId: entry.owner_id,
      communityId,
      credits: -entry.amount,
      reference: entry.reference,
      at: entry.created_at,
    });
  }

  return {
    async charge(request, ctx) {
      const payer = ownerOf(request.payer, 'payer');
      const operation = operationOf(request.operation);
      const units = unitsOf(request.units);
      const reference = referenceOf(request.reference, operation);
      const communityId = request.communityId.trim();
      const rate = rates[operation];
      // Post-hoc metering: the work is done, so a charge is never refused for funds (the balance may
      // go below zero); CheckFunds is the gate before the work.
      const { entry, created } = await ledger.post({
        owner: payer,
        amount: -rate * units,
        reference,
        operation,
        rate,
        units,
        credentialId: request.credentialId || undefined,
        note: communityId ? `community ${communityId}` : undefined,
      });
      // The same reference for another payer, operation or quantity is another charge: refused. A
      // retry after a rate change returns the original entry at its original rate.
      if (!created && (entry.owner_type !== payer.type || entry.owner_id !== payer.id || entry.operation !== operation || entry.units !== units)) {
        throw domainError('conflict', `reference ${reference} was already charged for another payer, operation or number of units`);
      }
      // Also on a repeat: a crash between the debit and the count is repaired by the retry.
      await countAgainstDelegationBudget(entry, communityId, ctx.requestId);
      if (created) metrics.creditsCharged.inc({ operation }, -entry.amount);
      return { entry: toEntry(entry), created };
    },

    async checkFunds(request, ctx) {
      const caller = callerFor(ctx, request.caller);
      const operation = operationOf(request.operation);
      // proto3 cannot tell an unset units from 0: both mean one unit.
      const units = request.units === 0 ? 1 : unitsOf(request.units);
      const cost = rates[operation] * units;
      const communityId = request.communityId.trim();
      const resolved = await resolvePayer(context, { operation, communityId, caller }, ctx.requestId);
      const assessment = await assessFunds(context, { operation, communityId, caller, cost, resolved }, ctx.requestId);
      if (!assessment.covered && deps.enforcement) throw refusal(assessment);
      return { payer: toResolvePayerResponse(resolved), covered: assessment.covered };
    },

    async meterSelfEnrich(request, ctx) {
      const { entry, availableAt } = await meterSelfEnrich(context, rates, request, ctx.requestId);
      return { entry: entry && toEntry(entry), availableAt: availableAt?.toISOString() };
    },

    async listRates() {
      return { rates: OPERATIONS.map((operation) => ({ operation, creditsPerUnit: rates[operation] })) };
    },

    async reconcile() {
      const [mismatches, counted] = await Promise.all([
        ledger.unreconciled(),
        deps.db.query<{ n: number }>('SELECT count(*)::int8 AS n FROM billing.wallets'),
      ]);
      return {
        walletsChecked: Number(counted[0]?.n ?? 0),
        mismatches: mismatches.map((m) => ({
          owner: { type: ownerTypes.toEnum(m.owner_type as Owner['type']), id: m.owner_id },
          balance: Number(m.balance),
          ledgerSum: Number(m.ledger_sum),
        })),
      };
    },
  };
}
