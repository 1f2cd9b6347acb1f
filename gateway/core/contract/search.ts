// Expert search: POST /v1/search starts a job and waits up to wait_seconds for it; a job still
// running is handed back as 202 and polled at GET /v1/search/{search_id}.
import { z } from 'zod';
import {
  SEARCH_LIMIT_DEFAULT,
  SEARCH_LIMIT_MAX,
  SEARCH_QUERY_MAX,
  WAIT_SECONDS_DEFAULT,
  WAIT_SECONDS_MAX,
} from '../../../services/kit/search-limits.js';
import { communityId, defineEndpoint, Id, text } from './schemas.js';

export { SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX, WAIT_SECONDS_DEFAULT, WAIT_SECONDS_MAX };

export const SearchScope = z
  .enum(['community', 'all', 'public'])
  .describe(
    '`community`: one community (needs `community_id`), no public profiles. `all`: every community the key may read plus public claimed profiles. `public`: public claimed profiles only.',
  );

export const SearchRequest = z
  .strictObject({
    query: text().trim().min(1).max(SEARCH_QUERY_MAX).describe(`Free-text description of the expertise sought (1–${SEARCH_QUERY_MAX} characters).`),
    scope: SearchScope,
    community_id: communityId()
      .optional()
      .describe('The community to search. Required when `scope` is `community`.'),
    limit: z
      .number()
      .int()
      .min(1)
      .default(SEARCH_LIMIT_DEFAULT)
      .transform((n) => Math.min(n, SEARCH_LIMIT_MAX))
      .describe(`Maximum number of matches (default ${SEARCH_LIMIT_DEFAULT}). Larger values are accepted and treated as ${SEARCH_LIMIT_MAX}.`),
    wait_seconds: z
      .number()
      .int()
      .min(0)
      .max(WAIT_SECONDS_MAX)
      .default(WAIT_SECONDS_DEFAULT)
      .describe(`How long the call may wait for the result before answering 202 (0–${WAIT_SECONDS_MAX}, default ${WAIT_SECONDS_DEFAULT}). 0 answers 202 at once.`),
    include_teams: z
      .never({ error: 'include_teams is not available over the API' })
      .optional()
      .describe('Not available over the API: a request carrying this field, whatever its value, is refused with 400 `invalid_request`.'),
  })
  .superRefine((body, ctx) => {
    if (body.scope === 'community' && body.community_id === undefined) {
      ctx.addIssue({ code: 'custom', path: ['community_id'], message: 'community_id is required when scope is community' });
    }
  })
  .meta({
    description:
      'Search request. Unknown fields are refused. When `scope` is `community`, `community_id` is required (a community the key may not read is 403, never an empty result).',
    // The refinement above in JSON Schema terms: the scope is not `community`, or community_id is given.
    anyOf: [{ properties: { scope: { enum: ['all', 'public'] } } }, { required: ['community_id'] }],
  });
export type SearchRequestInput = z.input<typeof SearchRequest>;
export type SearchRequest = z.output<typeof SearchRequest>;

export const SearchMatch = z
  .object({
    profile_id: Id.describe('Profile id of the expert.'),
    user_id: Id.nullable().describe('User who claimed the profile; null for an unclaimed placeholder.'),
    name: z.string().describe('Display name.'),
    headline: z.string().nullable().describe('Professional headline.'),
    organization: z.string().nullable().describe('Current organization.'),
    location: z.string().nullable().describe('Location.'),
    avatar_url: z.string().nullable().describe('URL of the avatar image.'),
    score: z
      .number()
      .describe(
        'Relevance, 0 to 1, higher is better; matches come best first. It blends a BM25 score of the query\'s words in the profile ' +
          '(rarer words weigh more; name and headline above organization and location, above bio), similarity in meaning, agreement ' +
          'between the retrieval methods, name resemblance and, when the query names a place, being located there. Scores compare ' +
          'matches of one search, not across searches. On the demo data the people a searcher expects score about 0.5–0.8, partial ' +
          'matches about 0.2–0.5; `weak_match` says when a match is poor.',
      ),
    semantic_score: z.number().describe('Similarity in meaning between the query and the profile, 0 to 1.'),
    explanation: z
      .string()
      .nullable()
      .describe(
        'Why this person matches, in plain words: the words of the query found, quoted from the profile with the matching words in **bold**, ' +
          'related words found instead, a misspelled word searched as the profiles\' word ("epidemology → epidemiology"), a word found only in an ' +
          'organization\'s name, words not found, whether the person is in a place the query names, a name or organization resembling the query, ' +
          'and how good the match is ("Good match", "Partial match", "Weak match", or "Match by name resemblance"), read from the same evidence it lists.',
      ),
    shared_communities: z
      .array(Id)
      .describe('Communities the caller may read in which this person is a member; usable as `id` in the member read. Empty for scope `public`.'),
    weak_match: z
      .boolean()
      .describe(
        'True when less than a quarter of the query (weighted by field; a place the query names counts twice) is found in the profile and ' +
          'neither the name nor the organization resembles the query (a word found only in an organization\'s name counts as weak evidence): ' +
          'nothing here fits the request well. A weak match keeps its place by score.',
      ),
  })
  .describe('One expert found by a search.');

