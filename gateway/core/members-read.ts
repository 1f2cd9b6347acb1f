// GET /v1/communities/{id}/members and GET /v1/communities/{id}/members/{profile_id}: the roster
// page and one member, read from the communities service as the caller (which re-checks the scope
// and the read reach). The member read joins this community's enrichment data, which communities
// asks of the enrichment service once the reach is checked.
import type { z } from 'zod';
import type { CommunityMember, RosterMember, RosterPage } from './contract/members.js';
import { profileFields } from './profile.js';
import type { Member } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import type { MemberEnrichment } from '../../proto/gen/expertnet/enrichment/v1/enrichment_service.js';
import { roles } from '../../services/kit/enums.js';
import { fromRemote } from './api-error.js';
import type { CallerContext, Edge } from './edge.js';
import { enrichmentView } from './enrichment-view.js';

export type RosterMemberView = z.output<typeof RosterMember>;
export type RosterPageView = z.output<typeof RosterPage>;
/** A member read: the person's profile fields with their membership's role and join date. */
export type MemberView = z.output<typeof CommunityMember>;

/** A roster row: the person's card of the member read (profileFields), with the membership and enrichment date. */
function rosterMember(member: Member): RosterMemberView {
  const { profile_id, user_id, name, headline, organization, location, avatar_url } = profileFields(member.profile!);
  const m = member.membership!;
  return {
    profile_id,
    user_id,
    name,
    headline,
    organization,
    location,
    avatar_url,
    role: roles.toName(m.role),
    joined_at: m.joinedAt!,
    enriched_at: member.enrichedAt ?? null,
  };
}

/** One roster page; `limit` is already defaulted and clamped, `after` passed on untouched (the service verifies it). */
export async function listMembers(
  edge: Edge,
  ctx: CallerContext,
  communityId: string,
  query: { limit: number; after?: string | undefined },
): Promise<RosterPageView> {
  try {
    const page = await edge.clients.communities.listMembers(
      { communityId, pageSize: query.limit, pageToken: query.after ?? '' },
      await edge.as(ctx),
    );
    return { members: page.members.map(rosterMember), next_cursor: page.nextPageToken || null };
  } catch (error) {
    throw fromRemote(error);
  }
}

/** A member read (also the data of a member.added event, where the community's enrichment is not asked). */
export function memberView({ profile, membership }: Member, enrichment: MemberEnrichment | undefined): MemberView {
  return {
    ...profileFields(profile!),
    role: roles.toName(membership!.role),
    joined_at: membership!.joinedAt!,
    enrichment: enrichmentView(enrichment),
  };
}

export async function getMember(edge: Edge, ctx: CallerContext, communityId: string, profileId: string): Promise<MemberView> {
  try {
    // One call: communities checks reach, then joins this community's enrichment data, which it
    // asks of the enrichment service itself (a 403 or 404 comes before any enrichment is read).
    const { member, enrichment } = await edge.clients.communities.getMember({ communityId, profileId, withEnrichment: true }, await edge.as(ctx));
    return memberView(member!, enrichment);
  } catch (error) {
    throw fromRemote(error);
  }
}
