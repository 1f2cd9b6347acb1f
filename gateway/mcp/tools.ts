// The MCP tools: one per REST operation (the two enrichment run polls share one tool; the community
// enrichment start has a second tool for its dry run), each calling the very same gateway/core
// use-case as its REST route, as the same caller. A tool takes its scope, rate-limit class,
// request validation and idempotency from the endpoint of the table it stands for
// (gateway/core/contract/endpoints.ts) through tool-call.ts, so a request REST refuses is refused
// here with the same code and reason. A result is the REST response body (the search tools show
// it compact unless asked for all of it: tools/search-view.ts); tools/list is tool-list.ts's.
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { IdempotencyKey } from '../core/contract/schemas.js';
import { callTool } from './tool-call.js';
import { progressFor } from './progress.js';
import { listedTool } from './tool-list.js';
import { IDEMPOTENCY_ARG, takesIdempotencyKey, type ToolDeps, type ToolSpec } from './tool-spec.js';
import { discoveryTools } from './tools/discovery.js';
import { enrichmentTools } from './tools/enrichment.js';
import { identityTools } from './tools/identity.js';
import { memberTools } from './tools/members.js';
import { searchTools } from './tools/search.js';

export type { ToolDeps } from './tool-spec.js';

export const SERVER_INFO = { name: 'expertnet', title: 'Expert Network API', version: '0.1.0' } as const;

export const SERVER_INSTRUCTIONS =
  'Expert Network API: profiles of experts and the rosters of the communities they belong to. ' +
  'Call `whoami` first to see which scopes your credential has; a tool whose scope is missing fails with error code `forbidden`. ' +
  'Call `list_communities` to find the ids of the communities your credential reaches. ' +
  'Errors come back as a JSON error envelope {"error": {"code", "message", "request_id"}} with isError set. ' +
  'Expert search is asynchronous: `search_experts` may answer `pending` with a `search_id`; poll it with `get_search`. ' +
  'Enrichment is asynchronous and paid: `enrich_my_profile` and `start_community_enrichment` answer a queued run; poll it with `get_enrichment_run` ' +
  '(passing `community_id` for a community run) until its status is `succeeded` or `failed`. ' +
  'Call `estimate_community_enrichment` before `start_community_enrichment`: it tells you, without charging anything, how many people would be enriched and the exact cost.';

/** Every tool, in the order tools/list shows them. */
export function toolSpecs(deps: Pick<ToolDeps, 'edge' | 'idempotency'>): ToolSpec[] {
  const withIdempotency = deps.idempotency !== undefined;
  return [
    ...identityTools(deps.edge),
    ...discoveryTools(deps.edge),
    ...searchTools(deps.edge),
    ...memberTools(deps.edge, withIdempotency),
    ...enrichmentTools(deps.edge, withIdempotency),
  ];
}

/** The key as a tool argument: the tool's description says what it does; the rules are REST's header's. */
const idempotencyKeyArg = IdempotencyKey.optional().describe('Makes a retry safe (1–255 printable ASCII characters): see the description.');

/** The advertised arguments: the tool's own, plus idempotency_key where its endpoint honours Idempotency-Key. */
function advertisedInput(spec: ToolSpec, deps: Pick<ToolDeps, 'idempotency'>) {
  const endpoint = spec.endpoint({});
  return takesIdempotencyKey(spec, endpoint, deps) ? { ...spec.input, [IDEMPOTENCY_ARG]: idempotencyKeyArg } : spec.input;
}

/** tools/list's answer, with and without idempotency keys: the same for every server, built once. */
const listings = new Map<boolean, Tool[]>();
function listing(specs: Iterable<ToolSpec>, deps: Pick<ToolDeps, 'idempotency'>): Tool[] {
  const withIdempotency = deps.idempotency !== undefined;
  let tools = listings.get(withIdempotency);
  if (!tools) listings.set(withIdempotency, (tools = [...specs].map((spec) => listedTool(spec, advertisedInput(spec, deps)))));
  return tools;
}

/** What the SDK answers a call of a tool it does not know: a tool error naming it. */
const unknownTool = (name: string): CallToolResult => ({
  isError: true,
  content: [{ type: 'text', text: new McpError(ErrorCode.InvalidParams, `Tool ${name} not found`).message }],
});

export function registerTools(server: McpServer, deps: ToolDeps): void {
  const specs = new Map(toolSpecs(deps).map((spec) => [spec.name, spec]));
  for (const spec of specs.values()) {
    server.registerTool(
      spec.name,
      { title: spec.title, description: spec.description, inputSchema: advertisedInput(spec, deps), annotations: spec.annotations },
      (args: Record<string, unknown>) => callTool(deps, spec, args),
    );
  }
  // The SDK lists the tools from the registrations above, but would validate a call's arguments
  // against the advertised schema before anything else, answering in its own words: calls are
  // dispatched here instead, so that the endpoint's checks run in REST's order (the credential's
  // refusals before the request's) and every refusal is REST's envelope.
  server.server.removeRequestHandler(CallToolRequestSchema.shape.method.value);
  server.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const spec = specs.get(request.params.name);
    const progress = progressFor(request.params._meta?.progressToken, extra.sendNotification);
    return spec ? callTool(deps, spec, request.params.arguments ?? {}, progress) : unknownTool(request.params.name);
  });
  // The list, with the schemas slimmed for a model's context (tool-list.ts).
  const tools = listing(specs.values(), deps);
  server.server.removeRequestHandler(ListToolsRequestSchema.shape.method.value);
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
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
