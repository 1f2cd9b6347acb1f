// Discovery: the communities a credential reaches (GET /v1/communities) and the recent enrichment
// runs of a community or of the caller (GET /v1/communities/{id}/enrich/runs, GET
// /v1/me/enrich/runs), so that ids never have to be known in advance. Keyset pages like the roster.
import { z } from 'zod';
import { EnrichmentRun } from './enrichment.js';
import { CommunityParams } from './members.js';
import { communityId, Cursor, defineEndpoint, MembershipRole, Timestamp } from './schemas.js';

export const COMMUNITIES_LIMIT_DEFAULT = 50;
export const COMMUNITIES_LIMIT_MAX = 200;
export const RUNS_LIMIT_DEFAULT = 20;
export const RUNS_LIMIT_MAX = 100;

/** `limit` and `after` of a discovery list; a larger `limit` is served as the maximum, like the roster's. */
export function listQuery(fallback: number, max: number, what: string) {
  return z.object({
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .default(fallback)
      .transform((n) => Math.min(n, max))
      .describe(`Page size (default ${fallback}). Larger values are accepted and treated as ${max}; a value below 1 is refused.`),
    after: Cursor.optional().describe(
      `Cursor from the previous page (\`next_cursor\`), passed back unchanged; omit it for the first page. A cursor of another list (${what}) or an altered one is refused with 400.`,
    ),
  });
}

export const CommunitiesQuery = listQuery(COMMUNITIES_LIMIT_DEFAULT, COMMUNITIES_LIMIT_MAX, 'another kind of list');
export const RunsQuery = listQuery(RUNS_LIMIT_DEFAULT, RUNS_LIMIT_MAX, 'another community’s runs, or the other run list');

export const CommunitySummary = z
  .object({
    community_id: communityId(),
    name: z.string().describe('Display name of the community.'),
    role: MembershipRole.nullable().describe(
      "The caller's membership role; null when the credential reaches the community without being a member (its owner, an admin of the owning organization, or a legacy organization key).",
    ),
    write_access: z
      .boolean()
      .describe('Whether the credential may write to the community (add or erase members, start enrichment runs), scope permitting.'),
    api_writes_enabled: z
      .boolean()
      .describe('Whether the billing owner has enabled writes through the API; while false, writes answer 422 (`unprocessable` or `owner_consent_required`).'),
    member_count: z.number().int().min(0).describe('Members of the community.'),
    created_at: Timestamp.describe('When the community was created.'),
  })
  .describe('A community the credential reaches.');

export const CommunityPage = z
  .object({
    communities: z.array(CommunitySummary).describe('Communities of this page, in id order.'),
    next_cursor: Cursor.nullable().describe('Pass as `after` for the next page. Null only when the list is exhausted.'),
  })
  .describe('One page of the communities the credential reaches.');

export const RunPage = z
  .object({
    runs: z.array(EnrichmentRun).describe('Runs of this page, newest first. Poll one for its people.'),
    next_cursor: Cursor.nullable().describe('Pass as `after` for the next page. Null only when the list is exhausted.'),
  })
  .describe('One page of enrichment runs, newest first.');

export const listCommunitiesEndpoint = defineEndpoint({
  method: 'GET',
  path: '/v1/communities',
  operationId: 'listCommunities',
  tag: 'Communities',
  summary: 'List the communities the credential reaches',
  description:
    'Returns one page of the communities this credential may read — the same live reach every other endpoint applies: communities the user belongs to, owns or manages through an organization (a legacy organization key: its organization’s), never archived ones, narrowed by the key’s allowlist — in id order, each with the caller’s role, write access, API-write setting and member count. Use the ids with search (`scope: community`), the roster and enrichment. Follow `next_cursor` until it is null. Any valid credential may call it.',
  scope: null,
  mcpTools: ['list_communities'],
  query: CommunitiesQuery,
  success: { 200: { description: 'A page of communities (empty when the credential reaches none).', body: CommunityPage } },
  errors: {
    400: { description: '`limit` below 1 or not a whole number, or `after` is not a cursor of this list.', codes: ['invalid_request'] },
  },
});

export const listCommunityEnrichmentRunsEndpoint = defineEndpoint({
  method: 'GET',
  path: '/v1/communities/{id}/enrich/runs',
  operationId: 'listCommunityEnrichmentRuns',
  tag: 'Enrichment',
  summary: 'List recent community enrichment runs',
  description:
    'Returns one page of this community’s enrichment runs, newest first, each as its poll shows it without its people. Follow `next_cursor` until it is null.',
  scope: 'enrich:read',
  mcpTools: ['list_enrichment_runs'],
  params: CommunityParams,
  query: RunsQuery,
  success: { 200: { description: 'A page of runs (empty when the community has none).', body: RunPage } },
  errors: {
    400: { description: '`limit` below 1 or not a whole number, or `after` is not a cursor of this community’s run list.', codes: ['invalid_request'] },
    403: { description: 'The credential lacks `enrich:read`, or the community is outside its read reach (archived, outside the allowlist, foreign or unknown; never 404).' },
  },
});

export const listSelfEnrichmentRunsEndpoint = defineEndpoint({
  method: 'GET',
  path: '/v1/me/enrich/runs',
  operationId: 'listSelfEnrichmentRuns',
  tag: 'Enrichment',
  summary: "List the caller's recent self-enrichment runs",
  description:
    "Returns one page of the self-enrichment runs of the user behind the credential, newest first, each as its poll shows it without its people. A legacy organization key has none. Follow `next_cursor` until it is null.",
  scope: 'self:enrich',
  mcpTools: ['list_enrichment_runs'],
  query: RunsQuery,
  success: { 200: { description: 'A page of runs (empty when there are none).', body: RunPage } },
  errors: {
    400: { description: '`limit` below 1 or not a whole number, or `after` is not a cursor of this run list.', codes: ['invalid_request'] },
    403: { description: 'The credential lacks `self:enrich`.' },
  },
});

export const discoveryEndpoints = [listCommunitiesEndpoint, listCommunityEnrichmentRunsEndpoint, listSelfEnrichmentRunsEndpoint];
