// Community and profile rows as proto messages. A profile goes out for one audience. An end user's request (a caller) never
// receives the profile's email or placeholder account: the REST and MCP shapes do not publish them,
// so they do not leave the service. Operators and services get the whole record.
import { Community, Profile } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { ownerTypes } from '../kit/enums.js';
import type { CommunityRow, ProfileRow } from './community.repository.js';

export function toCommunity(row: CommunityRow): Community {
  return Community.fromPartial({
    id: row.id,
    name: row.name,
    billingOwner: { type: ownerTypes.toEnum(row.owner_type), id: row.owner_id },
    archived: row.archived,
    apiWrites: row.api_writes,
    createdAt: row.created_at.toISOString(),
  });
}

export type ProfileAudience = 'caller' | 'operator';

export function toProfile(row: ProfileRow, audience: ProfileAudience): Profile {
  const internal = audience === 'operator';
  return Profile.fromPartial({
    id: row.id,
    userId: row.user_id ?? '',
    placeholderUserId: internal ? (row.placeholder_user_id ?? '') : '',
    public: row.public,
    name: row.name,
    headline: row.headline ?? '',
    bio: row.bio ?? '',
    organization: row.organization ?? '',
    location: row.location ?? '',
    email: internal ? (row.email ?? '') : '',
    linkedinUrl: row.linkedin_url ?? '',
    orcid: row.orcid ?? '',
    avatarUrl: row.avatar_url ?? '',
  });
}
