// A profile message's optional text fields as stored and as the API shows them: proto3 has no
// absent string, so an empty string is an absent value — null in a row and in JSON, and back. Shared
// by the communities service (message ↔ row), the edge (message → response body) and the seed
// (file → message).
import type { Profile } from '../../proto/gen/expertnet/communities/v1/communities_service.js';

/** Empty proto strings are absent values: null. */
export const orNull = (s: string): string | null => (s === '' ? null : s);

export interface NullableProfileFields {
  user_id: string | null;
  headline: string | null;
  bio: string | null;
  organization: string | null;
  location: string | null;
  avatar_url: string | null;
  linkedin_url: string | null;
  orcid: string | null;
}

export function nullableProfileFields(p: Profile): NullableProfileFields {
  return {
    user_id: orNull(p.userId),
    headline: orNull(p.headline),
    bio: orNull(p.bio),
    organization: orNull(p.organization),
    location: orNull(p.location),
    avatar_url: orNull(p.avatarUrl),
    linkedin_url: orNull(p.linkedinUrl),
    orcid: orNull(p.orcid),
  };
}

/** The person's descriptive text of a row or a seed entry, as the message's strings ('' for absent). */
export function profileTextMessage(p: {
  headline?: string | null;
  bio?: string | null;
  organization?: string | null;
  location?: string | null;
  avatar_url?: string | null;
}): { headline: string; bio: string; organization: string; location: string; avatarUrl: string } {
  return {
    headline: p.headline ?? '',
    bio: p.bio ?? '',
    organization: p.organization ?? '',
    location: p.location ?? '',
    avatarUrl: p.avatar_url ?? '',
  };
}
