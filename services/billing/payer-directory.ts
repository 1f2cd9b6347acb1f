// What payer resolution asks other services, as the billing service itself (a 'service'
// principal): a community's billing owner (communities), a user's organizations with their join
// times, and the names of users and organizations (identity). A domain failure is passed on with
// its code; a service that cannot be reached in time becomes UNAVAILABLE (503 at the edge).
import { Status } from 'nice-grpc';
import { ownerTypes } from '../kit/enums.js';
import type { CallOptions } from '../kit/grpc/client.js';
import { asService } from '../kit/grpc/acting.js';
import { readRemoteError, relayOrUnavailable } from '../kit/grpc/errors.js';
import type { BillingContext } from './billing-context.js';
import type { Owner } from './ledger.repository.js';


function isNotFound(error: unknown): boolean {
  return readRemoteError(error)?.status === Status.NOT_FOUND;
}

export interface CommunityFacts {
  id: string;
  billingOwner: Owner;
}

export interface UserOrganization {
  organizationId: string;
  joinedAt: Date;
}

export function createPayerDirectory(context: BillingContext, requestId: string | undefined) {
  const { deps } = context;
  let options: Promise<CallOptions> | undefined;
  const as = () => (options ??= Promise.resolve(asService('billing', requestId, deps.deadlineMs)));

  /** The display name of a user or organization; undefined when identity does not know it. */
  async function nameOf(owner: Owner): Promise<string | undefined> {
    try {
      if (owner.type === 'user') {
        return (await deps.clients.identity.getUser({ userId: owner.id }, await as())).user?.name;
      }
      return (await deps.clients.identity.getOrganization({ organizationId: owner.id }, await as())).organization?.name;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      return relayOrUnavailable(error);
    }
  }

  return {
    /** The community and its billing owner; undefined when there is no such community. */
    async community(communityId: string): Promise<CommunityFacts | undefined> {
      try {
        const { community } = await deps.clients.communities.getCommunity({ communityId }, await as());
        const owner = community?.billingOwner;
        if (!community || !owner?.id) return undefined;
        return { id: community.id, billingOwner: { type: ownerTypes.toName(owner.type, 'billing_owner.type'), id: owner.id } };
      } catch (error) {
        if (isNotFound(error)) return undefined;
        return relayOrUnavailable(error);
      }
    },

    /** The user's organizations, earliest joined first (ties by organization id). */
    async organizationsOf(userId: string): Promise<UserOrganization[]> {
      try {
        const { organizations } = await deps.clients.identity.listUserOrganizations({ userId }, await as());
        return organizations
          .map((o) => ({ organizationId: o.organizationId, joinedAt: new Date(o.joinedAt ?? 0) }))
          .sort((a, b) => a.joinedAt.getTime() - b.joinedAt.getTime() || a.organizationId.localeCompare(b.organizationId));
      } catch (error) {
        return relayOrUnavailable(error);
      }
    },

    nameOf,
    userExists: async (userId: string) => (await nameOf({ type: 'user', id: userId })) !== undefined,
    organizationExists: async (organizationId: string) => (await nameOf({ type: 'organization', id: organizationId })) !== undefined,
  };
}

export type PayerDirectory = ReturnType<typeof createPayerDirectory>;
