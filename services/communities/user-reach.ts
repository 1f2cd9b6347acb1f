// A user's read reach with names (ListUserReach): what a personal key of theirs without an
// allowlist would reach, computed by the same rule as every key's reach (reach.ts). The settings
// web app offers a new key's allowlist from it; identity re-checks an allowlist against it at mint.
import type { Community } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { Caller, CredentialKind, OwnerType } from '../../proto/gen/expertnet/common/v1/common.js';
import { domainError } from '../kit/grpc/errors.js';
import type { ServiceContext } from '../kit/grpc/server.js';
import type { CommunitiesContext } from './communities-context.js';
import { toCommunity } from './communities-messages.js';
import { computeReach } from './reach.js';

export async function listUserReach(context: CommunitiesContext, ctx: ServiceContext, userId: string): Promise<Community[]> {
  if (ctx.principal.kind === 'user' && ctx.principal.userId !== userId) {
    throw domainError('forbidden', 'a signed-in user sees only their own reach');
  }
  if (!userId) throw domainError('invalid_request', 'user_id is required');
  // A personal key of this user with no allowlist: the widest reach any of their keys can have.
  const personal = Caller.fromPartial({
    credential: CredentialKind.CREDENTIAL_KIND_API_KEY,
    owner: { type: OwnerType.OWNER_TYPE_USER, id: userId },
    userId,
  });
  const reach = await computeReach(context.reachDeps, personal, ctx.requestId);
  const rows = await context.repo.findCommunitiesByName([...reach.read]);
  return rows.map(toCommunity);
}
