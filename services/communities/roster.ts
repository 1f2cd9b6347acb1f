// Roster reads: list members (keyset pages) and read one member. Both act for an end user: the
// service re-checks the scope and the community's read reach that the edge already checked
// (fail closed: anything outside reach is 403, an unknown community included).
import type { GetMemberRequest, GetMemberResponse, ListMembersRequest, Member } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { domainError, relayRemoteError } from '../kit/grpc/errors.js';
import { requireCaller } from '../kit/grpc/require-caller.js';
import type { ServiceContext } from '../kit/grpc/server.js';
import { clampPageSize, pageOf } from '../kit/paging.js';
import type { CommunitiesContext } from './communities-context.js';
import { toMember } from './communities-messages.js';
import type { ReadReach, RosterRow } from './community.repository.js';
import { outsideReach, readReach, requireReach } from './reach.js';
import { asCommunitiesService } from './remote.js';
import { decodeRosterCursor, encodeRosterCursor } from './roster-cursor.js';

export const ROSTER_PAGE_DEFAULT = 50;
export const ROSTER_PAGE_MAX = 200;

/** One page of a community's members as an end user sees them (see toMember), with their enrichment times. */
export async function listMembers(
  context: CommunitiesContext,
  request: ListMembersRequest,
  ctx: ServiceContext,
): Promise<{ members: Member[]; nextPageToken: string }> {
  const { communityId } = request;
  const cursorKey = context.rosterCursorKey;
  const reach = await readable(context, ctx, communityId);
  let after: ReturnType<typeof decodeRosterCursor> | undefined;
  try {
    after = request.pageToken ? decodeRosterCursor(cursorKey, communityId, request.pageToken) : undefined;
  } catch (error) {
    // Reach first: a cursor sent for a community outside reach is 403 like any other request.
    await requireReach(context.reachDeps, requireCaller(ctx), communityId, 'read', ctx.requestId);
    throw error;
  }
  const limit = clampPageSize(request.pageSize, ROSTER_PAGE_DEFAULT, ROSTER_PAGE_MAX);
  const { inReach, rows } = await context.rosterPage({ communityId, after, limit: limit + 1, reach });
  if (!inReach) throw outsideReach(communityId, 'read');
  const page = pageOf(rows, limit, (last) =>
    encodeRosterCursor(cursorKey, communityId, { joinedAt: last.joined_at_key, profileId: last.id }),
  );
  const enrichedAt = await enrichedAtOf(context, communityId, page.items.map((r) => r.id), ctx.requestId);
  return {
    members: page.items.map((row) => ({ ...callerMember(row, communityId), enrichedAt: enrichedAt.get(row.id) })),
    nextPageToken: page.nextPageToken,
  };
}

/**
 * Members as callers see them, made once per row read: a page's rows kept between reads
 * (roster-rows-kept.ts) are the same objects until the store says they changed, and each belongs to
 * one community.
 */
const callerMembers = new WeakMap<RosterRow, Member>();

function callerMember(row: RosterRow, communityId: string): Member {
  let member = callerMembers.get(row);
  if (!member) callerMembers.set(row, (member = toMember(row, communityId, 'caller')));
  return member;
}

/**
 * One member of a community, as an end user sees it; with `withEnrichment`, also this community's
 * enrichment data of them, asked of the enrichment service as communities once reach is checked
 * here (the enrichment service re-checks a caller's reach by asking communities: the reach would
 * be computed twice).
 */
export async function getMember(context: CommunitiesContext, request: GetMemberRequest, ctx: ServiceContext): Promise<GetMemberResponse> {
  const { communityId } = request;
  const { inReach, row } = await context.rosterMember({ communityId, profileId: request.profileId, reach: await readable(context, ctx, communityId) });
  if (!inReach) throw outsideReach(communityId, 'read');
  if (!row) throw domainError('not_found', `profile ${request.profileId} is not a member of community ${communityId}`);
  const member = toMember(row, communityId, 'caller');
  if (!request.withEnrichment) return { member, enrichment: undefined };
  const { enrichment } = await context.deps.clients.enrichment
    .getMemberEnrichment({ communityId, profileId: request.profileId }, await asCommunitiesService(context, ctx.requestId))
    .catch(relayRemoteError);
  return { member, enrichment };
}

/**
 * The caller's read reach of the community as a condition the roster read checks in its own
 * statement (reach.ts); refused at once (403) when nothing could put it in reach.
 */
async function readable(context: CommunitiesContext, ctx: ServiceContext, communityId: string): Promise<ReadReach> {
  const reach = await readReach(context.reachDeps, requireCaller(ctx, 'profile:read'), communityId, ctx.requestId);
  if (!reach) throw outsideReach(communityId, 'read');
  return reach;
}

/** This community's enrichment times for a page, in one call to the enrichment service. */
async function enrichedAtOf(context: CommunitiesContext, communityId: string, profileIds: string[], requestId: string): Promise<Map<string, string>> {
  if (profileIds.length === 0) return new Map();
  const options = await asCommunitiesService(context, requestId);
  const { entries } = await context.deps.clients.enrichment.listEnrichedAt({ communityId, profileIds }, options).catch(relayRemoteError);
  return new Map(entries.map((e) => [e.profileId, e.enrichedAt!]));
}
