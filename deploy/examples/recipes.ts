// The recorded exchanges of the OpenAPI examples, in the order they run against a fresh system
// over the demo data (deploy/admin/demo-data.ts) with the demo key (every scope): who the key is,
// the communities it reaches, rosters, searches, bulk add and erasure, enrichment and the lists of
// runs. A new endpoint needs one entry here (its
// operationId, the request, the status) and `npm run examples`; recipes.test.ts names any endpoint
// without one.
import type { Recipe } from './recipe.js';

const FINAL_RUN = (body: { status: string }) => body.status === 'succeeded' || body.status === 'failed';

export const RECIPES: readonly Recipe[] = [
  { operationId: 'getMe', name: 'demo_key', summary: 'The demo key: its owner, scopes, usage and credit balance', status: 200, request: () => ({}) },
  { operationId: 'getOwnProfile', name: 'demo_user', summary: "The demo user's own profile", status: 200, request: () => ({}) },
  {
    operationId: 'listCommunities',
    name: 'demo_key',
    summary: 'The five demo communities the demo key reaches, with its role and write access in each',
    status: 200,
    request: () => ({}),
  },
  {
    operationId: 'listCommunityMembers',
    name: 'first_page',
    summary: 'The first three members of the Applied Machine Learning Circle',
    status: 200,
    request: () => ({ params: { id: 'c_machine_learning' }, query: { limit: '3' } }),
    remember: (body, r) => void (r.cursor = body.next_cursor),
  },
  {
    operationId: 'listCommunityMembers',
    name: 'next_page',
    summary: 'The next page, after the cursor of the first',
    status: 200,
    request: (r) => ({ params: { id: 'c_machine_learning' }, query: { limit: '3', after: r.cursor! } }),
  },
  {
    operationId: 'listCommunityMembers',
    name: 'unknown_community',
    summary: 'A community the key may not read (here: none of that id) is 403, never 404 or an empty page',
    status: 403,
    request: () => ({ params: { id: 'c_does_not_exist' }, query: { limit: '3' } }),
  },
  {
    operationId: 'startSearch',
    name: 'pending',
    summary: 'Public claimed profiles; `wait_seconds: 0` answers 202 at once with a job to poll',
    status: 202,
    request: () => ({ body: { query: 'protein structure prediction', scope: 'public', limit: 5, wait_seconds: 0 } }),
    remember: (body, r) => void (r.search_id = body.search_id),
  },
  {
    operationId: 'getSearch',
    name: 'complete',
    summary: 'The polled search, complete',
    status: 200,
    request: (r) => ({ params: { search_id: r.search_id! } }),
    until: (body) => body.status !== 'running',
  },
  {
    operationId: 'startSearch',
    name: 'all_scopes',
    summary: 'Every community the key reads plus public claimed profiles, answered within `wait_seconds`',
    status: 200,
    request: () => ({ body: { query: 'epidemiologist in Nairobi', scope: 'all', limit: 3, wait_seconds: 25 } }),
  },
  {
    operationId: 'startSearch',
    name: 'one_community',
    summary: 'One community: the Climate & Earth System Science Network',
    status: 200,
    request: () => ({ body: { query: 'sea ice', scope: 'community', community_id: 'c_climate_science', limit: 3, wait_seconds: 25 } }),
  },
  {
    operationId: 'startSearch',
    name: 'include_teams',
    summary: '`include_teams` is not available over the API',
    status: 400,
    request: () => ({ body: { query: 'sea ice', scope: 'all', include_teams: true } }),
  },
  {
    operationId: 'getSearch',
    name: 'unknown',
    summary: 'A search this key did not start (or that expired)',
    status: 404,
    request: () => ({ params: { search_id: 'srch_unknown' } }),
  },
  {
    operationId: 'addCommunityMembers',
    name: 'bulk_add',
    summary: 'Two new people and one who is already a member',
    status: 200,
    request: () => ({
      params: { id: 'c_machine_learning' },
      headers: { 'idempotency-key': 'roster-import-2026-11-02' },
      body: {
        members: [
          { email: 'jordan.ellis@example.org', name: 'Jordan Ellis', headline: 'ML Engineer · speech recognition for low-resource languages' },
          { orcid: '0000-0002-1825-0097', name: 'Josiah Carberry' },
          { email: 'li.nazhou.308@example.org' },
        ],
        role: 'member',
      },
    }),
    remember: (body, r) => void (r.added = body.results[0].profile_id),
  },
  {
    operationId: 'addCommunityMembers',
    name: 'writes_not_enabled',
    summary: 'The Global Public Health Forum has not enabled writes through the API',
    status: 422,
    request: () => ({ params: { id: 'c_public_health' }, body: { members: [{ email: 'jordan.ellis@example.org' }] } }),
  },
  {
    operationId: 'eraseCommunityMember',
    name: 'erase',
    summary: 'Erases the first person just added; their placeholder account goes too',
    status: 200,
    request: (r) => ({ params: { id: 'c_machine_learning', profile_id: r.added! } }),
  },
  {
    operationId: 'eraseCommunityMember',
    name: 'not_a_member',
    summary: 'Erasing someone who is not a member',
    status: 404,
    request: (r) => ({ params: { id: 'c_machine_learning', profile_id: r.added! } }),
  },
  {
    operationId: 'listEvents',
    name: 'erasures',
    summary: 'The erasures the key may see, newest first (here: the one just made)',
    status: 200,
    request: () => ({ query: { type: 'member.erased', limit: '5' } }),
    remember: (body, r) => void (r.event_id = body.events[0].id),
  },
  {
    operationId: 'listEvents',
    name: 'unknown_type',
    summary: 'A type that is not an event type',
    status: 400,
    request: () => ({ query: { type: 'member.renamed' } }),
  },
  {
    operationId: 'getEvent',
    name: 'erasure',
    summary: 'The erasure’s event: its data is the erasure’s answer',
    status: 200,
    request: (r) => ({ params: { event_id: r.event_id! } }),
  },
  {
    operationId: 'startSelfEnrichment',
    name: 'paid_plan',
    summary: "Enriches the demo user's own profile (a paid plan: 1 credit)",
    status: 202,
    request: () => ({ body: {} }),
    remember: (body, r) => void (r.self_run = body.run_id),
  },
  {
    operationId: 'getSelfEnrichmentRun',
    name: 'finished',
    summary: 'The self-enrichment run, finished',
    status: 200,
    request: (r) => ({ params: { run_id: r.self_run! } }),
    until: FINAL_RUN,
  },
  {
    operationId: 'listSelfEnrichmentRuns',
    name: 'recent',
    summary: "The demo user's self-enrichment runs, newest first (here: the one just finished)",
    status: 200,
    request: () => ({ query: { limit: '5' } }),
  },
  {
    operationId: 'startCommunityEnrichment',
    name: 'dry_run',
    summary: 'Estimates a standard-depth run over the whole Climate & Earth System Science Network',
    status: 200,
    request: () => ({ params: { id: 'c_climate_science' }, body: { depth: 'standard', dry_run: true } }),
  },
  {
    operationId: 'startCommunityEnrichment',
    name: 'start',
    summary: 'Starts a quick-depth run over three members',
    status: 202,
    request: () => ({
      params: { id: 'c_machine_learning' },
      headers: { 'idempotency-key': 'enrich-ml-2026-11-02' },
      body: { depth: 'quick', profile_ids: ['p_0308', 'p_0309', 'p_0310'] },
    }),
    remember: (body, r) => void (r.community_run = body.run_id),
  },
  {
    operationId: 'getCommunityEnrichmentRun',
    name: 'finished',
    summary: 'The community run, finished, with its people',
    status: 200,
    request: (r) => ({ params: { id: 'c_machine_learning', run_id: r.community_run! } }),
    until: FINAL_RUN,
  },
  {
    operationId: 'listCommunityEnrichmentRuns',
    name: 'recent',
    summary: 'The runs of the Applied Machine Learning Circle, newest first, without their people',
    status: 200,
    request: () => ({ params: { id: 'c_machine_learning' }, query: { limit: '5' } }),
  },
  {
    operationId: 'listCommunityEnrichmentRuns',
    name: 'unknown_community',
    summary: 'A community outside the key\'s reach (here: none of that id) is 403, as for every community endpoint',
    status: 403,
    request: () => ({ params: { id: 'c_does_not_exist' } }),
  },
  {
    operationId: 'getCommunityMember',
    name: 'enriched',
    summary: 'A member of the Applied Machine Learning Circle, with what the run found',
    status: 200,
    request: () => ({ params: { id: 'c_machine_learning', profile_id: 'p_0308' } }),
  },
  {
    operationId: 'getCommunityMember',
    name: 'not_a_member',
    summary: 'Someone who is not a member of this community',
    status: 404,
    request: () => ({ params: { id: 'c_machine_learning', profile_id: 'p_0301' } }),
  },
  {
    operationId: 'getOpenApiDocument',
    name: 'document',
    summary: 'This document (abridged here to its first path)',
    status: 200,
    request: () => ({}),
    abridge: (doc) => {
      const [path, item] = Object.entries(doc.paths as Record<string, Record<string, { operationId: string; summary: string }>>)[0]!;
      const operations = Object.fromEntries(Object.entries(item).map(([m, op]) => [m, { operationId: op.operationId, summary: op.summary }]));
      return { openapi: doc.openapi, info: { title: doc.info.title, version: doc.info.version }, paths: { [path]: operations } };
    },
  },
];
