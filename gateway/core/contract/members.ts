// Community rosters: list (keyset pages), read one enriched member, add members in bulk, and
// community-scoped erasure of a member.
import { z } from 'zod';
import {
  communityId,
  Cursor,
  defineEndpoint,
  IdempotencyKey,
  MemberEnrichment,
  MembershipRole,
  profileFields,
  profileId,
  storableText,
  text,
  Timestamp,
} from './schemas.js';

export const ROSTER_LIMIT_DEFAULT = 50;
export const ROSTER_LIMIT_MAX = 200;
export const ADD_MEMBERS_MAX = 100;

export const CommunityParams = z.object({ id: communityId() });
export const MemberParams = z.object({ id: communityId(), profile_id: profileId() });

/** Query strings arrive as text: `limit` is coerced to an integer. */
export const RosterQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .default(ROSTER_LIMIT_DEFAULT)
    // Like search's limit: a larger page size is not an error, the maximum is served.
    .transform((n) => Math.min(n, ROSTER_LIMIT_MAX))
    .describe(
      `Page size (default ${ROSTER_LIMIT_DEFAULT}). Larger values are accepted and treated as ${ROSTER_LIMIT_MAX}; a value below 1 is refused.`,
    ),
  after: Cursor.optional().describe(
    'Cursor from the previous page (`next_cursor`), passed back unchanged; omit it for the first page. A cursor is tied to its community: an altered cursor, or one of another community, is refused with 400.',
  ),
});

const membershipFields = {
  role: MembershipRole,
  joined_at: Timestamp.describe('When the person joined the community.'),
};

const { profile_id, user_id, name, headline, organization, location, avatar_url } = profileFields;

/** A roster item: the fields of a search match plus the membership; the full record is the member read. */
export const RosterMember = z
  .object({
    profile_id,
    user_id,
    name,
    headline,
    organization,
    location,
    avatar_url,
    ...membershipFields,
    enriched_at: Timestamp.nullable().describe(
      "When this community's enrichment data about the person was produced; null when there is none.",
    ),
  })
  .describe('One member of a community roster.');

export const RosterPage = z
  .object({
    members: z.array(RosterMember).describe('Members of this page.'),
    next_cursor: Cursor.nullable().describe('Pass as `after` for the next page. Null only when the roster is exhausted.'),
  })
  .describe('One page of a community roster.');

export const CommunityMember = z
  .object({
    ...profileFields,
    ...membershipFields,
    enrichment: MemberEnrichment.nullable().describe("This community's enrichment data for the person; null when never enriched here."),
  })
  .describe('One member of a community, with the enrichment data of that community.');

const IDENTIFIERS = ['email', 'linkedin_url', 'orcid', 'name'] as const;

export const AddMemberItem = z
  .strictObject({
    email: z.email().check(storableText).optional().describe('Email address of the person (matched case-insensitively).'),
    linkedin_url: z
      .url()
      .check(storableText)
      .optional()
      .describe(
        'LinkedIn profile URL of the person (`https://www.linkedin.com/in/<name>`; scheme, `www.`, letter case, a trailing slash and a query do not matter). A URL that is not a LinkedIn profile rejects the item.',
      ),
    orcid: text()
      .regex(/^(?:https?:\/\/(?:www\.)?orcid\.org\/)?\d{4}-?\d{4}-?\d{4}-?\d{3}[\dXx]$/)
      .optional()
      .describe(
        'ORCID iD of the person, bare (`0000-0002-1825-0097`) or as its URL (`https://orcid.org/0000-0002-1825-0097`). An iD whose check character (ISO 7064 MOD 11-2) does not match rejects the item.',
      ),
    name: text().trim().min(1).optional().describe('Name of the person.'),
    headline: text().optional().describe('Seed headline for a new profile.'),
    bio: text().optional().describe('Seed biography for a new profile.'),
    organization: text().optional().describe('Seed organization for a new profile.'),
    location: text().optional().describe('Seed location for a new profile.'),
  })
  .superRefine((item, ctx) => {
    const given = IDENTIFIERS.filter((field) => item[field] !== undefined);
    if (given.length === 0) {
      ctx.addIssue({ code: 'custom', message: `give at least one of ${IDENTIFIERS.join(', ')}` });
    }
  })
  .meta({
    description:
      'A person to add, identified by at least one of `email`, `linkedin_url`, `orcid` or `name` (an existing person is matched by email, then LinkedIn URL, then ORCID iD; an item with a name alone matches a member of this community of that name, letter case and spacing aside, and otherwise makes a new placeholder), optionally with seed fields for a new profile. An item that breaks these rules is answered `rejected` with the reason; the other items are still added.',
    anyOf: IDENTIFIERS.map((field) => ({ required: [field] })),
  });

