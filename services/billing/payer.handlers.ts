// Payer resolution, and the operator settings it reads (global-search preference, organization funding).
import type { BillingServiceDefinition } from '../../proto/gen/expertnet/billing/v1/billing_service.js';
import type { Caller } from '../../proto/gen/expertnet/common/v1/common.js';
import { ownerTypes } from '../kit/enums.js';
import { domainError } from '../kit/grpc/errors.js';
import type { ServiceContext, ServiceRegistration } from '../kit/grpc/server.js';
import type { BillingContext } from './billing-context.js';
import type { Owner } from './ledger.repository.js';
import { createPayerDirectory } from './payer-directory.js';
import { createPayerSettings } from './payer-settings.repository.js';
import { resolvePayer, toResolvePayerResponse } from './resolve-payer.js';

type Handlers = ServiceRegistration<typeof BillingServiceDefinition>['implementation'];

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

export function createPayerHandlers(context: BillingContext): Pick<Handlers, 'resolvePayer' | 'setGlobalSearchPreference' | 'setOrganizationFunding'> {
  const settings = createPayerSettings(context.deps.db);

  return {
    async resolvePayer(request, ctx) {
      const caller = callerFor(ctx, request.caller);
      const resolved = await resolvePayer(context, { operation: request.operation, communityId: request.communityId, caller }, ctx.requestId);
      return toResolvePayerResponse(resolved);
    },

    async setGlobalSearchPreference(request, ctx) {
      const userId = request.userId.trim();
      if (!userId) throw domainError('invalid_request', 'user_id is required');
      const directory = createPayerDirectory(context, ctx.requestId);
      if (!(await directory.userExists(userId))) throw domainError('invalid_request', `unknown user ${userId}`);
      const ref = request.wallet;
      // An absent wallet (or an empty one) clears the preference.
      if (!ref || (!ref.id && !ref.type)) {
        await settings.setGlobalPreference(userId, undefined);
        return {};
      }
      if (!ref.id) throw domainError('invalid_request', 'wallet.id is required');
      const wallet: Owner = { type: ownerTypes.toName(ref.type, 'wallet.type'), id: ref.id };
      const allowed =
        wallet.type === 'user'
          ? wallet.id === userId
          : (await directory.organizationsOf(userId)).some((o) => o.organizationId === wallet.id);
      if (!allowed) {
        throw domainError(
          'invalid_request',
          `${wallet.type} ${wallet.id} cannot be ${userId}'s global-search wallet: it must be the user or an organization the user belongs to`,
        );
      }
      await settings.setGlobalPreference(userId, wallet);
      return {};
    },

    async setOrganizationFunding(request, ctx) {
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
      return {};
    },
  };
}
