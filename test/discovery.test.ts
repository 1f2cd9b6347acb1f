// Discovery over REST and MCP: GET /v1/communities (list_communities) and the run lists GET
// /v1/communities/{id}/enrich/runs and GET /v1/me/enrich/runs (list_enrichment_runs). Each case is
// asked of both surfaces with the same credential: the bodies (or the refusals) must be equal.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { SCOPES } from '../services/kit/scopes.js';
import { bearer, request, type JsonResponse } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { startMcpSystem, type McpSystem } from './helpers/mcp-system.js';
import { inToolNames } from './helpers/tool-names.js';

const k = { all: liveKey(), narrow: liveKey(), legacy: liveKey(), nobody: liveKey(), reader: liveKey(), other: liveKey() };
const rate = { requested_rate: 6000 };
const seed: SeedInput = {
  users: [
    { id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' },
    { id: 'u_bob', email: 'bob@example.org', name: 'Bob', plan: 'paid' },
    { id: 'u_nobody', email: 'nobody@example.org', name: 'Nobody' },
  ],
  organizations: [{ id: 'o_lab', name: 'Lab', members: [{ user: 'u_ada', role: 'admin' }] }],
  communities: [
    { id: 'c_alpha', name: 'Alpha', owner: { user: 'u_ada' }, api_writes: true },
    { id: 'c_beta', name: 'Beta', owner: { organization: 'o_lab' } },
    { id: 'c_gamma', name: 'Gamma', owner: { user: 'u_bob' } },
    { id: 'c_archived', name: 'Archived', owner: { user: 'u_ada' }, archived: true, api_writes: true },
    { id: 'c_foreign', name: 'Foreign', owner: { user: 'u_bob' }, api_writes: true },
  ],
  profiles: [
    { id: 'p_ada', user: 'u_ada', name: 'Ada Lovelace' },
    { id: 'p_bob', user: 'u_bob', name: 'Bob Builder' },
    { id: 'p_one', name: 'One Person' },
    { id: 'p_two', name: 'Two Person' },
  ],
  memberships: [
    { community: 'c_alpha', profile: 'p_ada', role: 'owner' },
    { community: 'c_alpha', profile: 'p_one' },
    { community: 'c_alpha', profile: 'p_two' },
    { community: 'c_gamma', profile: 'p_ada', role: 'member' },
    { community: 'c_gamma', profile: 'p_bob', role: 'owner' },
    { community: 'c_archived', profile: 'p_ada', role: 'owner' },
    { community: 'c_foreign', profile: 'p_bob', role: 'owner' },
  ],
  keys: [
    { id: 'k_all', secret: k.all, owner: { user: 'u_ada' }, scopes: [...SCOPES], ...rate },
    { id: 'k_narrow', secret: k.narrow, owner: { user: 'u_ada' }, scopes: [...SCOPES], allowlist: ['c_gamma'], ...rate },
    { id: 'k_legacy', secret: k.legacy, owner: { organization: 'o_lab' }, scopes: [...SCOPES], ...rate },
    { id: 'k_nobody', secret: k.nobody, owner: { user: 'u_nobody' }, scopes: [...SCOPES], ...rate },
    { id: 'k_reader', secret: k.reader, owner: { user: 'u_ada' }, scopes: ['profile:read'], ...rate },
    { id: 'k_other', secret: k.other, owner: { user: 'u_bob' }, scopes: [...SCOPES], ...rate },
  ],
};

describe('discovery over REST and MCP', () => {
  let running: McpSystem | undefined;
  const clients = new Map<string, Client>();
  const communityRuns: string[] = [];
  const selfRuns: string[] = [];

  const rest = (secret: string, path: string) => request(running!.sys.restUrl, 'GET', path, { headers: bearer(secret) });
  const post = (secret: string, path: string, body: unknown) => request(running!.sys.restUrl, 'POST', path, { headers: bearer(secret), body });

  async function tool(secret: string, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
    let client = clients.get(secret);
    if (!client) {
      client = new Client({ name: 'discovery-test', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(running!.mcp.endpoint), { requestInit: { headers: bearer(secret) } }));
      clients.set(secret, client);
    }
    return (await client.callTool({ name, arguments: args })) as CallToolResult;
  }

  /** Asks both surfaces; they must agree (body ↔ structured result, envelope ↔ tool error). Returns REST's answer. */
  async function both(secret: string, path: string, name: string, args: Record<string, unknown> = {}): Promise<JsonResponse> {
    const [r, t] = await Promise.all([rest(secret, path), tool(secret, name, args)]);
    if (r.status === 200) {
      expect(t.isError ?? false).toBe(false);
      expect(t.structuredContent).toEqual(r.body);
    } else {
      expect(t.isError).toBe(true);
      const envelope = JSON.parse((t.content[0] as { text: string }).text);
      const { request_id: _r, ...restError } = r.body.error;
      const { request_id: _t, ...toolError } = envelope.error;
      // The same refusal, naming the tool's argument where REST names the request part.
      expect(toolError).toEqual({ ...restError, message: inToolNames(restError.message) });
    }
    return r;
  }

  beforeAll(async () => {
    // Providers off: the runs only need to exist, whatever becomes of them.
    running = await startMcpSystem(seed, { env: { ORCID_API_URL: 'off', OPENALEX_API_URL: 'off' } });
    for (let i = 0; i < 3; i++) {
      const res = await post(k.all, '/v1/communities/c_alpha/enrich', { depth: 'quick', include_already_enriched: true });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      communityRuns.unshift(res.body.run_id);
    }
    for (let i = 0; i < 2; i++) {
      const res = await post(k.all, '/v1/me/enrich', {});
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      selfRuns.unshift(res.body.run_id);
    }
  }, 120_000);
  afterAll(async () => {
    for (const c of clients.values()) await c.close().catch(() => undefined);
    await running?.stop();
  });

  describe('GET /v1/communities ↔ list_communities', () => {
    it('lists the reached communities in id order with role, write access, API-write setting and member count; never archived or foreign ones', async () => {
      const res = await both(k.all, '/v1/communities', 'list_communities');
      expect(res.status).toBe(200);
      expect(res.body.next_cursor).toBeNull();
      expect(res.body.communities).toEqual([
        { community_id: 'c_alpha', name: 'Alpha', role: 'owner', write_access: true, api_writes_enabled: true, member_count: 3, created_at: expect.any(String) },
        { community_id: 'c_beta', name: 'Beta', role: null, write_access: true, api_writes_enabled: false, member_count: 0, created_at: expect.any(String) },
        { community_id: 'c_gamma', name: 'Gamma', role: 'member', write_access: false, api_writes_enabled: false, member_count: 2, created_at: expect.any(String) },
      ]);
    });

    it('pages with limit and after until next_cursor is null, without repeats', async () => {
      const first = await both(k.all, '/v1/communities?limit=2', 'list_communities', { limit: 2 });
      expect(first.body.communities.map((c: { community_id: string }) => c.community_id)).toEqual(['c_alpha', 'c_beta']);
      expect(first.body.next_cursor).toEqual(expect.any(String));
      const after = first.body.next_cursor as string;
      const second = await both(k.all, `/v1/communities?limit=2&after=${encodeURIComponent(after)}`, 'list_communities', { limit: 2, after });
      expect(second.body).toEqual({ communities: [expect.objectContaining({ community_id: 'c_gamma' })], next_cursor: null });
    });

    it('an allowlist narrows the list; a legacy organization key lists its organization’s communities, without a role', async () => {
      const narrow = await both(k.narrow, '/v1/communities', 'list_communities');
      expect(narrow.body.communities.map((c: { community_id: string }) => c.community_id)).toEqual(['c_gamma']);
      const legacy = await both(k.legacy, '/v1/communities', 'list_communities');
      expect(legacy.body.communities).toEqual([expect.objectContaining({ community_id: 'c_beta', role: null, write_access: true })]);
    });

    it('a credential that reaches nothing gets an empty page, not an error', async () => {
      const res = await both(k.nobody, '/v1/communities', 'list_communities');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ communities: [], next_cursor: null });
    });

    it('a bad limit or a cursor not of this list is 400 invalid_request on both', async () => {
      const zero = await both(k.all, '/v1/communities?limit=0', 'list_communities', { limit: 0 });
      expect(zero.status).toBe(400);
      expect(zero.body.error.code).toBe('invalid_request');
      const runs = await rest(k.all, '/v1/me/enrich/runs?limit=1');
      const foreignCursor = runs.body.next_cursor as string;
      for (const after of [foreignCursor, 'not-a-cursor!', 'eyJ2IjoxfQ']) {
        const res = await both(k.all, `/v1/communities?after=${encodeURIComponent(after)}`, 'list_communities', { after });
        expect(res.status).toBe(400);
        expect(res.body.error).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('after') });
      }
    });
  });

  describe('GET /v1/communities/{id}/enrich/runs and GET /v1/me/enrich/runs ↔ list_enrichment_runs', () => {
    it('lists a community’s runs newest first, each as its poll shows it without the people', async () => {
      const res = await both(k.all, '/v1/communities/c_alpha/enrich/runs', 'list_enrichment_runs', { community_id: 'c_alpha' });
      expect(res.status).toBe(200);
      expect(res.body.runs.map((r: { run_id: string }) => r.run_id)).toEqual(communityRuns);
      expect(res.body.next_cursor).toBeNull();
      for (const run of res.body.runs) {
        expect(run).toMatchObject({ kind: 'community', community_id: 'c_alpha', depth: 'quick' });
        const poll = await rest(k.all, `/v1/communities/c_alpha/enrich/runs/${run.run_id}`);
        const { items: _items, next_items_after: _next, ...polled } = poll.body;
        // Progress may move between the two reads; identity and shape may not.
        expect(Object.keys(run).sort()).toEqual(Object.keys(polled).sort());
        expect({ ...run, status: null, counts: null, credits_charged: null, started_at: null, finished_at: null }).toEqual({
          ...polled, status: null, counts: null, credits_charged: null, started_at: null, finished_at: null,
        });
      }
    });

    it('pages the runs with limit and after', async () => {
      const seen: string[] = [];
      let after: string | null = null;
      do {
        const query: string = `?limit=2${after ? `&after=${encodeURIComponent(after)}` : ''}`;
        const page: JsonResponse = await both(k.all, `/v1/communities/c_alpha/enrich/runs${query}`, 'list_enrichment_runs', {
          community_id: 'c_alpha', limit: 2, ...(after && { after }),
        });
        expect(page.body.runs.length).toBeLessThanOrEqual(2);
        seen.push(...page.body.runs.map((r: { run_id: string }) => r.run_id));
        after = page.body.next_cursor;
      } while (after);
      expect(seen).toEqual(communityRuns);
    });

    it('lists the caller’s own self-enrichment runs only; another user and a legacy organization key see none of them', async () => {
      const mine = await both(k.all, '/v1/me/enrich/runs', 'list_enrichment_runs');
      expect(mine.body.runs.map((r: { run_id: string }) => r.run_id)).toEqual(selfRuns);
      for (const run of mine.body.runs) expect(run).toMatchObject({ kind: 'self', community_id: null });
      const other = await both(k.other, '/v1/me/enrich/runs', 'list_enrichment_runs');
      expect(other.body).toEqual({ runs: [], next_cursor: null });
      const legacy = await both(k.legacy, '/v1/me/enrich/runs', 'list_enrichment_runs');
      expect(legacy.body).toEqual({ runs: [], next_cursor: null });
    });

    it('a community without runs is an empty page', async () => {
      const res = await both(k.all, '/v1/communities/c_gamma/enrich/runs', 'list_enrichment_runs', { community_id: 'c_gamma' });
      expect(res.body).toEqual({ runs: [], next_cursor: null });
    });

    it('reach: outside the allowlist, foreign, archived or unknown is 403 on both, never an empty list', async () => {
      const cases: Array<[string, string]> = [[k.narrow, 'c_alpha'], [k.all, 'c_foreign'], [k.all, 'c_archived'], [k.all, 'c_unknown']];
      for (const [secret, community] of cases) {
        const res = await both(secret, `/v1/communities/${community}/enrich/runs`, 'list_enrichment_runs', { community_id: community });
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe('forbidden');
      }
    });

    it('scopes: enrich:read for a community’s runs, self:enrich for one’s own; refused alike, naming the scope', async () => {
      const community = await both(k.reader, '/v1/communities/c_alpha/enrich/runs', 'list_enrichment_runs', { community_id: 'c_alpha' });
      expect(community.status).toBe(403);
      expect(community.body.error).toMatchObject({ code: 'forbidden', required_scope: 'enrich:read' });
      const own = await both(k.reader, '/v1/me/enrich/runs', 'list_enrichment_runs');
      expect(own.status).toBe(403);
      expect(own.body.error).toMatchObject({ code: 'forbidden', required_scope: 'self:enrich' });
      // The communities list needs no particular scope: a profile:read key lists what it reaches.
      expect((await both(k.reader, '/v1/communities', 'list_communities')).status).toBe(200);
    });

    it('a cursor of another run list is 400 invalid_request', async () => {
      const page = await rest(k.all, '/v1/communities/c_alpha/enrich/runs?limit=1');
      const after = page.body.next_cursor as string;
      const self = await both(k.all, `/v1/me/enrich/runs?after=${encodeURIComponent(after)}`, 'list_enrichment_runs', { after });
      expect(self.status).toBe(400);
      const gamma = await both(k.all, `/v1/communities/c_gamma/enrich/runs?after=${encodeURIComponent(after)}`, 'list_enrichment_runs', { community_id: 'c_gamma', after });
      expect(gamma.status).toBe(400);
      expect(gamma.body.error.code).toBe('invalid_request');
    });
  });
});
