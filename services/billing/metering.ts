// Metering: charges exactly once, the funds check before billable work, and reconciliation of
// wallets against their entries. docs/BILLING.md ("Metering") states the rules; the rates are
// rates.ts's and self-enrich metering is self-enrich.ts's.
import type { ChargeManyRequest, ChargeRequest, CheckFundsRequest } from '../../proto/gen/expertnet/billing/v1/billing_service.js';
import { domainError } from '../kit/grpc/errors.js';
import type { ServiceContext } from '../kit/grpc/server.js';
import { metrics } from '../kit/metrics.js';
import type { BillingContext } from './billing-context.js';
import { ownerOf } from './billing-messages.js';
import { assessFunds, fundingKind, isCommunityEnrichment, refusal } from './enforcement.js';
import { recordDelegatedCharge } from './funding-consumption.js';
import type { LedgerRow, UnreconciledRow } from './ledger.repository.js';
import { createPayerDirectory } from './payer-directory.js';
import { createPayerSettings } from './payer-settings.repository.js';
import { isOperation, OPERATIONS, type Operation, type Rates } from './rates.js';
import { callerFor, resolvePayer, type ResolvedPayer } from './resolve-payer.js';

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

/**
 * Charges a payer once per business reference, at the operation's rate. Returns the entry and
 * whether it was made now (false: a retry of an earlier charge, at its original rate).
 */
export async function charge(context: BillingContext, rates: Rates, request: ChargeRequest, requestId: string): Promise<{ entry: LedgerRow; created: boolean }> {
  const { ledger } = context;
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
    requestId,
  });
  // The same reference for another payer, operation or quantity is another charge: refused. A
  // retry after a rate change returns the original entry at its original rate.
  if (!created && postedForAnother(entry, payer, operation, units)) throw alreadyCharged(reference);
  await afterPosting(context, { entry, created }, communityId, requestId);
  return { entry, created };
}

/** An entry posted before under a reference, for another payer, operation or number of units. */
function postedForAnother(entry: LedgerRow, payer: { type: string; id: string }, operation: Operation, units: number): boolean {
  return entry.owner_type !== payer.type || entry.owner_id !== payer.id || entry.operation !== operation || entry.units !== units;
}

const alreadyCharged = (reference: string) =>
  domainError('conflict', `reference ${reference} was already charged for another payer, operation or number of units`);

/** What follows a posting of a charge: its count against a delegation budget, and the metric. */
async function afterPosting(context: BillingContext, posted: { entry: LedgerRow; created: boolean }, communityId: string, requestId: string): Promise<void> {
  // Also on a repeat: a crash between the debit and the count is repaired by the retry.
  await countAgainstDelegationBudget(context, posted.entry, communityId, requestId);
  if (posted.created) metrics.creditsCharged.inc({ operation: posted.entry.operation }, -posted.entry.amount);
}

/**
 * Charges a payer one unit of an operation per reference, in one posting (ledger.postMany), each
 * reference once, like `charge`: what was posted before comes back at its original rate, and a
 * reference already posted for another payer, operation or quantity is refused (the others stand).
 */
export async function chargeMany(context: BillingContext, rates: Rates, request: ChargeManyRequest, requestId: string): Promise<Array<{ entry: LedgerRow; created: boolean }>> {
  const payer = ownerOf(request.payer, 'payer');
  const operation = operationOf(request.operation);
  if (request.references.length === 0) throw domainError('invalid_request', 'references must name at least one charge');
  const references = request.references.map((r) => referenceOf(r, operation));
  const communityId = request.communityId.trim();
  const rate = rates[operation];
  const posted = await context.ledger.postMany(payer, references.map((reference) => ({
    amount: -rate, reference, operation, rate, units: 1,
    credentialId: request.credentialId || undefined, note: communityId ? `community ${communityId}` : undefined, requestId,
  })));
  const foreign = (p: { entry: LedgerRow; created: boolean }) => !p.created && postedForAnother(p.entry, payer, operation, 1);
  for (const p of posted) if (!foreign(p)) await afterPosting(context, p, communityId, requestId);
  const refused = posted.find(foreign);
  if (refused) throw alreadyCharged(refused.entry.reference);
  return posted;
}

/**
 * Whether the payer of an operation can cover it; with enforcement on (CREDIT_ENFORCEMENT) an
 * uncovered operation is refused here, before the work.
 */
export async function checkFunds(context: BillingContext, rates: Rates, request: CheckFundsRequest, ctx: ServiceContext): Promise<{ resolved: ResolvedPayer; covered: boolean }> {
  const caller = callerFor(ctx, request.caller);
  const operation = operationOf(request.operation);
  // proto3 cannot tell an unset units from 0: both mean one unit.
  const units = request.units === 0 ? 1 : unitsOf(request.units);
  const cost = rates[operation] * units;
  const communityId = request.communityId.trim();
  const resolved = await resolvePayer(context, { operation, communityId, caller }, ctx.requestId);
  const assessment = await assessFunds(context, { operation, communityId, caller, cost, resolved }, ctx.requestId);
  if (!assessment.covered && context.deps.enforcement) throw refusal(assessment);
  return { resolved, covered: assessment.covered };
}

/** Every wallet is checked against the sum of its entries; those that differ are returned. */
export async function reconcile(context: BillingContext): Promise<{ walletsChecked: number; mismatches: UnreconciledRow[] }> {
  const [mismatches, walletsChecked] = await Promise.all([context.ledger.unreconciled(), context.ledger.walletCount()]);
  return { walletsChecked, mismatches };
}

/**
 * A charge to an organization, naming a community it owns, for a caller-side operation, while
 * its setting for that community is a delegation budget: payer resolution chose the budget, so
 * the charge counts against it. Counted by the ledger reference (a retry counts once), in the
 * UTC month of the ledger entry.
 */
async function countAgainstDelegationBudget(context: BillingContext, entry: LedgerRow, communityId: string, requestId: string): Promise<void> {
  const settings = createPayerSettings(context.deps.db);
  if (!communityId || entry.owner_type !== 'organization' || isCommunityEnrichment(entry.operation)) return;
  if (fundingKind(await settings.fundingFor(entry.owner_id, communityId)) !== 'delegation_budget') return;
  const owner = (await createPayerDirectory(context, requestId).community(communityId))?.billingOwner;
  if (owner?.type !== 'organization' || owner.id !== entry.owner_id) return;
  await recordDelegatedCharge(context.deps.db, {
    organizationId: entry.owner_id,
    communityId,
    credits: -entry.amount,
    reference: entry.reference,
    at: entry.created_at,
  });
}
