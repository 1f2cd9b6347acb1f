// The MCP suites' shared setup: keys, a seeded community with members, the error envelope inside a
// tool result, and a running system with an MCP server on its edge.
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, expect } from 'vitest';
import type { RunningMcpServer } from '../../gateway/mcp/server.js';
import type { SeedInput } from '../../deploy/admin/seed-schema.js';
import { bearer } from './http.js';
import { liveKey } from './keys.js';
import { startMcpSystem, type McpSystem } from './mcp-system.js';
import type { TestSystem } from './test-system.js';

export const repo = fileURLToPath(new URL('../..', import.meta.url));

export const k = { ada: liveKey(), scopeless: liveKey(), reader: liveKey(), bob: liveKey(), free: liveKey() };
export const rate = { requested_rate: 6000 };

export const seed: SeedInput = {
  users: [
    { id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' },
    { id: 'u_bob', email: 'bob@example.org', name: 'Bob', plan: 'paid' },
    { id: 'u_free', email: 'free@example.org', name: 'Free', plan: 'free' },
  ],
  organizations: [{ id: 'o_lab', name: 'Lab', members: [{ user: 'u_ada', role: 'admin' }] }],
  communities: [
    { id: 'c_bio', name: 'Biology', owner: { organization: 'o_lab' }, api_writes: true },
    { id: 'c_chem', name: 'Chemistry', owner: { organization: 'o_lab' }, api_writes: true },
    { id: 'c_closed', name: 'Closed', owner: { organization: 'o_lab' } },
    { id: 'c_foreign', name: 'Foreign', owner: { user: 'u_bob' }, api_writes: true },
  ],
  profiles: [
    { id: 'p_ada', user: 'u_ada', name: 'Ada Lovelace', headline: 'Analyst', email: 'ada@example.org' },
    { id: 'p_one', name: 'One Person', email: 'one@example.org', organization: 'Lab' },
    { id: 'p_two', name: 'Two Person', email: 'two@example.org' },
    { id: 'p_three', name: 'Three Person', email: 'three@example.org' },
    { id: 'p_gone_rest', name: 'Gone Rest', email: 'gone-rest@example.org' },
    { id: 'p_gone_mcp', name: 'Gone Mcp', email: 'gone-mcp@example.org' },
  ],
  memberships: [
    { community: 'c_bio', profile: 'p_ada', role: 'admin' },
    { community: 'c_bio', profile: 'p_one' },
    { community: 'c_bio', profile: 'p_two' },
    { community: 'c_bio', profile: 'p_three' },
    { community: 'c_chem', profile: 'p_gone_rest' },
    { community: 'c_chem', profile: 'p_gone_mcp' },
  ],
  keys: [
    { id: 'k_ada', secret: k.ada, owner: { user: 'u_ada' }, scopes: ['profile:read', 'member:write'], ...rate },
    { id: 'k_scopeless', secret: k.scopeless, owner: { user: 'u_ada' }, scopes: ['search:read'], ...rate },
    { id: 'k_reader', secret: k.reader, owner: { user: 'u_ada' }, scopes: ['profile:read'], ...rate },
    { id: 'k_bob', secret: k.bob, owner: { user: 'u_bob' }, scopes: ['profile:read', 'member:write'], ...rate },
    { id: 'k_free', secret: k.free, owner: { user: 'u_free' }, scopes: ['profile:read'] },
  ],
};

/** The REST error envelope a tool error carries as JSON text. */
export function envelopeOf(result: CallToolResult): { error: { code: string; message: string; request_id: string; [k: string]: unknown } } {
  expect(result.isError).toBe(true);
  const text = result.content.find((c) => c.type === 'text');
  return JSON.parse((text as { text: string }).text);
}


/**
 * For one describe block: a running system and an MCP server on an edge built from its clients, the
 * way the runtime builds it, plus the calls its tests make. Every client connected is closed after.
 */
export function mcpSuite() {
  let sys: TestSystem;
  let mcp: RunningMcpServer;
  let running: McpSystem | undefined;
  const clients: Client[] = [];

  beforeAll(async () => {
    running = await startMcpSystem(seed);
    ({ sys, mcp } = running);
  });
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await running?.stop();
  });

  async function connect(secret: string): Promise<Client> {
    const client = new Client({ name: 'mcp-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(mcp.endpoint), { requestInit: { headers: bearer(secret) } });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;

  /** REST and MCP agree: 2xx ↔ structuredContent equal to the body; otherwise the status's code ↔ the tool error's. */
  async function expectParity(rest: { status: number; body: any }, tool: CallToolResult, compare = true) {
    if (rest.status === 200) {
      expect(tool.isError ?? false).toBe(false);
      if (compare) expect(tool.structuredContent).toEqual(rest.body);
      expect(JSON.parse((tool.content[0] as { text: string }).text)).toEqual(tool.structuredContent);
    } else {
      const envelope = envelopeOf(tool);
      expect(envelope.error.code).toBe(rest.body.error.code);
      const { request_id: _a, ...restError } = rest.body.error;
      const { request_id: requestId, ...toolError } = envelope.error;
      expect(requestId).toMatch(/^req_/);
      expect(toolError).toEqual(restError);
    }
  }
  return { system: () => sys, server: () => mcp, clients, connect, call, expectParity };
}
