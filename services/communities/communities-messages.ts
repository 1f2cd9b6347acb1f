// Communities rows as proto messages: communities, profiles (and a profile message as its row),
// memberships, members and consent requests. One mapping for every handler and domain module of
// the service.
//
// A profile (and a member, which holds one) goes out for one audience. An end user's request (a
// caller) never receives the profile's email or placeholder account, nor a membership's source
// identifier: the REST and MCP shapes do not publish them, so they do not leave the service.
// Operators and services get the whole record.
import {
  Community,
  ConsentRequest,
  ConsentStatus,
  Member,
  Membership,
  Profile,
} from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { ownerTypes, roles, type RoleName } from '../kit/enums.js';
import type { CommunityRow, MembershipRow, ProfileRow, Supplied } from './community.repository.js';
import type { ConsentRequestRow, ConsentStatusName } from './member-write.repository.js';
import { asCommunitySees } from './member-view.js';
import { APPROVAL_WINDOW_SECONDS } from './write-fingerprint.js';

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

/** An absent value (null, or empty text) is an unset optional field: the API's null. */
const present = (s: string | null) => s || undefined;

/**
 * A profile row as the message, in the audience's form — the one mapping of a profile out of the
 * service. A value the person does not have is an unset field, never empty text.
 */
export function toProfile(row: ProfileRow, audience: ProfileAudience): Profile {
  const internal = audience === 'operator';
  return {
    id: row.id,
    userId: present(row.user_id),
    placeholderUserId: internal ? present(row.placeholder_user_id) : undefined,
    public: row.public,
    name: row.name,
    headline: present(row.headline),
    bio: present(row.bio),
    organization: present(row.organization),
    location: present(row.location),
    email: internal ? present(row.email) : undefined,
    linkedinUrl: present(row.linkedin_url),
    orcid: present(row.orcid),
    avatarUrl: present(row.avatar_url),
  };
}

/** A profile message as the row it writes — the one mapping of a profile into the service. An unset (or empty) field is null. */
export function profileRow(p: Profile): ProfileRow {
  return {
    id: p.id,
    user_id: p.userId || null,
    placeholder_user_id: p.placeholderUserId || null,
    public: p.public,
    name: p.name,
    headline: p.headline || null,
    bio: p.bio || null,
    organization: p.organization || null,
    location: p.location || null,
    email: p.email || null,
    linkedin_url: p.linkedinUrl || null,
    orcid: p.orcid || null,
    avatar_url: p.avatarUrl || null,
  };
}

export function toMembership(row: MembershipRow): Membership {
  return Membership.fromPartial({
    communityId: row.community_id,
    profileId: row.profile_id,
    role: roles.toEnum(row.role),
    joinedAt: row.joined_at.toISOString(),
    sourceIdentifier: row.source_identifier,
  });
}

/** A member row: the profile with the membership's role, join time, source and what the community supplied. */
export type MemberRow = ProfileRow & { role: RoleName; joined_at: Date; supplied: Supplied | null; source_identifier?: string };

/**
 * A member of a community: the profile as this community sees it (member-view.ts), in the
 * audience's form, with its membership. The community's source identifier goes to operators and
 * services only.
 */
export function toMember(row: MemberRow, communityId: string, audience: ProfileAudience): Member {
  return Member.fromPartial({
    profile: toProfile(asCommunitySees(row, row.supplied), audience),
    membership: {
      communityId,
      profileId: row.id,
      role: roles.toEnum(row.role),
      joinedAt: row.joined_at.toISOString(),
      ...(audience === 'operator' ? { sourceIdentifier: row.source_identifier } : {}),
    },
  });
}

const CONSENT_STATUS: Record<ConsentStatusName, ConsentStatus> = {
  pending: ConsentStatus.CONSENT_STATUS_PENDING,
  approved: ConsentStatus.CONSENT_STATUS_APPROVED,
  denied: ConsentStatus.CONSENT_STATUS_DENIED,
};

/** A consent status of a request; undefined for CONSENT_STATUS_UNSPECIFIED or an unknown value. */
export function consentStatusName(status: ConsentStatus): ConsentStatusName | undefined {
  return (Object.keys(CONSENT_STATUS) as ConsentStatusName[]).find((s) => CONSENT_STATUS[s] === status);
}

export function toConsentRequest(row: ConsentRequestRow): ConsentRequest {
  return ConsentRequest.fromPartial({
    id: row.id,
    communityId: row.community_id,
    operation: row.operation,
    status: CONSENT_STATUS[row.status],
    createdAt: row.created_at.toISOString(),
    requestedBy: row.requested_by,
    resolvedAt: row.resolved_at?.toISOString(),
    resolvedBy: row.resolved_by ?? '',
    resolvedByName: row.resolved_by_name,
    attestationVersion: row.attestation_version ?? 0,
    description: row.description,
    approvalExpiresAt: row.status === 'approved' && row.fingerprint && row.resolved_at && !row.used_at
      ? new Date(row.resolved_at.getTime() + APPROVAL_WINDOW_SECONDS * 1000).toISOString()
      : undefined,
    approvalUsedAt: row.used_at?.toISOString(),
  });
}
