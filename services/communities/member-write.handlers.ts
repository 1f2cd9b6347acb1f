// Member writes: bulk add and erasure, behind write gating; the consent queue; the write gate for
// other services; operator reads of memberships. See docs/COMMUNITIES.md.
import {
  ConsentRequest,
  ConsentStatus,
  Membership,
  type CommunitiesServiceDefinition,
} from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { Role } from '../../proto/gen/expertnet/common/v1/common.js';
import { roles, type RoleName } from '../kit/enums.js';
import { domainError } from '../kit/grpc/errors.js';
import { requireCaller } from '../kit/grpc/require-caller.js';
import type { ServiceRegistration } from '../kit/grpc/server.js';
import { ADD_MEMBERS_MAX, addMembers } from './add-members.js';
import { toCommunity } from './community-messages.js';
import { eraseMember } from './erasure.js';
import type { HandlerContext } from './handler-context.js';
import { createMemberWriteRepository, type ConsentRequestRow, type ConsentStatusName } from './member-write.repository.js';
import { indexAddedMembers } from './search-index.js';
import { isWriteOperation, requireWritable, requireWriteReach } from './write-gating.js';

type Handlers = ServiceRegistration<typeof CommunitiesServiceDefinition>['implementation'];

export type MemberWriteMethods =
  | 'addMembers'
  | 'removeMember'
  | 'listConsentRequests'
  | 'resolveConsentRequest'
  | 'authorizeWrite'
  | 'getMembership'
  | 'countMembers';

const STATUS_ENUM: Record<ConsentStatusName, ConsentStatus> = {
  pending: ConsentStatus.CONSENT_STATUS_PENDING,
  approved: ConsentStatus.CONSENT_STATUS_APPROVED,
  denied: ConsentStatus.CONSENT_STATUS_DENIED,
};

function toConsentRequest(row: ConsentRequestRow): ConsentRequest {
  return ConsentRequest.fromPartial({
    id: row.id,
    communityId: row.community_id,
    operation: row.operation,
    status: STATUS_ENUM[row.status],
    createdAt: row.created_at.toISOString(),
    requestedBy: row.requested_by,
    resolvedAt: row.resolved_at?.toISOString(),
    resolvedBy: row.resolved_by ?? '',
    attestationVersion: row.attestation_version ?? 0,
  });
}

/** The role a bulk add grants: member (also when unspecified) or admin. Owner is never granted. */
function grantableRole(role: Role): RoleName {
  if (role === Role.ROLE_UNSPECIFIED || role === Role.ROLE_MEMBER) return 'member';
  if (role === Role.ROLE_ADMIN) return 'admin';
  if (role === Role.ROLE_OWNER) throw domainError('invalid_request', 'role owner cannot be granted through the API; use member or admin');
  throw domainError('invalid_request', 'role must be member or admin');
}

const PAGE_DEFAULT = 50;
const PAGE_MAX = 200;

function encodeToken(row: { cursor_at: string; id: string }): string {
  return Buffer.from(JSON.stringify([row.cursor_at, row.id])).toString('base64url');
}

function decodeToken(token: string): { createdAt: string; id: string } | undefined {
  if (!token) return undefined;
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown[];
    if (typeof createdAt === 'string' && typeof id === 'string' && !Number.isNaN(Date.parse(createdAt))) return { createdAt, id };
  } catch {
    // fall through
  }
  throw domainError('invalid_request', 'page_token is not a token this method returned');
}

