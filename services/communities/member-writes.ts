// Member writes an end user makes: a bulk add and an erasure, each behind write gating
// (write-gating.ts), and the write gate itself for other services (AuthorizeWrite). The add's
// rules are add-members.ts's, the erasure's erasure.ts's. See docs/COMMUNITIES.md.
import type { AddMembersRequest, AuthorizeWriteRequest, RemoveMemberRequest } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { Role } from '../../proto/gen/expertnet/common/v1/common.js';
import type { RoleName } from '../kit/enums.js';
import { domainError } from '../kit/grpc/errors.js';
import { requireCaller } from '../kit/grpc/require-caller.js';
import type { ServiceContext } from '../kit/grpc/server.js';
import { ADD_MEMBERS_MAX, addMembers as addEach } from './add-members.js';
import type { CommunitiesContext } from './communities-context.js';
import type { CommunityRow } from './community.repository.js';
import { eraseMember } from './erasure.js';
import { indexAddedMembers } from './index-followup.js';
import { addDescribed, removeDescribed } from './write-descriptions.js';
import { isWriteOperation, requireWritable, requireWriteReach } from './write-gating.js';

/** The role a bulk add grants: member (also when unspecified) or admin. Owner is never granted. */
function grantableRole(role: Role): RoleName {
  if (role === Role.ROLE_UNSPECIFIED || role === Role.ROLE_MEMBER) return 'member';
  if (role === Role.ROLE_ADMIN) return 'admin';
  if (role === Role.ROLE_OWNER) throw domainError('invalid_request', 'role owner cannot be granted through the API; use member or admin');
  throw domainError('invalid_request', 'role must be member or admin');
}

/** Adds up to ADD_MEMBERS_MAX people to a community the caller may write to, and indexes them. */
export async function addMembers(context: CommunitiesContext, request: AddMembersRequest, ctx: ServiceContext) {
  const caller = requireCaller(ctx, 'member:write');
  // Refused whole, before anything is written (the edge's schema refuses the same).
  if (request.members.length === 0 || request.members.length > ADD_MEMBERS_MAX) {
    throw domainError('invalid_request', `members must hold 1 to ${ADD_MEMBERS_MAX} items (got ${request.members.length})`);
  }
  const role = grantableRole(request.role);
  await requireWritable(context, caller, request.communityId, 'members.add', ctx.requestId, addDescribed(request, role));
  const results = await addEach(context, request.communityId, role, request.members, ctx.requestId);
  await indexAddedMembers(context, request.communityId, results, ctx.requestId);
  return results;
}

/** Erases a member from a community the caller may write to; whether its placeholder account went too. */
export async function removeMember(context: CommunitiesContext, request: RemoveMemberRequest, ctx: ServiceContext): Promise<boolean> {
  const caller = requireCaller(ctx, 'member:write');
  await requireWritable(context, caller, request.communityId, 'members.remove', ctx.requestId,
    await removeDescribed(context, request.communityId, request.profileId));
  const outcome = await eraseMember(context, request.communityId, request.profileId, ctx.requestId);
  return outcome.authAccountDeleted;
}

/** The community a write operation may go to for this caller; `reach_only` checks reach alone. */
export async function authorizeWrite(context: CommunitiesContext, request: AuthorizeWriteRequest, ctx: ServiceContext): Promise<CommunityRow> {
  const caller = requireCaller(ctx);
  if (!isWriteOperation(request.operation)) {
    throw domainError('invalid_request', 'operation must be members.add, members.remove or enrichment.start');
  }
  // reach_only: an estimate, which writes nothing — so no attestation and no consent request.
  if (request.reachOnly) return requireWriteReach(context, caller, request.communityId, request.operation, ctx.requestId);
  // The calling service says what the write is (an enrichment run: its depth and selection).
  const write = { target: request.target, description: request.description || request.operation };
  return requireWritable(context, caller, request.communityId, request.operation, ctx.requestId, write);
}
