// Member writes for the REST and MCP surfaces: bulk add (per-item results) and community-scoped
// erasure, calling the communities service as the caller and mapping its answers to the JSON
// shapes docs/API-DECISIONS.md fixes. Write gating and every rule live in the service.
import { AddMemberStatus, type AddMemberItem, type RemoveMemberResponse } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { roles } from '../../services/kit/enums.js';
import type { z } from 'zod';
import { RejectedItem, type AddMemberResult, type AddMembersResponse, type ErasureResult } from './contract/members.js';
import { fromRemote } from './api-error.js';
import type { CallerContext, Edge } from './edge.js';

export interface AddMemberItemInput {
  email?: string;
  linkedin_url?: string;
  orcid?: string;
  name?: string;
  headline?: string;
  bio?: string;
  organization?: string;
  location?: string;
}

export interface AddMembersInput {
  /** Items as the request schema left them: valid, or rejected with the reason (answered in their place). */
  members: Array<AddMemberItemInput | RejectedItem>;
  role: 'member' | 'admin';
}

export type AddMemberResultView = z.output<typeof AddMemberResult>;
export type AddMembersView = z.output<typeof AddMembersResponse>;
export type ErasureView = z.output<typeof ErasureResult>;

const STATUS: Partial<Record<AddMemberStatus, AddMemberResultView['status']>> = {
  [AddMemberStatus.ADD_MEMBER_STATUS_ADDED]: 'added',
  [AddMemberStatus.ADD_MEMBER_STATUS_ALREADY_MEMBER]: 'already_member',
  [AddMemberStatus.ADD_MEMBER_STATUS_REJECTED]: 'rejected',
};

const EMPTY_ITEM: AddMemberItem = { email: '', linkedinUrl: '', orcid: '', name: '', headline: '', bio: '', organization: '', location: '', rejectedReason: '' };

/** An item as the service takes it; a rejected one carries only its reason, answered in its place. */
function toItemMessage(m: AddMemberItemInput | RejectedItem): AddMemberItem {
  if (m instanceof RejectedItem) return { ...EMPTY_ITEM, rejectedReason: m.reason };
  return {
    ...EMPTY_ITEM,
    email: m.email ?? '',
    linkedinUrl: m.linkedin_url ?? '',
    orcid: m.orcid ?? '',
    name: m.name ?? '',
    headline: m.headline ?? '',
    bio: m.bio ?? '',
    organization: m.organization ?? '',
    location: m.location ?? '',
  };
}

export async function addMembers(edge: Edge, ctx: CallerContext, communityId: string, input: AddMembersInput): Promise<AddMembersView> {
  try {
    const { results } = await edge.clients.communities.addMembers(
      {
        communityId,
        role: roles.toEnum(input.role),
        members: input.members.map(toItemMessage),
      },
      await edge.as(ctx),
    );
    return {
      results: results.map((r) => {
        const status = STATUS[r.status] ?? 'rejected';
        return {
          index: r.index,
          status,
          profile_id: r.profileId || null,
          error: status === 'rejected' ? { code: r.errorCode || 'invalid_request', message: r.errorMessage } : null,
        };
      }),
    };
  } catch (error) {
    throw fromRemote(error);
  }
}

/** An erasure's result (also the data of a member.erased event). */
export function erasureView(res: RemoveMemberResponse): ErasureView {
  return { community_id: res.communityId, profile_id: res.profileId, erased: true, auth_account_deleted: res.authAccountDeleted };
}

export async function eraseMember(edge: Edge, ctx: CallerContext, communityId: string, profileId: string): Promise<ErasureView> {
  try {
    return erasureView(await edge.clients.communities.removeMember({ communityId, profileId }, await edge.as(ctx)));
  } catch (error) {
    throw fromRemote(error);
  }
}
