// GET /v1/me/profile: the caller's own profile record — the member-read fields without the
// membership ones (role, joined_at). Self-enrichment data joins it with the enrichment service.
import type { Profile } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import type { z } from 'zod';
import { nullableProfileFields } from '../../services/kit/profile-fields.js';
import { fromRemote } from './api-error.js';
import type { CallerContext, Edge } from './edge.js';
import type { OwnProfile } from './contract/me.js';
import { enrichmentView } from './enrichment-view.js';

export type ProfileView = z.output<typeof OwnProfile>;

/** The person's fields of a profile record, shared by the own-profile and member reads. */
export function profileFields(p: Profile): Omit<ProfileView, 'enrichment'> {
  return {
    profile_id: p.id,
    name: p.name,
    ...nullableProfileFields(p),
    claimed: p.userId !== '',
  };
}

export async function getOwnProfile(edge: Edge, ctx: CallerContext): Promise<ProfileView> {
  try {
    const options = await edge.as(ctx);
    // The profile's answer (a 404 when there is none) wins over whatever enrichment answered.
    const [profile, own] = await Promise.allSettled([
      edge.clients.communities.getOwnProfile({}, options),
      edge.clients.enrichment.getOwnEnrichment({}, options),
    ]);
    if (profile.status === 'rejected') throw profile.reason;
    if (own.status === 'rejected') throw own.reason;
    return { ...profileFields(profile.value.profile!), enrichment: enrichmentView(own.value.enrichment) };
  } catch (error) {
    throw fromRemote(error);
  }
}
