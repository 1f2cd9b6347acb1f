// The MCP tools: one per REST operation (the two enrichment run polls share one tool), each calling the very same gateway/core
// use-case as its REST route, as the same caller, after the same checks in the same order
// (credential → rate limit → scope), with the same error envelope. Input schemas are the REST
// contract's zod schemas (gateway/core/contract), output schemas the REST response bodies, so the
// two surfaces cannot drift apart.
//
// Results: success → `structuredContent` = the REST body, plus the same JSON as text. Failure →
// `isError: true` and the REST error envelope `{"error": {"code", "message", "request_id", ...}}` as
// JSON text. The envelope is deliberately not put in `structuredContent`: each tool declares the
// REST body as its output schema, and MCP clients (the official SDK's included) validate
// `structuredContent` against it even on an error result.
//
// Tracing: every call runs in its own span `mcp.tool <name>` (a child of the HTTP request's span),
// carrying the tool name, the request id and the caller's key id, as REST's spans do
// (gateway/core/request-span.ts).
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { SpanStatusCode } from '@opentelemetry/api';
import { z } from 'zod';
import type { Caller } from '../../proto/gen/expertnet/common/v1/common.js';
import type { Logger } from '../../services/kit/logger.js';
import type { Scope } from '../../services/kit/scopes.js';
import { inStep } from '../../services/kit/telemetry.js';
import { ApiError, fromRemote } from '../core/api-error.js';
import type { CallerContext, Edge } from '../core/edge.js';
import { getEnrichmentRun, startCommunityEnrichment, startSelfEnrichment } from '../core/enrichment.js';
import { getMe } from '../core/me.js';
import { getMember, listMembers } from '../core/members-read.js';
import { addMembers, eraseMember } from '../core/members-write.js';
import { getOwnProfile } from '../core/profile.js';
import { getSearch, startSearch } from '../core/search.js';
import type { RateLimiter } from '../core/rate-limit/limiter.js';
import { CommunityRunStarted, DryRunEstimate, EnrichmentRequest, EnrichmentRun, EnrichmentRunPoll, RunParams, RunPollQuery } from '../core/contract/enrichment.js';
import { MeResponse, OwnProfile } from '../core/contract/me.js';
import { AddMembersRequest, AddMembersResponse, CommunityMember, ErasureResult, RosterPage, RosterQuery } from '../core/contract/members.js';
import { communityId, IdempotencyKey, profileId } from '../core/contract/schemas.js';
import { SearchMatch, SearchParams, SearchRequest } from '../core/contract/search.js';
import { refusalMessage } from '../core/rate-limit/refusal.js';
import { annotateRequest, requestSpanAttributes } from '../core/request-span.js';
import type { McpIdempotency } from './idempotency.js';

export const SERVER_INFO = { name: 'expertnet', title: 'Expert Network API', version: '0.1.0' } as const;

export const SERVER_INSTRUCTIONS =
  'Expert Network API: profiles of experts and the rosters of the communities they belong to. ' +
  'Call `whoami` first to see which scopes your credential has; a tool whose scope is missing fails with error code `forbidden`. ' +
  'Errors come back as a JSON error envelope {"error": {"code", "message", "request_id"}} with isError set. ' +
  'Expert search is asynchronous: `search_experts` may answer `pending` with a `search_id`; poll it with `get_search`. ' +
  'Enrichment is asynchronous and paid: `enrich_my_profile` and `start_community_enrichment` answer a queued run; poll it with `get_enrichment_run` ' +
  '(passing `community_id` for a community run) until its status is `succeeded` or `failed`. ' +
  'Call `estimate_community_enrichment` before `start_community_enrichment`: it tells you, without charging anything, how many people would be enriched and the exact cost.';

