// Roster reads: list members (keyset pages) and read one member. Both act for an end user: the
// service re-checks the scope and the community's read reach that the edge already checked
// (fail closed: anything outside reach is 403, an unknown community included).
import { Member } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import type { CommunitiesServiceDefinition } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { roles } from '../kit/enums.js';
import { callAs } from '../kit/grpc/client.js';
import { domainError, relayRemoteError } from '../kit/grpc/errors.js';
import { requireCaller } from '../kit/grpc/require-caller.js';
import type { ServiceContext, ServiceRegistration } from '../kit/grpc/server.js';
import { clampPageSize, pageOf } from '../kit/paging.js';
import type { RosterRow } from './community.repository.js';
import type { HandlerContext } from './handler-context.js';
import { toProfile } from './community-messages.js';
import { asCommunitySees } from './member-view.js';
import { requireCommunityAccess } from './reach.js';
import { decodeRosterCursor, encodeRosterCursor, rosterCursorKey } from './roster-cursor.js';

type Handlers = ServiceRegistration<typeof CommunitiesServiceDefinition>['implementation'];

export const ROSTER_PAGE_DEFAULT = 50;
export const ROSTER_PAGE_MAX = 200;

/**
 * A roster member for an end user. The community's source identifier stays inside, and the profile
 * goes out as this community sees it (member-view.ts), in its caller form (no email, no placeholder
 * account): see community-messages.ts.
 */
function toMember(row: RosterRow, communityId: string): Member {
  return Member.fromPartial({
    profile: toProfile(asCommunitySees(row, row.supplied), 'caller'),
    membership: {
      communityId,
      profileId: row.id,
      role: roles.toEnum(row.role),
      joinedAt: row.joined_at.toISOString(),
    },
  });
}

export function createRosterHandlers(context: HandlerContext): Pick<Handlers, 'listMembers' | 'getMember'> {
  const { repo, reachDeps } = context;
  const cursorKey = rosterCursorKey(context.deps.pepper);

  /** This community's enrichment times for a page, in one call to the enrichment service. */
  async function enrichedAtOf(communityId: string, profileIds: string[], requestId: string): Promise<Map<string, string>> {
    if (profileIds.length === 0) return new Map();
    const options = await callAs(context.deps.signer, { kind: 'service', service: 'communities' }, requestId, context.deps.deadlineMs);
    const { entries } = await context.deps.clients.enrichment.listEnrichedAt({ communityId, profileIds }, options).catch(relayRemoteError);
    return new Map(entries.map((e) => [e.profileId, e.enrichedAt!]));
  }

  const readable = (ctx: ServiceContext, communityId: string) =>
    requireCommunityAccess(reachDeps, requireCaller(ctx, 'profile:read'), communityId, 'read', ctx.requestId, repo.findCommunity);

  return {
    async listMembers(request, ctx) {
      const community = await readable(ctx, request.communityId);
      // Reach first: a cursor sent for a community outside reach is 403 like any other request.
      const after = request.pageToken ? decodeRosterCursor(cursorKey, community.id, request.pageToken) : undefined;
      const limit = clampPageSize(request.pageSize, ROSTER_PAGE_DEFAULT, ROSTER_PAGE_MAX);
      const rows = await repo.listRosterPage(community.id, after, limit + 1);
      const page = pageOf(rows, limit, (last) =>
        encodeRosterCursor(cursorKey, community.id, { joinedAt: last.joined_at_key, profileId: last.id }),
      );
      const enrichedAt = await enrichedAtOf(community.id, page.items.map((r) => r.id), ctx.requestId);
      return {
        members: page.items.map((row) => ({ ...toMember(row, community.id), enrichedAt: enrichedAt.get(row.id) })),
        nextPageToken: page.nextPageToken,
      };
    },

    async getMember(request, ctx) {
      const community = await readable(ctx, request.communityId);
      const row = await repo.findRosterMember(community.id, request.profileId);
      if (!row) throw domainError('not_found', `profile ${request.profileId} is not a member of community ${community.id}`);
      return { member: toMember(row, community.id) };
    },
  };
}
