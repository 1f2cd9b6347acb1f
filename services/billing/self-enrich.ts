// Self-enrich metering (operation `enrichment_self`), asked by the enrichment service when a
// self-enrich run starts:
// - an owner on a paid plan is charged the enrichment_self rate (1 credit by default) under the
//   reference `enrichment_self:<run_id>`, once per run whatever the retries;
// - an owner not on a paid plan (free, or a trial) is not charged, but may self-enrich once per
//   30 days: a run inside the cooldown of an earlier one is refused with `rate_limited` and
//   `available_at`.
// A run metered once keeps its answer: metering it again (a retry) returns the same entry, or the
// same free claim, even if the plan changed in between.
import { Plan, type Caller } from '../../proto/gen/expertnet/common/v1/common.js';
import { asService } from '../kit/grpc/acting.js';
import { domainError, relayRemoteError } from '../kit/grpc/errors.js';
import type { BillingContext } from './billing-context.js';
import { assessFunds, refusal } from './enforcement.js';
import type { LedgerRow, Owner } from './ledger.repository.js';
import type { Rates } from './rates.js';
import { resolvePayer } from './resolve-payer.js';
import { claimFreeSelfEnrich, SELF_ENRICH_COOLDOWN_DAYS } from './self-enrich.repository.js';

export const SELF_ENRICH_OPERATION = 'enrichment_self';

export interface SelfEnrichMetering {
  /** The charge (paid plan); undefined for an owner not on a paid plan. */
  entry?: LedgerRow;
  /** When the next free self-enrich is allowed (not paid); undefined for a paid owner. */
  availableAt?: Date;
}

async function entryByReference(context: BillingContext, reference: string): Promise<LedgerRow | undefined> {
  return (await context.deps.db.query<LedgerRow>('SELECT * FROM billing.ledger_entries WHERE reference = $1', [reference]))[0];
}

async function ownerIsOnPaidPlan(context: BillingContext, userId: string, requestId?: string): Promise<boolean> {
  const { deps } = context;
  try {
    const options = asService('billing', requestId, deps.deadlineMs);
    const { user } = await deps.clients.identity.getUser({ userId }, options);
    // A trial is not a paid plan.
    return user?.plan === Plan.PLAN_PAID;
  } catch (error) {
    return relayRemoteError(error);
  }
}

const sameOwner = (row: LedgerRow, owner: Owner) => row.owner_type === owner.type && row.owner_id === owner.id;

export async function meterSelfEnrich(
  context: BillingContext,
  rates: Rates,
  request: { runId: string; caller: Caller | undefined },
  requestId?: string,
): Promise<SelfEnrichMetering> {
  const caller = request.caller;
  if (!caller?.owner?.id) throw domainError('invalid_request', 'caller is required');
  // A legacy organization-owned key has no user behind it: there is no own profile to enrich.
  if (!caller.userId) throw domainError('forbidden', 'self-enrich needs a user behind the credential; an organization-owned key has none');
  const runId = request.runId.trim();
  if (!runId) throw domainError('invalid_request', 'run_id is required');
  const reference = `${SELF_ENRICH_OPERATION}:${runId}`;

  const charged = await entryByReference(context, reference);
  if (charged) {
    // A self-enrich is paid by the caller's own billing owner: anything else is another run.
    if (charged.operation !== SELF_ENRICH_OPERATION || charged.owner_id !== caller.owner.id) {
      throw domainError('conflict', `run ${runId} was already metered for another caller`);
    }
    return { entry: charged };
  }

  const userId = caller.userId;
  if (await ownerIsOnPaidPlan(context, userId, requestId)) {
    const resolved = await resolvePayer(context, { operation: SELF_ENRICH_OPERATION, caller }, requestId);
    const rate = rates.enrichment_self;
    if (context.deps.enforcement) {
      const assessment = await assessFunds(context, { operation: SELF_ENRICH_OPERATION, communityId: '', caller, cost: rate, resolved }, requestId);
      if (!assessment.covered) throw refusal(assessment);
    }
    const { entry } = await context.ledger.post({
      owner: resolved.payer,
      amount: -rate,
      reference,
      operation: SELF_ENRICH_OPERATION,
      rate,
      units: 1,
      credentialId: caller.credentialId || undefined,
      requestId,
    });
    // Lost a race with the same run metered at once for another payer: the first one stands.
    if (!sameOwner(entry, resolved.payer)) throw domainError('conflict', `run ${runId} was already metered for another payer`);
    return { entry };
  }

  const claim = await claimFreeSelfEnrich(context.deps.db, { userId, runId, credentialId: caller.credentialId || undefined });
  if (!claim.allowed) {
    throw domainError(
      'rate_limited',
      `without a paid plan, self-enrich is available once per ${SELF_ENRICH_COOLDOWN_DAYS} days; next at ${claim.availableAt.toISOString()}`,
      { available_at: claim.availableAt.toISOString() },
    );
  }
  return { availableAt: claim.availableAt };
}
