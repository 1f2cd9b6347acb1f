// The payer settings: a user's global-search wallet (set by the operator or the signed-in user) and
// an organization's funding (the operator's) of
// the communities it owns (docs/BILLING.md "Payer resolution" reads them; the SQL is
// payer-settings.repository.ts's).
import type { SetGlobalSearchPreferenceRequest, SetOrganizationFundingRequest } from '../../proto/gen/expertnet/billing/v1/billing_service.js';
import { ownerTypes } from '../kit/enums.js';
import { domainError } from '../kit/grpc/errors.js';
import type { ServiceContext } from '../kit/grpc/server.js';
import type { BillingContext } from './billing-context.js';
import type { Owner } from './ledger.repository.js';
import { createPayerDirectory } from './payer-directory.js';
import { createPayerSettings } from './payer-settings.repository.js';
import { requireSelf } from './spendable-wallets.js';

/**
 * Sets (or, with no wallet, clears) the wallet a user's global searches are charged to: the user's
 * own, or an organization the user belongs to. The operator sets it for anyone; a signed-in user
 * for themself only, and naming a wallet they may not spend from is forbidden (not a form mistake).
 */
export async function setGlobalSearchPreference(context: BillingContext, request: SetGlobalSearchPreferenceRequest, ctx: ServiceContext): Promise<void> {
  const settings = createPayerSettings(context.deps.db);
  const userId = request.userId.trim();
  if (!userId) throw domainError('invalid_request', 'user_id is required');
  requireSelf(ctx, userId);
  const directory = createPayerDirectory(context, ctx.requestId);
  if (!(await directory.userExists(userId))) throw domainError('invalid_request', `unknown user ${userId}`);
  const ref = request.wallet;
  // An absent wallet (or an empty one) clears the preference.
  if (!ref || (!ref.id && !ref.type)) {
    await settings.setGlobalPreference(userId, undefined);
    return;
  }
  if (!ref.id) throw domainError('invalid_request', 'wallet.id is required');
  const wallet: Owner = { type: ownerTypes.toName(ref.type, 'wallet.type'), id: ref.id };
  const allowed =
    wallet.type === 'user'
      ? wallet.id === userId
      : (await directory.organizationsOf(userId)).some((o) => o.organizationId === wallet.id);
  if (!allowed) {
    throw domainError(
      ctx.principal.kind === 'user' ? 'forbidden' : 'invalid_request',
      `${wallet.type} ${wallet.id} cannot be ${userId}'s global-search wallet: it must be the user or an organization the user belongs to`,
    );
  }
  await settings.setGlobalPreference(userId, wallet);
}

/** How an organization funds the caller-side operations naming a community it owns (or all of them). */
export async function setOrganizationFunding(context: BillingContext, request: SetOrganizationFundingRequest, ctx: ServiceContext): Promise<void> {
  const settings = createPayerSettings(context.deps.db);
  const organizationId = request.organizationId.trim();
  if (!organizationId) throw domainError('invalid_request', 'organization_id is required');
  const budget = request.delegationBudgetPerMonth;
  if (!Number.isSafeInteger(budget) || budget < 0) {
    throw domainError('invalid_request', 'delegation_budget_per_month must be a whole number of credits, 0 or more');
  }
  const directory = createPayerDirectory(context, ctx.requestId);
  if (!(await directory.organizationExists(organizationId))) {
    throw domainError('invalid_request', `unknown organization ${organizationId}`);
  }
  const communityId = request.communityId.trim();
  if (communityId) {
    const community = await directory.community(communityId);
    if (!community) throw domainError('invalid_request', `unknown community ${communityId}`);
    const owner = community.billingOwner;
    if (owner.type !== 'organization' || owner.id !== organizationId) {
      throw domainError('invalid_request', `community ${communityId} is not owned by organization ${organizationId}`);
    }
  }
  await settings.setFunding({
    organization_id: organizationId,
    community_id: communityId,
    standing_funding: request.standingFunding,
    delegation_budget_per_month: budget,
  });
}
