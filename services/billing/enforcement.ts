// Credit enforcement: may the payer cover an operation before billable work starts? One
// assessment, used by CheckFunds (and by self-enrich metering for a paid owner). With
// CREDIT_ENFORCEMENT=on a failed assessment is a 402-class error naming the payer; with it off the
// answer is informational only (metering is post-hoc and a balance may go below zero).
//
// The conditions, in the order they are checked (docs/BILLING.md, "Metering"), for an operation
// costing `cost` = rate × units. The first two concern only a search or self-enrich naming a
// community owned by an organization (a community enrichment is always the owner's expense):
//   community_over_quota  the organization has a delegation budget for the community and either
//                         pays under it but the month's remainder is below the cost, or its
//                         remainder is used up so the charge fell to the caller (who is not one of
//                         the organization's managers);
//   coverage_required     the organization neither funds the community nor has a delegation budget
//                         for it, so the charge fell to the caller's own wallet, and the caller is
//                         neither the organization itself nor one of its managers (owner or admin);
//   insufficient_credits  the resolved payer's balance is below the cost.
// The first two name the organization as the payer (its coverage is what is missing); the third
// names the resolved payer.
import { Role, type Caller } from '../../proto/gen/expertnet/common/v1/common.js';
import { asService } from '../kit/grpc/acting.js';
import { domainError, relayRemoteError } from '../kit/grpc/errors.js';
import type { BillingContext } from './billing-context.js';
import { delegatedInMonth } from './funding-consumption.js';
import type { Owner } from './ledger.repository.js';
import { createPayerDirectory } from './payer-directory.js';
import { createPayerSettings, type FundingRow } from './payer-settings.repository.js';
import { COMMUNITY_ENRICHMENT_OPERATIONS, type ResolvedPayer } from './resolve-payer.js';

export type RefusalCode = 'insufficient_credits' | 'coverage_required' | 'community_over_quota';

/** The payer a 402 names (metadata `payer`, JSON; the edge puts it in the envelope as an object). */
export interface NamedPayer {
  type: Owner['type'];
  id: string;
  name: string;
}

export type Assessment =
  | { covered: true }
  | { covered: false; code: RefusalCode; message: string; payer: NamedPayer };

export const isCommunityEnrichment = (operation: string) => (COMMUNITY_ENRICHMENT_OPERATIONS as readonly string[]).includes(operation);

/** The organization's coverage of one of its communities, as the operator set it (none: no row). */
export function fundingKind(row: FundingRow | undefined): 'standing_funding' | 'delegation_budget' | 'none' {
  if (row?.standing_funding) return 'standing_funding';
  if (row && row.delegation_budget_per_month > 0) return 'delegation_budget';
  return 'none';
}

/** Whether the user owns or administers the organization (identity's organization roles). */
async function managesOrganization(context: BillingContext, userId: string, organizationId: string, requestId?: string): Promise<boolean> {
  if (!userId) return false;
  const { deps } = context;
  try {
    const options = asService('billing', requestId, deps.deadlineMs);
    const { organizations } = await deps.clients.identity.listUserOrganizations({ userId }, options);
    return organizations.some((o) => o.organizationId === organizationId && (o.role === Role.ROLE_OWNER || o.role === Role.ROLE_ADMIN));
  } catch (error) {
    return relayRemoteError(error);
  }
}

/**
 * Decides whether `resolved` (the payer resolution of the same operation, community and caller)
 * can cover `cost` credits. Reads live balances and budgets; it reserves nothing, so two checks
 * racing may both pass and the later charges may overdraw a little (charges are never refused).
 */
export async function assessFunds(
  context: BillingContext,
  q: { operation: string; communityId: string; caller: Caller; cost: number; resolved: ResolvedPayer },
  requestId?: string,
): Promise<Assessment> {
  const { resolved, cost } = q;
  const payer: NamedPayer = { type: resolved.payer.type, id: resolved.payer.id, name: resolved.payerName };
  const communityId = q.communityId.trim();

  if (communityId && !isCommunityEnrichment(q.operation)) {
    const db = context.deps.db;
    if (resolved.source === 'delegation_budget') {
      // The organization pays under its budget: the month's remainder must cover the whole cost.
      const organization = resolved.payer.id;
      const funding = await createPayerSettings(db).fundingFor(organization, communityId);
      const left = Math.max(0, (funding?.delegation_budget_per_month ?? 0) - (await delegatedInMonth(db, organization, communityId)));
      if (left < cost) return overQuota(payer, communityId, left, cost);
    } else if (resolved.source === 'caller') {
      const directory = createPayerDirectory(context, requestId);
      const owner = (await directory.community(communityId))?.billingOwner;
      // Charged to the caller although an organization owns the community: its coverage is missing.
      // The organization itself (a legacy key in its own community) and its managers may pay their own way.
      const fellBack = owner?.type === 'organization' && !(resolved.payer.type === owner.type && resolved.payer.id === owner.id);
      if (fellBack && !(await managesOrganization(context, q.caller.userId, owner.id, requestId))) {
        const organization: NamedPayer = { type: 'organization', id: owner.id, name: (await directory.nameOf(owner)) ?? owner.id };
        const funding = await createPayerSettings(db).fundingFor(owner.id, communityId);
        if (fundingKind(funding) === 'delegation_budget') {
          const left = Math.max(0, funding!.delegation_budget_per_month - (await delegatedInMonth(db, owner.id, communityId)));
          return overQuota(organization, communityId, left, cost);
        }
        return {
          covered: false,
          code: 'coverage_required',
          message: `community ${communityId} belongs to organization ${owner.id}, which does not cover charges named to it (no standing funding or delegation budget)`,
          payer: organization,
        };
      }
    }
  }

  const balance = (await context.ledger.wallet(resolved.payer)).balance;
  if (balance < cost) {
    return {
      covered: false,
      code: 'insufficient_credits',
      message: `${payer.type} ${payer.id} has ${balance} credit(s); the operation costs ${cost}`,
      payer,
    };
  }
  return { covered: true };
}

function overQuota(organization: NamedPayer, communityId: string, left: number, cost: number): Assessment {
  return {
    covered: false,
    code: 'community_over_quota',
    message: `the delegation budget of organization ${organization.id} for community ${communityId} has ${left} credit(s) left this month; the operation costs ${cost}`,
    payer: organization,
  };
}

/** The 402-class error of a failed assessment, the payer in metadata `payer` as JSON {type, id, name}. */
export function refusal(assessment: Extract<Assessment, { covered: false }>) {
  return domainError(assessment.code, assessment.message, { payer: JSON.stringify(assessment.payer) });
}
