// The rate tier of a new personal credential (a key or an OAuth grant): decided when it is made,
// then stored. It depends on the user's plan and on what the user manages, which the communities
// service knows (key-minting.ts holds the rule).
import { asService } from '../kit/grpc/acting.js';
import { relayRemoteError } from '../kit/grpc/errors.js';
import type { ServiceContext } from '../kit/grpc/server.js';
import type { IdentityContext } from './identity-context.js';
import { type PrivilegeFacts, rateTierFor } from './key-minting.js';
import type { UserRow } from './user.repository.js';

async function privilegeFacts(context: IdentityContext, user: UserRow, ctx: ServiceContext): Promise<PrivilegeFacts> {
  const { deps, users } = context;
  const managed = (await users.organizationsOfUser(user.id))
    .filter((m) => m.role === 'owner' || m.role === 'admin')
    .map((m) => m.organization_id);
  const options = asService('identity', ctx.requestId, deps.deadlineMs);
  const standing = await deps.clients.communities
    .getUserStanding({ userId: user.id, managedOrganizationIds: managed }, options)
    .catch(relayRemoteError);
  return {
    plan: user.plan,
    managesCommunity: standing.managesCommunity,
    managedOrganizationOwnsCommunity: standing.managedOrganizationOwnsCommunity,
  };
}

export async function personalRateTier(context: IdentityContext, user: UserRow, ctx: ServiceContext) {
  return rateTierFor(await privilegeFacts(context, user, ctx));
}
