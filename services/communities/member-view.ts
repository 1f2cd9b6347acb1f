// What a community sees of a member (docs/COMMUNITIES.md "What a community sees of a person it
// added"). A person the community added by identifier (bulk add) whose profile is not public is
// shown only as the community described them: the name, seed fields and identifiers of its own add
// item — never the profile's own text, avatar, claimed state or account, whether the add matched an
// existing person or created a placeholder. A public profile, and any membership that did not come
// from a bulk add (seed files, the operator), shows the profile as it is.
import type { ProfileRow, Supplied } from './community.repository.js';

/** The profile as this community may see it, given the membership's `supplied` column. */
export function asCommunitySees<P extends ProfileRow>(profile: P, supplied: Supplied | null | undefined): P {
  if (!supplied || profile.public) return profile;
  return {
    ...profile,
    user_id: null,
    placeholder_user_id: null,
    public: false,
    name: supplied.name,
    headline: supplied.headline,
    bio: supplied.bio,
    organization: supplied.organization,
    location: supplied.location,
    email: supplied.email,
    linkedin_url: supplied.linkedin_url,
    orcid: supplied.orcid,
    avatar_url: null,
  };
}
