// Who pays for an operation: the one function behind ResolvePayer, and the one metering uses for
// CheckFunds and Charge, so every surface names the same payer. docs/BILLING.md ("Payer
// resolution") states the rules; each has its own test in test/billing-payer.test.ts.
//
// The answer depends on the operation, the community it names and the person behind the
// credential, never on the credential itself: two keys of one user get the same payer.
import { PayerSource } from '../../proto/gen/expertnet/billing/v1/billing_service.js';
import type { Caller } from '../../proto/gen/expertnet/common/v1/common.js';
import { ownerTypes } from '../kit/enums.js';
import { domainError } from '../kit/grpc/errors.js';
import type { ServiceContext } from '../kit/grpc/server.js';
import type { BillingContext } from './billing-context.js';
import { delegatedInMonth } from './funding-consumption.js';
import type { Owner } from './ledger.repository.js';
import { createPayerDirectory, type PayerDirectory } from './payer-directory.js';
import { createPayerSettings } from './payer-settings.repository.js';

/** Community enrichment runs: always charged to the target community's billing owner. */
export const COMMUNITY_ENRICHMENT_OPERATIONS = ['enrichment_quick', 'enrichment_standard', 'enrichment_deep'] as const;
/** Operations charged on the caller's side unless the community they name covers them. */
export const CALLER_OPERATIONS = ['search', 'enrichment_self'] as const;
export const PAYER_OPERATIONS = [...CALLER_OPERATIONS, ...COMMUNITY_ENRICHMENT_OPERATIONS] as const;
export type PayerOperation = (typeof PAYER_OPERATIONS)[number];

export function isPayerOperation(value: string): value is PayerOperation {
  return (PAYER_OPERATIONS as readonly string[]).includes(value);
}

/** Why this payer, in the lower-case names used in logs and docs (PayerSource on the wire). */
export type PayerSourceName =
  | 'community_owner'
  | 'standing_funding'
  | 'delegation_budget'
  | 'global_preference'
  | 'caller'
  | 'earliest_organization';

export const PAYER_SOURCES: Readonly<Record<PayerSourceName, PayerSource>> = {
  community_owner: PayerSource.PAYER_SOURCE_COMMUNITY_OWNER,
  standing_funding: PayerSource.PAYER_SOURCE_STANDING_FUNDING,
  delegation_budget: PayerSource.PAYER_SOURCE_DELEGATION_BUDGET,
  global_preference: PayerSource.PAYER_SOURCE_GLOBAL_PREFERENCE,
  caller: PayerSource.PAYER_SOURCE_CALLER,
  earliest_organization: PayerSource.PAYER_SOURCE_EARLIEST_ORGANIZATION,
};

export interface PayerQuery {
  /** One of PAYER_OPERATIONS; anything else is invalid_request. */
  operation: string;
  /** The community the operation names; empty or absent for none (a global search, a self-enrich). */
  communityId?: string;
  /** The caller as the edge resolved it (its owner, and its user unless a legacy organization key). */
  caller: Caller;
}

export interface ResolvedPayer {
  payer: Owner;
  /** The user's or organization's name from identity (the id when identity does not know it). */
  payerName: string;
  source: PayerSourceName;
}

interface Choice {
  payer: Owner;
  source: PayerSourceName;
}

const sameOwner = (a: Owner, b: Owner) => a.type === b.type && a.id === b.id;

/**
 * Resolves the payer of `operation` for `caller`. Throws invalid_request for an unknown operation,
 * a community enrichment without a community, or a caller without an owner; not_found for a
 * community that does not exist.
 */
export async function resolvePayer(context: BillingContext, query: PayerQuery, requestId?: string): Promise<ResolvedPayer> {
  const operation = query.operation.trim();
  if (!isPayerOperation(operation)) {
    throw domainError('invalid_request', `unknown operation "${query.operation}"; one of ${PAYER_OPERATIONS.join(', ')}`);
  }
  const owner = query.caller.owner;
  if (!owner?.id) throw domainError('invalid_request', 'caller.owner is required');
  const callerOwner: Owner = { type: ownerTypes.toName(owner.type, 'caller.owner.type'), id: owner.id };
  const directory = createPayerDirectory(context, requestId);
  const communityId = query.communityId?.trim() ?? '';

  const choice = await choose(context, directory, {
    operation,
    communityId,
    callerOwner,
    userId: query.caller.userId,
  });
  const payerName = (await directory.nameOf(choice.payer)) ?? choice.payer.id;
  return { ...choice, payerName };
}

