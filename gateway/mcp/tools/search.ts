// search_experts and get_search: POST /v1/search and GET /v1/search/{search_id}. The tool's
// arguments are the REST body itself, so every rule of the body (include_teams included) refuses
// the same call on both surfaces.
import { z } from 'zod';
import { getSearchEndpoint, SearchMatch, SearchParams, SearchRequest, startSearchEndpoint } from '../../core/contract/search.js';
import type { Edge } from '../../core/edge.js';
import { getSearch, startSearch } from '../../core/search.js';
import { defineTool, READ_ONLY, type ToolSpec } from '../tool-spec.js';

// One object per search result (MCP output schemas are objects): the REST bodies, by `status`.
const SearchStarted = z.object({
  search_id: SearchParams.shape.search_id,
  status: z.enum(['complete', 'pending']),
  matches: z.array(SearchMatch).optional().describe('Matches, best first (status complete).'),
  poll_after_seconds: z.number().int().optional().describe('Seconds to wait before get_search (status pending).'),
});
const SearchState = z.object({
  search_id: SearchParams.shape.search_id,
  status: z.enum(['running', 'complete', 'failed']),
  matches: z.array(SearchMatch).optional().describe('Matches, best first (status complete).'),
  poll_after_seconds: z.number().int().optional().describe('Seconds to wait before polling again (status running).'),
});

/** The body's fields a caller may use: include_teams is refused whatever its value, so it is not advertised. */
const { include_teams: _refused, ...searchArgs } = SearchRequest.shape;

export function searchTools(edge: Edge): ToolSpec[] {
  return [
    defineTool({
      name: 'search_experts',
      title: 'Search for experts',
      description:
        'Finds experts matching a free-text query. scope `community` searches one community (give community_id), `all` every community the credential may read plus public profiles, `public` public claimed profiles only. ' +
        'Waits up to wait_seconds (0–25, default 20): a finished search answers status complete with matches, best first (each naming the shared_communities you may read, explaining the match with quoted passages, and flagged weak_match when little of the query is found); otherwise status pending with a search_id to poll with get_search. ' +
        'Needs scope search:read. Billed once its result is stored; failed or refused searches are not billed. Same operation as REST POST /v1/search.',
      endpoint: () => startSearchEndpoint,
      input: searchArgs,
      request: (args) => ({ body: args }),
      output: SearchStarted,
      // Each call starts (and bills) a new search.
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false, title: 'Search for experts' },
      run: (ctx, { body }) => startSearch(edge, ctx, body),
    }),
    defineTool({
      name: 'get_search',
      title: 'Poll a search',
      description:
        'Reports a search started by this credential with search_experts: status running (poll again after poll_after_seconds), complete with its matches, or failed (not billed; start a new one). ' +
        'Fails with not_found for a search of another credential, an unknown id, or one that expired (an hour after finishing). Needs scope search:read. Same data as REST GET /v1/search/{search_id}.',
      endpoint: () => getSearchEndpoint,
      input: { search_id: SearchParams.shape.search_id },
      request: ({ search_id }) => ({ params: { search_id } }),
      output: SearchState,
      annotations: { ...READ_ONLY, title: 'Poll a search' },
      run: (ctx, { params }) => getSearch(edge, ctx, params.search_id),
    }),
  ];
}