/** What a tool call needs from its transport. */
export interface ToolDeps {
  edge: Edge;
  limiter: RateLimiter;
  /** The request id of a tool call (HTTP: the request's X-Request-Id or a fresh one). */
  requestId(): string;
  /** The caller of a tool call: already authenticated (HTTP) or authenticated now (stdio). May throw ApiError. */
  caller(requestId: string): Promise<Caller>;
  /** Idempotency records for add_community_members and start_community_enrichment; without them these tools take no idempotency key. */
  idempotency?: McpIdempotency;
  /** HTTP: the request the calls arrived in, whose server span carries the request id and key id too. */
  httpRequest?: IncomingMessage;
  logger?: Logger;
}

/** A tool's error result: the REST envelope as JSON text. */
export function errorResult(error: ApiError, requestId: string): CallToolResult {
  const envelope = { error: { code: error.code, message: error.message, request_id: requestId, ...error.extras } };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(envelope) }] };
}

export function successResult(body: object, meta?: Record<string, unknown>): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(body, null, 2) }],
    structuredContent: body as Record<string, unknown>,
    ...(meta ? { _meta: meta } : {}),
  };
}

/** The edge's rate limit, one check per tool call (per credential, the limiter REST uses). */
async function checkRateLimit(limiter: RateLimiter, caller: Caller, logger: Logger | undefined): Promise<void> {
  let decision;
  try {
    decision = await limiter.check({ credentialId: caller.credentialId, rateTier: caller.rateTier, requestedRate: caller.requestedRate });
  } catch (err) {
    logger?.error({ err }, 'rate limiter unavailable');
    throw new ApiError(503, 'unavailable', 'rate limiting is unavailable; retry shortly');
  }
  if (!decision.allowed) {
    // No headers on a tool result: Retry-After travels in the envelope.
    throw new ApiError(429, 'rate_limited', refusalMessage(decision), { retry_after_seconds: decision.retryAfterSeconds ?? 1 });
  }
}

const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

interface ToolSpec<Shape extends z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  /**
   * Scope of the REST endpoint (docs/API-DECISIONS.md endpoint table); null: any valid credential.
   * A function for a tool that stands for two endpoints: the scope of the one its arguments select.
   */
  scope: Scope | null | ((args: z.output<z.ZodObject<Shape>>) => Scope);
  input: Shape;
  output: z.ZodObject;
  annotations: ToolAnnotations;
  run(ctx: CallerContext, args: z.output<z.ZodObject<Shape>>): Promise<CallToolResult | object>;
}

/** Span attributes of a tool call (OpenTelemetry's MCP semantic conventions). */
const TOOL_ATTR = { method: 'mcp.method.name', tool: 'gen_ai.tool.name', errorType: 'error.type' } as const;

function register<Shape extends z.ZodRawShape>(server: McpServer, deps: ToolDeps, spec: ToolSpec<Shape>): void {
  const handler = async (args: z.output<z.ZodObject<Shape>>): Promise<CallToolResult> => {
    const requestId = deps.requestId();
    const attributes = { [TOOL_ATTR.method]: 'tools/call', [TOOL_ATTR.tool]: spec.name, ...requestSpanAttributes(requestId) };
    return inStep(`mcp.tool ${spec.name}`, attributes, async (span) => {
      try {
        const caller = await deps.caller(requestId);
        // The HTTP request's span and this call's (the active one), as REST marks its spans.
        annotateRequest(deps.httpRequest, requestId, caller);
        await checkRateLimit(deps.limiter, caller, deps.logger);
        const scope = typeof spec.scope === 'function' ? spec.scope(args) : spec.scope;
        if (scope && !caller.scopes.includes(scope)) {
          throw new ApiError(403, 'forbidden', `this credential lacks the ${scope} scope`, { required_scope: scope });
        }
        const out = await spec.run({ caller, requestId }, args);
        return 'content' in out ? (out as CallToolResult) : successResult(out);
      } catch (error) {
        const apiError = fromRemote(error);
        if (apiError.status >= 500 && !(error instanceof ApiError)) deps.logger?.error({ err: error, tool: spec.name }, 'tool failed');
        // A tool error is a result, not a throw: the span says which one, and fails only on a 5xx.
        span.setAttribute(TOOL_ATTR.errorType, apiError.code);
        if (apiError.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: apiError.message });
        return errorResult(apiError, requestId);
      }
    });
  };
  server.registerTool(
    spec.name,
    { title: spec.title, description: spec.description, inputSchema: spec.input, outputSchema: spec.output, annotations: spec.annotations },
    // The SDK validates the arguments with `input` and hands over the parsed output.
    handler as unknown as Parameters<McpServer['registerTool']>[2],
  );
}

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