/** An item that broke AddMemberItem: it is answered `rejected` with this reason, in its place. */
export class RejectedItem {
  constructor(readonly reason: string) {}
}

/** Why an item was rejected: each problem with its field path inside the item. */
function rejectionReason(issues: readonly z.core.$ZodIssue[]): string {
  return issues.map((i) => (i.path.length > 0 ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
}

/**
 * One position of the `members` array, validated on its own: a malformed or empty item becomes a
 * RejectedItem instead of failing the whole request, so a bulk add is never all-or-nothing. The
 * documents (OpenAPI, MCP) still show AddMemberItem. Without a parse context (a JSON Schema
 * conversion asking for a default) the fallback is undefined, so no default is published.
 */
const AddMemberSlot = AddMemberItem.catch(((ctx?: { error: z.core.$ZodError }) =>
  ctx ? new RejectedItem(rejectionReason(ctx.error.issues)) : undefined) as never) as unknown as z.ZodType<
  z.output<typeof AddMemberItem> | RejectedItem,
  z.input<typeof AddMemberItem>
>;

export const AddMembersRequest = z
  .strictObject({
    members: z
      .array(AddMemberSlot)
      .min(1)
      .max(ADD_MEMBERS_MAX)
      .describe(`People to add, 1–${ADD_MEMBERS_MAX} per request. Each item is checked on its own: a malformed or empty item is a \`rejected\` result, not a refusal of the request.`),
    role: z
      .enum(['member', 'admin'])
      .default('member')
      .describe('Role granted to every person of the request (default `member`). `owner` cannot be granted through the API.'),
  })
  .describe('Bulk add request. Unknown fields are refused.');

export const AddMemberResult = z
  .object({
    index: z.number().int().min(0).describe('Position of the item in the request.'),
    status: z
      .enum(['added', 'already_member', 'rejected'])
      .describe('`added`: now a member. `already_member`: nothing changed. `rejected`: see `error`.'),
    profile_id: profileId().nullable().describe('Profile of the person; null when the item was rejected.'),
    error: z
      .object({
        code: z.string().describe('Error code, as in the error envelope.'),
        message: z.string().describe('Human-readable explanation.'),
      })
      .nullable()
      .describe('Why the item was rejected; null otherwise.'),
  })
  .describe('Outcome of one item of a bulk add.');

export const AddMembersResponse = z
  .object({ results: z.array(AddMemberResult).describe('One result per request item, in request order.') })
  .describe('Per-item outcomes. A bulk add is never all-or-nothing: some items may be rejected while others are added.');

export const ErasureResult = z
  .object({
    community_id: communityId(),
    profile_id: profileId(),
    erased: z.literal(true).describe('The membership and this community’s data about the person are gone.'),
    auth_account_deleted: z
      .boolean()
      .describe('Whether the auth account of an unclaimed placeholder was removed as well. False does not mean the erasure is incomplete.'),
  })
  .describe('Outcome of a community-scoped erasure.');

const IdempotencyHeaders = z.object({ 'idempotency-key': IdempotencyKey.optional() });

const READ_FORBIDDEN =
  'The credential lacks `profile:read`, or the community is outside its read reach: not one the key’s user belongs to or manages through the owning organization (for a legacy organization key: not owned by its organization), outside its allowlist, archived, or unknown (never 404).';
const WRITE_FORBIDDEN =
  'The credential lacks `member:write`, the community is outside its reach or archived, or the key is neither owned by the community’s billing owner nor (for a personal key) held by a community admin.';
const WRITE_UNPROCESSABLE =
  'Writes through the API are not enabled for this community (`unprocessable`), or they need the owner’s consent, which has now been requested (`owner_consent_required`; retry once approved).';

export const listCommunityMembersEndpoint = defineEndpoint({
  method: 'GET',
  path: '/v1/communities/{id}/members',
  operationId: 'listCommunityMembers',
  tag: 'Members',
  summary: 'List community members',
  description:
    'Returns one page of the roster in a stable keyset order (by join time, then profile id). Follow `next_cursor` until it is null; that is the only end-of-roster signal. Members added or erased between calls never make a page skip or repeat someone who was a member throughout.',
  scope: 'profile:read',
  mcpTools: ['list_community_members'],
  params: CommunityParams,
  query: RosterQuery,
  success: { 200: { description: 'A page of members.', body: RosterPage } },
  errors: {
    400: {
      description: 'A parameter is invalid: `limit` below 1 or not a whole number, or `after` is not a cursor this roster issued for this community.',
      codes: ['invalid_request'],
    },
    403: { description: READ_FORBIDDEN },
  },
});

export const getCommunityMemberEndpoint = defineEndpoint({
  method: 'GET',
  path: '/v1/communities/{id}/members/{profile_id}',
  operationId: 'getCommunityMember',
  tag: 'Members',
  summary: 'Read one community member',
  description: 'Returns one member of the community with the enrichment data this community holds about them.',
  scope: 'profile:read',
  mcpTools: ['get_community_member'],
  params: MemberParams,
  success: { 200: { description: 'The member.', body: CommunityMember } },
  errors: {
    403: { description: READ_FORBIDDEN },
    404: { description: 'The person is not a member of this community.' },
  },
});

export const addCommunityMembersEndpoint = defineEndpoint({
  method: 'POST',
  path: '/v1/communities/{id}/members',
  operationId: 'addCommunityMembers',
  tag: 'Members',
  summary: 'Add members in bulk',
  description:
    'Adds up to 100 people to a community the caller controls, creating placeholder profiles where needed. Each item gets its own result. Honors `Idempotency-Key`.',
  scope: 'member:write',
  mcpTools: ['add_community_members'],
  params: CommunityParams,
  headers: IdempotencyHeaders,
  idempotent: true,
  body: { schema: AddMembersRequest, required: true },
  success: { 200: { description: 'Per-item results.', body: AddMembersResponse } },
  errors: {
    400: {
      description:
        'The body is unreadable (`bad_request`) or breaks a request-level rule (`invalid_request`): `members` missing, empty or longer than 100, role `owner`, an unknown top-level field, or an invalid `Idempotency-Key`. Nothing is added. A malformed item is not a 400: it is a `rejected` result.',
    },
    403: { description: WRITE_FORBIDDEN },
    409: { description: 'A call with the same `Idempotency-Key` is still in progress; retry after `Retry-After`.' },
    413: { description: 'The body is larger than 1 MiB.' },
    422: { description: `${WRITE_UNPROCESSABLE} Also: the \`Idempotency-Key\` was already used with a different body (\`unprocessable\`).` },
  },
});

export const eraseCommunityMemberEndpoint = defineEndpoint({
  method: 'DELETE',
  path: '/v1/communities/{id}/members/{profile_id}',
  operationId: 'eraseCommunityMember',
  tag: 'Members',
  summary: 'Erase a member from a community',
  description:
    "Community-scoped erasure (data subject request): removes the membership, this community's enrichment data and search embeddings for the person, and the community's own identifier for them. A claimed account is never deleted; the auth account of an unclaimed placeholder that belongs to no other community is removed on a best-effort basis. `Idempotency-Key` is ignored.",
  scope: 'member:write',
  mcpTools: ['remove_community_member'],
  params: MemberParams,
  success: { 200: { description: 'The person is erased from the community.', body: ErasureResult } },
  errors: {
    403: { description: WRITE_FORBIDDEN },
    404: { description: 'The person is not a member of this community.' },
    422: { description: WRITE_UNPROCESSABLE },
  },
});

export const memberEndpoints = [listCommunityMembersEndpoint, getCommunityMemberEndpoint, addCommunityMembersEndpoint, eraseCommunityMemberEndpoint];
