// GET /v1/me/profile: the caller's own profile record — the member-read fields without the
// membership ones (role, joined_at). Self-enrichment data joins it with the enrichment service.
import type { Profile } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { fromRemote } from './api-error.js';
import type { CallerContext, Edge } from './edge.js';
import { enrichmentView, type MemberEnrichmentView } from './enrichment-view.js';

export interface ProfileView {
  profile_id: string;
  user_id: string | null;
  name: string;
  headline: string | null;
  bio: string | null;
  organization: string | null;
  location: string | null;
  avatar_url: string | null;
  linkedin_url: string | null;
  orcid: string | null;
  claimed: boolean;
  enrichment: MemberEnrichmentView | null;
}

/** Empty proto strings are absent values: null in JSON. */
export const orNull = (s: string) => (s === '' ? null : s);

/** The person's fields of a profile record, shared by the own-profile and member reads. */
export function profileFields(p: Profile): Omit<ProfileView, 'enrichment'> {
  return {
    profile_id: p.id,
    user_id: orNull(p.userId),
    name: p.name,
    headline: orNull(p.headline),
    bio: orNull(p.bio),
    organization: orNull(p.organization),
    location: orNull(p.location),
    avatar_url: orNull(p.avatarUrl),
    linkedin_url: orNull(p.linkedinUrl),
    orcid: orNull(p.orcid),
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