const communityIdInput = communityId().describe('Community id (e.g. `c_bio`).');
/** The community enrichment options (the REST body's fields but dry_run, which the tool chooses). */
const enrichmentOptions = {
  depth: EnrichmentRequest.shape.depth,
  profile_ids: EnrichmentRequest.shape.profile_ids,
  joined_since: EnrichmentRequest.shape.joined_since,
  include_already_enriched: EnrichmentRequest.shape.include_already_enriched,
  workflow_key: EnrichmentRequest.shape.workflow_key,
};
type EnrichmentOptions = Omit<EnrichmentRequest, 'dry_run'>;
const enrichmentBody = (args: EnrichmentOptions, dryRun: boolean): EnrichmentRequest => ({
  depth: args.depth,
  profile_ids: args.profile_ids,
  joined_since: args.joined_since,
  include_already_enriched: args.include_already_enriched,
  workflow_key: args.workflow_key,
  dry_run: dryRun,
});
/** The service answered the other kind of outcome than asked for: a fault, never half a body. */
const unexpectedOutcome = () => new ApiError(500, 'internal', 'internal error');
const profileIdInput = profileId().describe('Profile id of the person (e.g. `p_123`), as returned by the roster or by add_community_members.');

export function registerTools(server: McpServer, deps: ToolDeps): void {
  const { edge } = deps;

  register(server, deps, {
    name: 'whoami',
    title: 'Describe my credential',
    description:
      'Describes the credential this session uses: its id, kind (API key or OAuth), rate tier, billing owner, granted scopes, usage counters and the live credit balance. ' +
      'Call it first to learn which other tools you may use: each tool names the scope it needs. Same data as REST GET /v1/me.',
    scope: null,
    input: {},
    output: MeResponse,
    annotations: { ...READ_ONLY, title: 'Describe my credential' },
    run: (ctx) => getMe(edge, ctx),
  });

  register(server, deps, {
    name: 'get_my_profile',
    title: 'Read my own profile',
    description:
      "Returns the expert profile claimed by the user behind this credential (name, headline, bio, organization, location, links). Needs scope profile:read. Fails with not_found when the user has no profile yet. Same data as REST GET /v1/me/profile.",
    scope: 'profile:read',
    input: {},
    output: OwnProfile,
    annotations: { ...READ_ONLY, title: 'Read my own profile' },
    run: (ctx) => getOwnProfile(edge, ctx),
  });

  register(server, deps, {
    name: 'search_experts',
    title: 'Search for experts',
    description:
      'Finds experts matching a free-text query. scope `community` searches one community (give community_id), `all` every community the credential may read plus public profiles, `public` public claimed profiles only. ' +
      'Waits up to wait_seconds (0–25, default 20): a finished search answers status complete with matches, best first (each naming the shared_communities you may read, explaining the match with quoted passages, and flagged weak_match when little of the query is found); otherwise status pending with a search_id to poll with get_search. ' +
      'Needs scope search:read. Billed once its result is stored; failed or refused searches are not billed. Same operation as REST POST /v1/search.',
    scope: 'search:read',
    input: {
      query: SearchRequest.shape.query,
      scope: SearchRequest.shape.scope,
      community_id: SearchRequest.shape.community_id,
      limit: SearchRequest.shape.limit,
      wait_seconds: SearchRequest.shape.wait_seconds,
    },
    output: SearchStarted,
    // Each call starts (and bills) a new search.
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false, title: 'Search for experts' },
    run: (ctx, args) => {
      // The REST body's rules in full (community_id for scope community), with the same 400.
      const parsed = SearchRequest.safeParse(args);
      if (!parsed.success) {
        throw new ApiError(400, 'invalid_request', parsed.error.issues.map((i) => `body.${i.path.join('.')}: ${i.message}`).join('; '));
      }
      return startSearch(edge, ctx, parsed.data);
    },
  });

  register(server, deps, {
    name: 'get_search',
    title: 'Poll a search',
    description:
      'Reports a search started by this credential with search_experts: status running (poll again after poll_after_seconds), complete with its matches, or failed (not billed; start a new one). ' +
      'Fails with not_found for a search of another credential, an unknown id, or one that expired (an hour after finishing). Needs scope search:read. Same data as REST GET /v1/search/{search_id}.',
    scope: 'search:read',
    input: { search_id: SearchParams.shape.search_id },
    output: SearchState,
    annotations: { ...READ_ONLY, title: 'Poll a search' },
    run: (ctx, args) => getSearch(edge, ctx, args.search_id),
  });

  register(server, deps, {
    name: 'list_community_members',
    title: 'List community members',
    description:
      'Returns one page of a community roster (name, headline, organization, role, join time of each member), in a stable order. ' +
      'To read the whole roster, call again with `after` set to the `next_cursor` of the previous page until `next_cursor` is null. ' +
      'Needs scope profile:read and a community within the credential’s reach (otherwise forbidden). Same data as REST GET /v1/communities/{id}/members.',
    scope: 'profile:read',
    input: { community_id: communityIdInput, limit: RosterQuery.shape.limit, after: RosterQuery.shape.after },
    output: RosterPage,
    annotations: { ...READ_ONLY, title: 'List community members' },
    run: (ctx, args) => listMembers(edge, ctx, args.community_id, { limit: args.limit, after: args.after }),
  });

  register(server, deps, {
    name: 'get_community_member',
    title: 'Read one community member',
    description:
      'Returns the full profile of one member of a community (bio, links, role, join time) with the enrichment data this community holds about them (null when none). ' +
      'Needs scope profile:read. Fails with not_found when the person is not a member. Same data as REST GET /v1/communities/{id}/members/{profile_id}.',
    scope: 'profile:read',
    input: { community_id: communityIdInput, profile_id: profileIdInput },
    output: CommunityMember,
    annotations: { ...READ_ONLY, title: 'Read one community member' },
    run: (ctx, args) => getMember(edge, ctx, args.community_id, args.profile_id),
  });

  const idempotency = deps.idempotency;
  register(server, deps, {
    name: 'add_community_members',
    title: 'Add people to a community',
    description:
      'Adds 1–100 people to a community the credential may write to, creating placeholder profiles where needed. Identify each person by email, linkedin_url, orcid or name. ' +
      'Each item gets its own result (added, already_member or rejected with a reason): the call is not all-or-nothing. ' +
      'Needs scope member:write; communities whose API writes are not enabled answer unprocessable or owner_consent_required. ' +
      (idempotency
        ? 'Pass an `idempotency_key` to make a retry safe: the same key with the same arguments within 48 hours returns the first result instead of adding again. '
        : '') +
      'Same operation as REST POST /v1/communities/{id}/members.',
    scope: 'member:write',
    input: {
      community_id: communityIdInput,
      members: AddMembersRequest.shape.members,
      role: AddMembersRequest.shape.role,
      ...(idempotency ? { idempotency_key: IdempotencyKey.optional() } : {}),
    } as { community_id: typeof communityIdInput; members: typeof AddMembersRequest.shape.members; role: typeof AddMembersRequest.shape.role; idempotency_key?: z.ZodOptional<typeof IdempotencyKey> },
    output: AddMembersResponse,
    // Not idempotent: an item identified by a name alone makes a new placeholder every time.
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false, title: 'Add people to a community' },
    run: (ctx, args) => {
      const body = { members: args.members, role: args.role };
      const operation = () => addMembers(edge, ctx, args.community_id, body);
      const key = (args as { idempotency_key?: string }).idempotency_key;
      if (!idempotency || key === undefined) return operation();
      return idempotency.run(ctx, { tool: 'add_community_members', target: args.community_id, key, args: body }, operation);
    },
  });

  register(server, deps, {
    name: 'remove_community_member',
    title: 'Erase a member from a community',
    description:
      "Erases one person from a community (a data-subject erasure): removes the membership, this community's enrichment data and search embeddings about them, and the community's identifier for them. This cannot be undone. " +
      'A claimed account is never deleted. Needs scope member:write. Fails with not_found when the person is not a member. Same operation as REST DELETE /v1/communities/{id}/members/{profile_id}.',
    scope: 'member:write',
    input: { community_id: communityIdInput, profile_id: profileIdInput },
    output: ErasureResult,
    // Repeating it changes nothing more (the second call answers not_found).
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false, title: 'Erase a member from a community' },
    run: (ctx, args) => eraseMember(edge, ctx, args.community_id, args.profile_id),
  });

  register(server, deps, {
    name: 'enrich_my_profile',
    title: 'Enrich my own profile',
    description:
      'Starts a self-enrichment run on the profile of the user behind this credential (it can target nobody else): the standard tier, from the person’s own data plus ORCID and OpenAlex, written onto the own profile (see get_my_profile). ' +
      'Answers the queued run; poll it with get_enrichment_run (run_id only, no community_id) until status is succeeded or failed. ' +
      'NOT idempotent: every call starts a new run, and an owner on a paid plan is charged 1 credit per run, so do not call it again to retry or to check progress. ' +
      'An owner without a paid plan is not charged but may start one run per 30 days: another call inside that window fails with rate_limited and `available_at` (when the next run is possible). ' +
      'Needs scope self:enrich. Fails with not_found when the user has no profile, forbidden for an organization key (no own profile). Same operation as REST POST /v1/me/enrich.',
    scope: 'self:enrich',
    input: {},
    output: EnrichmentRun,
    // Each call starts (and may charge) a new run.
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false, title: 'Enrich my own profile' },
    run: (ctx) => startSelfEnrichment(edge, ctx),
  });

  register(server, deps, {
    name: 'estimate_community_enrichment',
    title: 'Estimate a community enrichment run',
    description:
      'Estimates a community enrichment run without starting or charging anything (a dry run): eligible_count (members the run would enrich, of total_members) and the exact cost, ' +
      'estimated_max_credits_per_profile (the flat price of the depth tier) and estimated_max_credits (that price × eligible_count). Without depth it only counts people and the estimates are null. ' +
      'Takes the same options as start_community_enrichment: call it first, with the options you mean to start with. ' +
      'Needs scope enrich:write and a community the credential may write to (otherwise forbidden); unlike a start it needs no API write attestation. ' +
      'Same operation as REST POST /v1/communities/{id}/enrich with dry_run true.',
    scope: 'enrich:write',
    input: { community_id: communityIdInput, ...enrichmentOptions },
    output: DryRunEstimate,
    // A dry run changes nothing.
    annotations: { ...READ_ONLY, title: 'Estimate a community enrichment run' },
    run: async (ctx, args) => {
      const outcome = await startCommunityEnrichment(edge, ctx, args.community_id, enrichmentBody(args, true));
      if (!outcome.dryRun) throw unexpectedOutcome();
      return outcome.estimate;
    },
  });

  register(server, deps, {
    name: 'start_community_enrichment',
    title: 'Enrich community members',
    description:
      'Starts an enrichment run over members of a community the credential controls, and answers the queued run with eligible_count; poll it with get_enrichment_run (with community_id) until status is succeeded or failed. ' +
      'depth is required (quick, standard or deep; without it the call fails with invalid_request). It sets a flat price per enriched person (by default quick 1, standard 3, deep 8 credits), charged to the community’s billing owner as each person is enriched; people skipped or whose enrichment failed are not charged. ' +
      'Call estimate_community_enrichment first with the same options: it gives the exact total without charging. ' +
      'By default every member not yet enriched at that depth or a deeper one is included; narrow with profile_ids or joined_since, or add include_already_enriched. ' +
      'NOT idempotent: every call starts (and charges for) a new run. ' +
      (idempotency
        ? 'Pass an `idempotency_key` to make a retry safe: the same key with the same arguments within 48 hours returns the first run instead of starting another. '
        : '') +
      'Needs scope enrich:write; communities whose API writes are not enabled answer unprocessable or owner_consent_required; a payer that cannot cover the run may be refused with insufficient_credits, naming the payer. ' +
      'Same operation as REST POST /v1/communities/{id}/enrich.',
    scope: 'enrich:write',
    input: {
      community_id: communityIdInput,
      ...enrichmentOptions,
      ...(idempotency ? { idempotency_key: IdempotencyKey.optional() } : {}),
    } as { community_id: typeof communityIdInput; idempotency_key?: z.ZodOptional<typeof IdempotencyKey> } & typeof enrichmentOptions,
    output: CommunityRunStarted,
    // Not idempotent: each call starts (and charges for) a new run.
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false, title: 'Enrich community members' },
    run: (ctx, args) => {
      const body = enrichmentBody(args, false);
      const operation = async () => {
        const outcome = await startCommunityEnrichment(edge, ctx, args.community_id, body);
        if (outcome.dryRun) throw unexpectedOutcome();
        return outcome.run;
      };
      const key = (args as { idempotency_key?: string }).idempotency_key;
      if (!idempotency || key === undefined) return operation();
      return idempotency.run(ctx, { tool: 'start_community_enrichment', target: args.community_id, key, args: body }, operation);
    },
  });

  register(server, deps, {
    name: 'get_enrichment_run',
    title: 'Poll an enrichment run',
    description:
      'Reports an enrichment run: status (queued or running: poll again in a few seconds; succeeded or failed: final), counts of people, credits charged so far, and up to 100 of its people with their status and reason. ' +
      'For a community run (from start_community_enrichment) pass its community_id: needs scope enrich:read and a community within reach. ' +
      'For your own self-enrichment run (from enrich_my_profile) omit community_id: needs scope self:enrich. ' +
      'A run asked for the wrong way (a community run without its community_id, another community, another caller’s self run) or an unknown id fails with not_found. ' +
      'When next_items_after is not null, pass it as items_after for the next people. ' +
      'Same data as REST GET /v1/communities/{id}/enrich/runs/{run_id} (with community_id) and GET /v1/me/enrich/runs/{run_id} (without).',
    scope: (args) => (args.community_id === undefined ? 'self:enrich' : 'enrich:read'),
    input: {
      run_id: RunParams.shape.run_id.describe('Run id, as answered by enrich_my_profile or start_community_enrichment.'),
      community_id: communityIdInput
        .optional()
        .describe('The community of a community run (its `community_id`); omit it for a self-enrichment run.'),
      items_after: RunPollQuery.shape.items_after,
    },
    output: EnrichmentRunPoll,
    annotations: { ...READ_ONLY, title: 'Poll an enrichment run' },
    run: (ctx, args) => getEnrichmentRun(edge, ctx, args.run_id, { communityId: args.community_id, itemsAfter: args.items_after }),
  });
}

/** A fresh request id, shaped like the edge's own. */
export const freshRequestId = () => `req_${randomUUID()}`;

/** An McpServer with every tool, for one transport connection (HTTP: one request). */
export function buildMcpServer(deps: ToolDeps): McpServer {
  const server = new McpServer(SERVER_INFO, { instructions: SERVER_INSTRUCTIONS, capabilities: { tools: {} } });
  registerTools(server, deps);
  // The SDK advertises tools.listChanged once tools are registered; this server's tool list never
  // changes while it runs and it sends no list_changed notification, so it says so.
  server.server.registerCapabilities({ tools: { listChanged: false } });
  return server;
}
