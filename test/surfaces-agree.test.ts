// One refusal per rule across surfaces, generated from the endpoint table: for every endpoint an
// MCP tool exposes, every rule the table declares — the scope, each rule of its path, query and
// body schemas (generated from the zod schemas, test/helpers/schema-refusals.ts), the
// Idempotency-Key rules — is broken once over REST and once over MCP, and both must refuse with
// the same error code, message and details; the tool's message names its arguments where REST's
// names the request part (`community_id: …` for `path.id: …`, `scope: …` for `body.scope: …`).
// Nothing refused may be stored or billed.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../gateway/core/contract/endpoints.js';
import type { Endpoint } from '../gateway/core/contract/schemas.js';
import type { RunningMcpServer } from '../gateway/mcp/server.js';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { SCOPES } from '../services/kit/scopes.js';
import { bearer, request } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { bodyRefusals, textRefusals, type Refusal } from './helpers/schema-refusals.js';
import { startMcpSystem, type McpSystem } from './helpers/mcp-system.js';
import { inToolNames } from './helpers/tool-names.js';
import type { TestSystem } from './helpers/test-system.js';

const k = { all: liveKey(), search: liveKey(), reader: liveKey() };
const rate = { requested_rate: 6000 };
const seed: SeedInput = {
  users: [{ id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' }],
  communities: [{ id: 'c_bio', name: 'Biology', owner: { user: 'u_ada' }, api_writes: true }],
  profiles: [
    { id: 'p_ada', user: 'u_ada', name: 'Ada Lovelace', email: 'ada@example.org' },
    { id: 'p_one', name: 'One Person', email: 'one@example.org' },
  ],
  memberships: [
    { community: 'c_bio', profile: 'p_ada', role: 'owner' },
    { community: 'c_bio', profile: 'p_one' },
  ],
  keys: [
    { id: 'k_all', secret: k.all, owner: { user: 'u_ada' }, scopes: [...SCOPES], ...rate },
    { id: 'k_search', secret: k.search, owner: { user: 'u_ada' }, scopes: ['search:read'], ...rate },
    { id: 'k_reader', secret: k.reader, owner: { user: 'u_ada' }, scopes: ['profile:read'], ...rate },
  ],
};

/** Valid path parameters and bodies, from which each case breaks one rule. */
const VALID_PARAMS: Record<string, string> = { id: 'c_bio', profile_id: 'p_one', run_id: 'run_1', search_id: 'srch_1' };
const VALID_BODIES: Record<string, Record<string, unknown>> = {
  startSearch: { query: 'protein', scope: 'public' },
  addCommunityMembers: { members: [{ email: 'new@example.org' }] },
};
/** The body fields a tool sets itself rather than taking them as arguments. */
const TOOL_SETS: Record<string, Record<string, unknown>> = {
  estimate_community_enrichment: { dry_run: true },
  start_community_enrichment: { dry_run: false },
};

interface Parts {
  params: Record<string, string>;
  query: Record<string, string>;
  body: Record<string, unknown> | undefined;
  key?: string;
}

interface Case {
  rule: string;
  secret: string;
  parts: Parts;
}

function validParts(endpoint: Endpoint): Parts {
  const names = [...endpoint.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  return {
    params: Object.fromEntries(names.map((n) => [n, VALID_PARAMS[n]!])),
    query: {},
    body: endpoint.body ? (VALID_BODIES[endpoint.operationId] ?? {}) : undefined,
  };
}

/** Every rule of the endpoint, broken once. */
function casesOf(endpoint: Endpoint, tool: string): Case[] {
  const valid = validParts(endpoint);
  const cases: Case[] = [];
  if (endpoint.scope) {
    const lacking = endpoint.scope === 'profile:read' ? k.search : k.reader;
    cases.push({ rule: `without ${endpoint.scope}`, secret: lacking, parts: valid });
  }
  const withPart = (part: 'params' | 'query' | 'body', refusals: Refusal[]) =>
    refusals.map((r) => ({ rule: `${part}: ${r.rule}`, secret: k.all, parts: { ...valid, [part]: r.value } as Parts }));
  if (endpoint.params) cases.push(...withPart('params', textRefusals(endpoint.params, valid.params)));
  if (endpoint.query) cases.push(...withPart('query', textRefusals(endpoint.query, valid.query)));
  if (endpoint.body) {
    const own = Object.keys(TOOL_SETS[tool] ?? {});
    // A field the tool sets itself is not the caller's to break.
    const breakable = bodyRefusals(endpoint.body.schema, valid.body!).filter((r) => !own.some((f) => r.rule.startsWith(`${f} `)));
    cases.push(...withPart('body', breakable));
  }
  if (endpoint.idempotent && TOOL_SETS[tool]?.dry_run !== true) {
    cases.push({ rule: 'an empty Idempotency-Key', secret: k.all, parts: { ...valid, key: '' } });
    cases.push({ rule: 'an Idempotency-Key over 255 characters', secret: k.all, parts: { ...valid, key: 'k'.repeat(256) } });
    const badBody = withPart('body', bodyRefusals(endpoint.body!.schema, valid.body!))[0]!;
    cases.push({ ...badBody, rule: `a fresh Idempotency-Key with ${badBody.rule}`, parts: { ...badBody.parts, key: 'fresh-key' } });
  }
  return cases;
}

/** The REST request of a case. */
function restCall(endpoint: Endpoint, tool: string, parts: Parts) {
  const path = endpoint.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(parts.params[name]!));
  const query = new URLSearchParams(parts.query).toString();
  const headers: Record<string, string> = { ...(parts.key !== undefined && { 'idempotency-key': parts.key }) };
  const body = parts.body === undefined ? undefined : { ...parts.body, ...TOOL_SETS[tool] };
  return { method: endpoint.method, path: query ? `${path}?${query}` : path, headers, body };
}

/** The tool arguments of a case: the path's `id` is `community_id`, every other name is REST's. */
function toolArgs(parts: Parts): Record<string, unknown> {
  const { id, ...params } = parts.params;
  return {
    ...(id !== undefined && { community_id: id }),
    ...params,
    ...parts.query,
    ...parts.body,
    ...(parts.key !== undefined && { idempotency_key: parts.key }),
  };
}

describe('REST and MCP refuse every rule of the endpoint table alike', () => {
  let sys: TestSystem;
  let mcp: RunningMcpServer;
  let running: McpSystem | undefined;
  const clients = new Map<string, Client>();

  beforeAll(async () => {
    running = await startMcpSystem(seed, { idempotency: true });
    ({ sys, mcp } = running);
  }, 120_000);
  afterAll(async () => {
    for (const c of clients.values()) await c.close().catch(() => undefined);
    await running?.stop();
  });

  async function client(secret: string): Promise<Client> {
    let c = clients.get(secret);
    if (!c) {
      c = new Client({ name: 'surfaces-test', version: '1.0.0' });
      await c.connect(new StreamableHTTPClientTransport(new URL(mcp.endpoint), { requestInit: { headers: bearer(secret) } }));
      clients.set(secret, c);
    }
    return c;
  }

  const observable = async () => {
    const me = await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(k.all) });
    const roster = await request(sys.restUrl, 'GET', '/v1/communities/c_bio/members', { headers: bearer(k.all) });
    return { spent: me.body.usage.credits_spent_this_month, balance: me.body.credit_balance, roster: roster.body.members.map((m: { profile_id: string }) => m.profile_id) };
  };

  // whoami (GET /v1/me) declares no rule: any valid credential, no input.
  const pairs = ENDPOINTS.flatMap((endpoint) => endpoint.mcpTools.map((tool) => ({ endpoint, tool, cases: casesOf(endpoint, tool) })));

  // Events and webhook endpoints are for integrations over REST (docs/WEBHOOKS.md); no MCP tool has them yet.
  it('the table names a tool for every endpoint but the events, the webhook endpoints and deliveries, and the OpenAPI document', () => {
    expect(ENDPOINTS.filter((e) => e.mcpTools.length === 0).map((e) => e.operationId)).toEqual([
      'listEvents', 'getEvent', 'createWebhookEndpoint', 'listWebhookEndpoints', 'getWebhookEndpoint', 'updateWebhookEndpoint',
      'deleteWebhookEndpoint', 'rotateWebhookSecret', 'listWebhookDeliveries', 'getWebhookDelivery', 'resendWebhookDelivery',
      'sendTestWebhook', 'getOpenApiDocument',
    ]);
  });

  it('walks the rules of every tool that has some', () => {
    expect(pairs.filter((p) => p.cases.length === 0).map((p) => p.tool)).toEqual(['whoami']);
  });

  const walked = pairs.filter((p) => p.cases.length > 0).map((p) => [`${p.endpoint.method} ${p.endpoint.path} ↔ ${p.tool}`, p] as const);
  it.each(walked)('%s: every rule refused with the same code and message', async (_name, { endpoint, tool, cases }) => {
    const before = await observable();
    for (const c of cases) {
      const call = restCall(endpoint, tool, c.parts);
      const rest = await request(sys.restUrl, call.method, call.path, { headers: { ...bearer(c.secret), ...call.headers }, body: call.body });
      expect(rest.status, `${c.rule}: REST`).toBeGreaterThanOrEqual(400);
      expect(rest.status, `${c.rule}: REST`).toBeLessThan(500);
      const result = (await (await client(c.secret)).callTool({ name: tool, arguments: toolArgs(c.parts) })) as CallToolResult;
      expect(result.isError, `${c.rule}: MCP answered ${JSON.stringify(result.content).slice(0, 300)}`).toBe(true);
      const envelope = JSON.parse((result.content[0] as { text: string }).text);
      const { request_id: _r, ...restError } = rest.body.error;
      const { request_id: _t, retry_after_seconds: _a, ...toolError } = envelope.error;
      expect(toolError, c.rule).toEqual({ ...restError, message: inToolNames(restError.message) });
    }
    expect(await observable()).toEqual(before);
  }, 120_000);
});