async function choose(
  context: BillingContext,
  directory: PayerDirectory,
  q: { operation: PayerOperation; communityId: string; callerOwner: Owner; userId: string },
): Promise<Choice> {
  const caller: Choice = { payer: q.callerOwner, source: 'caller' };
  const isCommunityEnrichment = (COMMUNITY_ENRICHMENT_OPERATIONS as readonly string[]).includes(q.operation);

  if (isCommunityEnrichment && !q.communityId) {
    throw domainError('invalid_request', `${q.operation} is a community enrichment: community_id is required`);
  }

  if (q.communityId) {
    const community = await directory.community(q.communityId);
    if (!community) throw domainError('not_found', `community ${q.communityId} not found`);
    const communityOwner = community.billingOwner;
    // A community enrichment run is the community's own expense.
    if (isCommunityEnrichment) return { payer: communityOwner, source: 'community_owner' };
    // The caller's own community (the user's, or a legacy key's organization's): the caller pays.
    const callersOwn = sameOwner(communityOwner, q.callerOwner) || sameOwner(communityOwner, { type: 'user', id: q.userId });
    if (callersOwn) return { payer: communityOwner, source: 'caller' };
    // An owning organization may cover what others do in its community.
    if (communityOwner.type === 'organization') {
      const covered = await coverage(context, communityOwner.id, community.id);
      if (covered) return { payer: communityOwner, source: covered };
    }
    return caller;
  }

  // Self-enrich naming no community: the caller's own billing owner.
  if (q.operation !== 'search') return caller;
  return globalSearchPayer(context, directory, q.userId, caller);
}

/** How the organization covers charges named to its community this month, if it does. */
async function coverage(context: BillingContext, organizationId: string, communityId: string): Promise<PayerSourceName | undefined> {
  const db = context.deps.db;
  const funding = await createPayerSettings(db).fundingFor(organizationId, communityId);
  if (!funding) return undefined;
  if (funding.standing_funding) return 'standing_funding';
  const budget = funding.delegation_budget_per_month;
  if (budget > 0 && budget - (await delegatedInMonth(db, organizationId, communityId)) > 0) return 'delegation_budget';
  return undefined;
}

/**
 * A search naming no community: the saved preference, else the personal wallet when it holds
 * credits, else the earliest-joined organization whose wallet holds credits, else the personal
 * wallet anyway (metering is post-hoc, so it may go below zero while enforcement is off).
 */
async function globalSearchPayer(context: BillingContext, directory: PayerDirectory, userId: string, caller: Choice): Promise<Choice> {
  // A legacy organization key has no user, so no preference or personal wallet: its organization pays.
  if (!userId) return caller;
  const personal: Choice = { payer: { type: 'user', id: userId }, source: 'caller' };
  const { ledger } = context;
  let organizations: Awaited<ReturnType<PayerDirectory['organizationsOf']>> | undefined;
  const organizationsOfUser = async () => (organizations ??= await directory.organizationsOf(userId));

  const preference = await createPayerSettings(context.deps.db).globalPreference(userId);
  if (preference) {
    // Checked again here: a preference for an organization the user has since left is ignored.
    const valid =
      preference.type === 'user'
        ? preference.id === userId
        : (await organizationsOfUser()).some((o) => o.organizationId === preference.id);
    if (valid) return { payer: preference, source: 'global_preference' };
  }

  if ((await ledger.wallet(personal.payer)).balance > 0) return personal;
  for (const membership of await organizationsOfUser()) {
    const organization: Owner = { type: 'organization', id: membership.organizationId };
    if ((await ledger.wallet(organization)).balance > 0) return { payer: organization, source: 'earliest_organization' };
  }
  return personal;
}

/**
 * The caller a payer is resolved for: a caller principal is always resolved as itself (it may
 * repeat its own caller in the request, never name another); a service or the operator must name one.
 */
export function callerFor(ctx: ServiceContext, requested: Caller | undefined): Caller {
  if (ctx.principal.kind === 'caller') {
    const self = ctx.principal.caller;
    if (requested?.credentialId && requested.credentialId !== self.credentialId) {
      throw domainError('forbidden', 'a caller may only resolve its own payer');
    }
    return self;
  }
  if (!requested?.owner?.id) throw domainError('invalid_request', 'caller is required');
  return requested;
}