const searchId = () => Id.describe('Search job id.');
/** Path parameters of GET /v1/search/{search_id}. */
export const SearchParams = z.object({ search_id: searchId() });

const pollAfter = () => z.number().int().min(1).describe('Seconds to wait before polling again.');

export const SearchComplete = z
  .object({
    search_id: searchId(),
    status: z.literal('complete'),
    matches: z.array(SearchMatch).describe('Matches, best first.'),
    no_good_match: z
      .boolean()
      .describe(
        'True when every match is weak (`weak_match`), or none was found: nothing fits the request well, and a page or an assistant ' +
          'should say so rather than offer the matches as fits. False when at least one match is not weak.',
      ),
  })
  .describe('A finished search and its matches.');

export const SearchPending = z
  .object({
    search_id: searchId(),
    status: z.literal('pending'),
    poll_after_seconds: pollAfter(),
  })
  .describe('A search still running when `wait_seconds` ran out. Poll `GET /v1/search/{search_id}`.');

export const SearchRunning = z
  .object({
    search_id: searchId(),
    status: z.literal('running'),
    poll_after_seconds: pollAfter(),
  })
  .describe('A search that has not finished yet.');

export const SearchFailed = z
  .object({
    search_id: searchId(),
    status: z.literal('failed'),
  })
  .describe('A search that failed. It is not billed; start a new one.');

export const SearchPoll = z
  .discriminatedUnion('status', [SearchRunning, SearchComplete, SearchFailed])
  .describe('State of a search job, by `status`.');

export const startSearchEndpoint = defineEndpoint({
  method: 'POST',
  path: '/v1/search',
  operationId: 'startSearch',
  tag: 'Search',
  summary: 'Search for experts',
  description:
    'Runs an expert search and waits up to `wait_seconds` for it. A finished search answers 200 with its matches; otherwise the answer is 202 with a job to poll. A search can take a minute or more. The search is billed once its result is stored, whether that happens during this call or while polling; failed or refused searches are not billed.',
  scope: 'search:read',
  mcpTools: ['search_experts'],
  body: { schema: SearchRequest, required: true },
  success: {
    200: { description: 'The search finished within `wait_seconds`.', body: SearchComplete },
    202: { description: 'The search is still running; poll the `Location`.', body: SearchPending },
  },
  errors: {
    400: {
      description: 'The body is unreadable (`bad_request`) or breaks a rule (`invalid_request`): a missing or invalid field, an unknown field, `include_teams`, or a missing `community_id` for scope `community`.',
    },
    402: { description: 'Credit enforcement is armed and the payer cannot cover the search. The body names the payer.' },
    403: { description: 'The credential lacks `search:read`, or `community_id` is a community the key may not read (including archived ones).' },
    413: { description: 'The body is larger than 1 MiB.' },
    422: {
      description: 'Scope `all` with no readable community (none, or an allowlist narrowed them to none): nothing is searched and there is no fallback to public profiles.',
      codes: ['unprocessable'],
    },
    502: { description: 'The search backend is unavailable.' },
  },
});

export const getSearchEndpoint = defineEndpoint({
  method: 'GET',
  path: '/v1/search/{search_id}',
  operationId: 'getSearch',
  tag: 'Search',
  summary: 'Poll a search job',
  description:
    'Returns the state of a search started by the same key: `running`, `complete` with its matches, or `failed`. Jobs expire some time after finishing.',
  scope: 'search:read',
  mcpTools: ['get_search'],
  params: SearchParams,
  success: { 200: { description: 'The state of the search.', body: SearchPoll } },
  errors: {
    403: { description: 'The credential lacks `search:read`.' },
    404: { description: 'No such search for this key: unknown, started by another key, or expired.' },
    502: { description: 'The search backend is unavailable.' },
  },
});

export const searchEndpoints = [startSearchEndpoint, getSearchEndpoint];
