// Profiles and memberships as the operator keeps them (each write indexed for search at once),
// a caller's own profile, and the membership reads other services make.
import { randomUUID } from 'node:crypto';
import type { Membership, Profile } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { roles } from '../kit/enums.js';
import { domainError } from '../kit/grpc/errors.js';
import { requireCaller } from '../kit/grpc/require-caller.js';
import type { ServiceContext } from '../kit/grpc/server.js';
import { requireId } from '../kit/ids.js';
import type { CommunitiesContext } from './communities-context.js';
import { getCommunity } from './community-records.js';
import type { MembershipRow, ProfileRow } from './community.repository.js';
import { createMemberWriteRepository } from './member-write.repository.js';
import { indexMemberships, indexProfile } from './search-index.js';

const orNull = (s: string) => (s === '' ? null : s);

/** Creates or updates a profile and indexes it; returns the stored row. */
export async function upsertProfile(context: CommunitiesContext, p: Profile | undefined, requestId: string): Promise<ProfileRow> {
  if (!p || !p.name.trim()) throw domainError('invalid_request', 'profile.name is required');
  const row: ProfileRow = {
    id: requireId(p.id, 'profile.id'),
    user_id: orNull(p.userId),
    placeholder_user_id: orNull(p.placeholderUserId),
    public: p.public,
    name: p.name,
    headline: orNull(p.headline),
    bio: orNull(p.bio),
    organization: orNull(p.organization),
    location: orNull(p.location),
    email: orNull(p.email),
    linkedin_url: orNull(p.linkedinUrl),
    orcid: orNull(p.orcid),
    avatar_url: orNull(p.avatarUrl),
  };
  await context.repo.upsertProfile(row);
  await indexProfile(context, row.id, requestId);
  return (await context.repo.findProfile(row.id))!;
}

/** A profile by its id or by its user's id (exactly one given). */
export async function getProfile(context: CommunitiesContext, request: { profileId: string; userId: string }): Promise<ProfileRow> {
  const { repo } = context;
  if (Boolean(request.profileId) === Boolean(request.userId)) throw domainError('invalid_request', 'give exactly one of profile_id and user_id');
  const row = request.profileId ? await repo.findProfile(request.profileId) : await repo.findProfileByUser(request.userId);
  if (!row) throw domainError('not_found', request.profileId ? `profile ${request.profileId} not found` : `user ${request.userId} has no profile`);
  return row;
}

/** The calling user's own profile. */
export async function getOwnProfile(context: CommunitiesContext, ctx: ServiceContext): Promise<ProfileRow> {
  const caller = requireCaller(ctx, 'profile:read');
  const row = caller.userId ? await context.repo.findProfileByUser(caller.userId) : undefined;
  if (!row) {
    throw domainError('not_found', caller.userId ? 'you have no profile yet' : 'an organization-owned key has no user, so no profile');
  }
  return row;
}

/**
 * Creates or updates a membership and indexes it; returns the stored row. A membership keeps the
 * source identifier it was first given (or a new one).
 */
export async function upsertMembership(context: CommunitiesContext, m: Membership | undefined, requestId: string): Promise<MembershipRow> {
  const { repo } = context;
  if (!m) throw domainError('invalid_request', 'membership is required');
  await getCommunity(context, m.communityId);
  if (!(await repo.findProfile(m.profileId))) throw domainError('invalid_request', `unknown profile ${m.profileId}`);
  const existing = await repo.findMembership(m.communityId, m.profileId);
  await repo.upsertMembership({
    community_id: m.communityId,
    profile_id: m.profileId,
    role: roles.toName(m.role, 'membership.role'),
    joined_at: m.joinedAt ? new Date(m.joinedAt) : new Date(),
    source_identifier: existing?.source_identifier ?? (m.sourceIdentifier || `src_${randomUUID()}`),
  });
  await indexMemberships(context, m.communityId, [m.profileId], requestId);
  return (await repo.findMembership(m.communityId, m.profileId))!;
}

export async function getMembership(context: CommunitiesContext, request: { communityId: string; profileId: string }): Promise<MembershipRow> {
  const row = await context.repo.findMembership(request.communityId, request.profileId);
  if (!row) throw domainError('not_found', `profile ${request.profileId} is not a member of community ${request.communityId}`);
  return row;
}

/** How many members a community has (the enrichment service sizes a community run with it). */
export async function countMembers(context: CommunitiesContext, communityId: string): Promise<number> {
  if (!(await context.repo.findCommunity(communityId))) throw domainError('not_found', `community ${communityId} not found`);
  return createMemberWriteRepository(context.deps.db).countMembers(communityId);
}