export function createMemberWriteHandlers(context: HandlerContext): Pick<Handlers, MemberWriteMethods> {
  const { deps, repo } = context;
  const writes = createMemberWriteRepository(deps.db);

  return {
    async addMembers(request, ctx) {
      const caller = requireCaller(ctx, 'member:write');
      // Refused whole, before anything is written (the edge's schema refuses the same).
      if (request.members.length === 0 || request.members.length > ADD_MEMBERS_MAX) {
        throw domainError('invalid_request', `members must hold 1 to ${ADD_MEMBERS_MAX} items (got ${request.members.length})`);
      }
      const role = grantableRole(request.role);
      await requireWritable(context, caller, request.communityId, 'members.add', ctx.requestId);
      const results = await addMembers(context, request.communityId, role, request.members, ctx.requestId);
      await indexAddedMembers(context, request.communityId, results, ctx.requestId);
      return { results };
    },

    async removeMember(request, ctx) {
      const caller = requireCaller(ctx, 'member:write');
      await requireWritable(context, caller, request.communityId, 'members.remove', ctx.requestId);
      const outcome = await eraseMember(context, request.communityId, request.profileId, ctx.requestId);
      return { communityId: request.communityId, profileId: request.profileId, authAccountDeleted: outcome.authAccountDeleted };
    },

    async authorizeWrite(request, ctx) {
      const caller = requireCaller(ctx);
      if (!isWriteOperation(request.operation)) {
        throw domainError('invalid_request', 'operation must be members.add, members.remove or enrichment.start');
      }
      // reach_only: an estimate, which writes nothing — so no attestation and no consent request.
      const gate = request.reachOnly ? requireWriteReach : requireWritable;
      return { community: toCommunity(await gate(context, caller, request.communityId, request.operation, ctx.requestId)) };
    },

    async listConsentRequests(request) {
      const limit = Math.min(Math.max(request.pageSize || PAGE_DEFAULT, 1), PAGE_MAX);
      const status = (Object.keys(STATUS_ENUM) as ConsentStatusName[]).find((s) => STATUS_ENUM[s] === request.status);
      if (request.status !== ConsentStatus.CONSENT_STATUS_UNSPECIFIED && !status) throw domainError('invalid_request', 'unknown status');
      const rows = await writes.listConsentRequests(
        { communityId: request.communityId || undefined, status },
        decodeToken(request.pageToken),
        limit + 1,
      );
      const page = rows.slice(0, limit);
      return {
        requests: page.map(toConsentRequest),
        nextPageToken: rows.length > limit ? encodeToken(page[page.length - 1]!) : '',
      };
    },

    async resolveConsentRequest(request, ctx) {
      const decision = request.approve ? 'approved' : 'denied';
      const actor = request.actor || (ctx.principal.kind === 'operator' ? ctx.principal.actor : 'unknown');
      const row = await deps.db.transaction(async (tx) => {
        const w = createMemberWriteRepository(tx);
        const found = await w.findConsentRequest(request.consentRequestId, true);
        if (!found) throw domainError('not_found', `consent request ${request.consentRequestId} not found`);
        if (found.status !== 'pending') {
          // Repeating the same decision is a no-op; changing a decision is refused.
          if (found.status === decision) return found;
          throw domainError('conflict', `consent request ${found.id} is already ${found.status}`);
        }
        // An approval stands while the attestation version it was given under is the latest.
        const version = decision === 'approved' ? await w.latestAttestationVersion(found.community_id) : null;
        return w.resolveConsentRequest(found.id, decision, actor, version);
      });
      deps.logger.info({ consentRequest: row.id, communityId: row.community_id, operation: row.operation, status: row.status, actor }, 'consent request resolved');
      return { request: toConsentRequest(row) };
    },

    async getMembership(request) {
      const row = await repo.findMembership(request.communityId, request.profileId);
      if (!row) throw domainError('not_found', `profile ${request.profileId} is not a member of community ${request.communityId}`);
      return {
        membership: Membership.fromPartial({
          communityId: row.community_id,
          profileId: row.profile_id,
          role: roles.toEnum(row.role),
          joinedAt: row.joined_at.toISOString(),
          sourceIdentifier: row.source_identifier,
        }),
      };
    },

    async countMembers(request) {
      if (!(await repo.findCommunity(request.communityId))) throw domainError('not_found', `community ${request.communityId} not found`);
      return { count: await writes.countMembers(request.communityId) };
    },
  };
}
