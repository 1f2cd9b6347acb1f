// Memberships as the operator keeps them (each write indexed for search at once), and the
// membership reads other services make.
import { randomUUID } from 'node:crypto';
import type { Membership } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { roles } from '../kit/enums.js';
import { domainError } from '../kit/grpc/errors.js';
import type { CommunitiesContext } from './communities-context.js';
import { getCommunity } from './community-records.js';
import type { MembershipRow } from './community.repository.js';
import { createMemberWriteRepository } from './member-write.repository.js';
import { indexMemberships } from './search-index.js';

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
