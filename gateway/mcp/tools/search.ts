// search_experts and get_search: POST /v1/search and GET /v1/search/{search_id}. The tool's
// arguments are the REST body itself, so every rule of the body (include_teams included) refuses
// the same call on both surfaces, plus how the answer is shown (detail, include_weak:
// search-view.ts), which never reaches the search.
import { z } from 'zod';
import {
  getSearchEndpoint,
  SEARCH_LIMIT_DEFAULT,
  SEARCH_LIMIT_MAX,
  SearchParams,
  SearchRequest,
  startSearchEndpoint,
  WAIT_SECONDS_DEFAULT,
  WAIT_SECONDS_MAX,
} from '../../core/contract/search.js';
import type { Edge } from '../../core/edge.js';
import { ApiError } from '../../core/api-error.js';
import { getSearch, startSearch } from '../../core/search.js';
import { defineTool, READ_ONLY, type ToolArgs, type ToolSpec } from '../tool-spec.js';
import { COMPACT_LIMIT_DEFAULT, presentationArgs, presentationOf, presentSearch, withoutPresentation } from './search-view.js';

/** The body's fields a caller may use: include_teams is refused whatever its value, so it is not advertised. */
const { include_teams: _refused, limit: _limit, wait_seconds: _wait, ...bodyArgs } = SearchRequest.shape;

/** `limit` counts the matches shown. Advertised without REST's default (20); its rules are the body's, which validates it. */
const limitArg = z
  .number()
  .int()
  .min(1)
  .optional()
  .describe(`Matches to show (default ${COMPACT_LIMIT_DEFAULT}; with detail full ${SEARCH_LIMIT_DEFAULT}, as REST). Over ${SEARCH_LIMIT_MAX} counts as ${SEARCH_LIMIT_MAX}.`);
/** `wait_seconds` in a tool's words (REST's speaks of 202); its rules are the body's. */
const waitArg = z
  .number()
  .int()
  .min(0)
  .max(WAIT_SECONDS_MAX)
  .optional()
  .describe(`Seconds to wait for the result (0–${WAIT_SECONDS_MAX}, default ${WAIT_SECONDS_DEFAULT}); after that the answer is status pending with a search_id.`);

/**
 * The REST body of a search_experts call. A compact result leaves weak matches out, and weak ones
 * keep their place by score, so the search itself is asked for at least REST's default number of
 * matches to fill `limit` with good ones; a full result asks for exactly what the caller asked.
 * A `limit` the body refuses is passed on as it came, to be refused with the body's message.
 */
function searchBody(args: ToolArgs): ToolArgs {
  const body = withoutPresentation(args);
  if (args.detail === 'full') return body;
  const limit = body.limit;
  if (limit !== undefined && !(typeof limit === 'number' && Number.isInteger(limit) && limit >= 1)) return body;
  return { ...body, limit: Math.max(limit ?? 0, SEARCH_LIMIT_DEFAULT) };
}

/** get_search's `limit`: shown matches only (the search ran with its own); over the maximum counts as it, as search_experts's. */
const pollLimit = z.number().int().min(1).optional().describe(`Matches to show (default ${COMPACT_LIMIT_DEFAULT}; over ${SEARCH_LIMIT_MAX} counts as ${SEARCH_LIMIT_MAX}).`);

export function searchTools(edge: Edge): ToolSpec[] {
  return [
    defineTool({
      name: 'search_experts',
      title: 'Search for experts',
      description:
        'Finds experts matching a free-text query. Pick scope `community` with community_id to search one community (ids from list_communities), `all` for every community you may read plus public profiles, `public` for public profiles only. ' +
        `Waits up to wait_seconds (default 20): a finished search answers status complete with matches, best first; otherwise status pending with a search_id to poll with get_search. ` +
        `By default the answer is compact: the ${COMPACT_LIMIT_DEFAULT} best matches that are not weak, each with profile_id, name, headline, organization, location, score (0–1) and a one-line \`why\`; weak matches (little of the query found) are only counted in weak_matches_left_out, and no_good_match: true says that every match is weak (nothing fits the request well: say so rather than offer them as fits). ` +
        'Ask for more with limit, include_weak: true, or detail: "full" (every field and the whole explanation). ' +
        'Needs scope search:read. Each call is billed once its result is stored (failed or refused searches are not), so poll with get_search rather than searching again.',
      endpoint: () => startSearchEndpoint,
      input: { ...bodyArgs, wait_seconds: waitArg, limit: limitArg, ...presentationArgs },
      request: (args) => ({ body: searchBody(args) }),
      // Each call starts (and bills) a new search.
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false, title: 'Search for experts' },
      run: (ctx, { body }) => startSearch(edge, ctx, body),
      present: (body, args) => presentSearch(body as { status: string }, presentationOf(args)),
    }),
    defineTool({
      name: 'get_search',
      title: 'Poll a search',
      description:
        'Reports a search started by this credential with search_experts: status running (poll again after poll_after_seconds), complete with its matches (compact as search_experts shows them; limit, include_weak and detail alike), or failed (not billed; start a new one). ' +
        'Fails with not_found for a search of another credential, an unknown id, or one that expired (an hour after finishing). Needs scope search:read. Not billed.',
      endpoint: () => getSearchEndpoint,
      input: { search_id: SearchParams.shape.search_id, limit: pollLimit, ...presentationArgs },
      request: (args) => {
        const { search_id, limit } = withoutPresentation(args);
        const parsed = pollLimit.safeParse(limit);
        if (!parsed.success) throw new ApiError(400, 'invalid_request', `limit: ${parsed.error.issues[0]!.message}`);
        return { params: { search_id } };
      },
      annotations: { ...READ_ONLY, title: 'Poll a search' },
      run: (ctx, { params }) => getSearch(edge, ctx, params.search_id),
      present: (body, args) => presentSearch(body as { status: string }, presentationOf(args)),
    }),
  ];
}
