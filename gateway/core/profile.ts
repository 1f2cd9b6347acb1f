// GET /v1/me/profile: the caller's own profile record — the member-read fields without the
// membership ones (role, joined_at). Self-enrichment data joins it with the enrichment service.
import type { Profile } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import type { z } from 'zod';
import { fromRemote } from './api-error.js';
import type { CallerContext, Edge } from './edge.js';
import type { OwnProfile } from './contract/me.js';
import { enrichmentView } from './enrichment-view.js';

export type ProfileView = z.output<typeof OwnProfile>;

/**
 * A profile message as the contract shows the person — the one mapping of a profile at the edge,
 * shared by the own-profile, member and roster reads. An unset field is null.
 */
export function profileFields(p: Profile): Omit<ProfileView, 'enrichment'> {
  return {
    profile_id: p.id,
    name: p.name,
    user_id: p.userId ?? null,
    headline: p.headline ?? null,
    bio: p.bio ?? null,
    organization: p.organization ?? null,
    location: p.location ?? null,
    avatar_url: p.avatarUrl ?? null,
    linkedin_url: p.linkedinUrl ?? null,
    orcid: p.orcid ?? null,
    claimed: p.userId !== undefined,
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
