// The roster tools: GET, POST /v1/communities/{id}/members, GET and DELETE …/members/{profile_id}.
import {
  AddMembersRequest,
  addCommunityMembersEndpoint,
  eraseCommunityMemberEndpoint,
  getCommunityMemberEndpoint,
  listCommunityMembersEndpoint,
  RosterQuery,
} from '../../core/contract/members.js';
import type { Edge } from '../../core/edge.js';
import { getMember, listMembers } from '../../core/members-read.js';
import { addMembers, eraseMember } from '../../core/members-write.js';
import { defineTool, READ_ONLY, type ToolArgs, type ToolSpec } from '../tool-spec.js';
import { communityIdArg, profileIdArg } from './arguments.js';

/** The path of a member read or erasure. */
const memberPath = ({ community_id, profile_id }: ToolArgs) => ({ params: { id: community_id, profile_id } });

export function memberTools(edge: Edge, withIdempotency: boolean): ToolSpec[] {
  return [
    defineTool({
      name: 'list_community_members',
      title: 'List community members',
      description:
        'Returns one page of a community roster (name, headline, organization, role, join time of each member), in a stable order. ' +
        'To read the whole roster, call again with `after` set to the `next_cursor` of the previous page until `next_cursor` is null. ' +
        'Needs scope profile:read and a community within the credential’s reach (otherwise forbidden).',
      endpoint: () => listCommunityMembersEndpoint,
      input: { community_id: communityIdArg, ...RosterQuery.shape },
      request: ({ community_id, ...query }) => ({ params: { id: community_id }, query }),
      annotations: { ...READ_ONLY, title: 'List community members' },
      run: (ctx, { params, query }) => listMembers(edge, ctx, params.id, query),
    }),
    defineTool({
      name: 'get_community_member',
      title: 'Read one community member',
      description:
        'Returns the full profile of one member of a community (bio, links, role, join time) with the enrichment data this community holds about them (null when none). ' +
        'Needs scope profile:read. Fails with not_found when the person is not a member.',
      endpoint: () => getCommunityMemberEndpoint,
      input: { community_id: communityIdArg, profile_id: profileIdArg },
      request: memberPath,
      annotations: { ...READ_ONLY, title: 'Read one community member' },
      run: (ctx, { params }) => getMember(edge, ctx, params.id, params.profile_id),
    }),
    defineTool({
      name: 'add_community_members',
      title: 'Add people to a community',
      description:
        'Adds 1–100 people to a community the credential may write to, creating placeholder profiles where needed. Identify each person by email, linkedin_url, orcid or name: an existing person is matched by email, then LinkedIn URL, then ORCID iD; a name alone matches a member of that name or makes a new placeholder. ' +
        'Each item gets its own result (added, already_member or rejected with a reason): the call is not all-or-nothing. ' +
        'Needs scope member:write; communities whose API writes are not enabled answer unprocessable or owner_consent_required.' +
        (withIdempotency
          ? ' Pass an `idempotency_key` to make a retry safe: the same key with the same arguments within 48 hours returns the first result instead of adding again.'
          : ''),
      endpoint: () => addCommunityMembersEndpoint,
      input: { community_id: communityIdArg, ...AddMembersRequest.shape },
      request: ({ community_id, ...body }) => ({ params: { id: community_id }, body }),
      // Not idempotent: a repeat answers already_member where the first call answered added.
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false, title: 'Add people to a community' },
      run: (ctx, { params, body }) => addMembers(edge, ctx, params.id, body),
    }),
    defineTool({
      name: 'remove_community_member',
      title: 'Erase a member from a community',
      description:
        "Erases one person from a community (a data-subject erasure): removes the membership, this community's enrichment data and search embeddings about them, and the community's identifier for them. This cannot be undone. " +
        'A claimed account is never deleted. Needs scope member:write. Fails with not_found when the person is not a member.',
      endpoint: () => eraseCommunityMemberEndpoint,
      input: { community_id: communityIdArg, profile_id: profileIdArg },
      request: memberPath,
      // Repeating it changes nothing more (the second call answers not_found).
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false, title: 'Erase a member from a community' },
      run: (ctx, { params }) => eraseMember(edge, ctx, params.id, params.profile_id),
    }),
  ];
}
