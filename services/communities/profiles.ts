// Profiles as the operator keeps them (each write indexed for search at once), and a caller's own
// profile.
import type { Profile } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { domainError } from '../kit/grpc/errors.js';
import { requireCaller } from '../kit/grpc/require-caller.js';
import type { ServiceContext } from '../kit/grpc/server.js';
import { requireId } from '../kit/ids.js';
import type { CommunitiesContext } from './communities-context.js';
import { profileRow } from './communities-messages.js';
import type { ProfileRow } from './community.repository.js';
import { indexProfile } from './search-index.js';


/** Creates or updates a profile and indexes it; returns the stored row. */
export async function upsertProfile(context: CommunitiesContext, p: Profile | undefined, requestId: string): Promise<ProfileRow> {
  if (!p || !p.name.trim()) throw domainError('invalid_request', 'profile.name is required');
  const row: ProfileRow = { ...profileRow(p), id: requireId(p.id, 'profile.id') };
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
