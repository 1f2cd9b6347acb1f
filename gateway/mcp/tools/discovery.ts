// The discovery tools: GET /v1/communities, and the two run lists (one tool, the community_id
// argument choosing, like get_enrichment_run).
import {
  CommunitiesQuery,
  listCommunitiesEndpoint,
  listCommunityEnrichmentRunsEndpoint,
  listSelfEnrichmentRunsEndpoint,
  RunsQuery,
} from '../../core/contract/discovery.js';
import { listCommunities, listEnrichmentRuns } from '../../core/discovery.js';
import type { Edge } from '../../core/edge.js';
import { defineTool, READ_ONLY, type ToolSpec } from '../tool-spec.js';
import { communityIdArg } from './arguments.js';

export function discoveryTools(edge: Edge): ToolSpec[] {
  return [
    defineTool({
      name: 'list_communities',
      title: 'List my communities',
      description:
        'Lists the communities this credential reaches, with their ids: name, your role (null when you reach it without being a member), write_access (whether you may add members or start enrichment there), api_writes_enabled (while false, writes fail with unprocessable or owner_consent_required) and member_count. ' +
        'Call it first to find a community_id for search_experts (scope community), list_community_members, the enrichment tools and list_enrichment_runs. Archived communities and those outside the key’s allowlist are not listed. ' +
        'When next_cursor is not null, call again with `after` set to it. Any valid credential may call it.',
      endpoint: () => listCommunitiesEndpoint,
      input: { ...CommunitiesQuery.shape },
      request: (query) => ({ query }),
      annotations: { ...READ_ONLY, title: 'List my communities' },
      run: (ctx, { query }) => listCommunities(edge, ctx, query),
    }),
    defineTool({
      name: 'list_enrichment_runs',
      title: 'List recent enrichment runs',
      description:
        'Lists recent enrichment runs, newest first, each with its status, depth, counts and credits charged (poll one with get_enrichment_run for its people). ' +
        'With community_id: the runs of that community; needs scope enrich:read and a community within reach (otherwise forbidden). ' +
        'Without community_id: your own self-enrichment runs (from enrich_my_profile); needs scope self:enrich. ' +
        'When next_cursor is not null, call again with `after` set to it.',
      endpoint: (args) => (args.community_id === undefined ? listSelfEnrichmentRunsEndpoint : listCommunityEnrichmentRunsEndpoint),
      input: {
        community_id: communityIdArg.optional().describe('The community whose runs to list; omit it for your own self-enrichment runs.'),
        ...RunsQuery.shape,
      },
      request: ({ community_id, ...query }) => ({ ...(community_id !== undefined && { params: { id: community_id } }), query }),
      annotations: { ...READ_ONLY, title: 'List recent enrichment runs' },
      run: (ctx, { params, query }) => listEnrichmentRuns(edge, ctx, params && 'id' in params ? (params.id as string) : undefined, query),
    }),
  ];
}
