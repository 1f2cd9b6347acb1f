// The enrichment tools of the MCP server against their REST operations, with the official SDK's
// client, on the MCP server the runtime itself starts (with the edge's store, so idempotency_key is
// offered) and the REST edge of the same system: same credential, comparable data, so status ↔ tool
// error code and envelope, body ↔ structuredContent. Starts are compared but for the run id and the
// timestamps; polls of one run, dry runs and refusals are compared whole. The providers are off, so
// runs are quick and offline.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { bearer, request, type JsonResponse } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { storeNames } from './helpers/stores.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const k = { owner: liveKey(), read: liveKey(), outsider: liveKey(), self: liveKey(), free: liveKey() };
const rate = { requested_rate: 6000 };

const people = Array.from({ length: 6 }, (_, i) => ({ id: `p_m${i}`, name: `Member ${i}`, headline: 'Structural biologist', bio: 'Works on protein design.' }));

const seed: SeedInput = {
  users: [
    { id: 'u_owner', email: 'owner@example.org', name: 'Owner', plan: 'paid' },
    { id: 'u_outsider', email: 'outsider@example.org', name: 'Outsider', plan: 'paid' },
    { id: 'u_paid', email: 'paid@example.org', name: 'Paid Person', plan: 'paid' },
    { id: 'u_free', email: 'free@example.org', name: 'Free Person' },
  ],
  organizations: [{ id: 'o_lab', name: 'Lab', members: [{ user: 'u_owner', role: 'owner' }] }],
  communities: [
    { id: 'c_lab', name: 'Lab Community', owner: { organization: 'o_lab' }, api_writes: true },
    { id: 'c_other', name: 'Other Lab Community', owner: { organization: 'o_lab' }, api_writes: true },
    { id: 'c_closed', name: 'Closed', owner: { organization: 'o_lab' } },
  ],
  profiles: [
    ...people.map((p) => ({ id: p.id, name: p.name, headline: p.headline, bio: p.bio })),
    { id: 'p_paid', user: 'u_paid', name: 'Paid Person', headline: 'Data scientist', bio: 'Builds forecasting models.' },
    { id: 'p_free', user: 'u_free', name: 'Free Person', headline: 'Chemist' },
    { id: 'p_closed', name: 'Closed Member' },
  ],
  memberships: [
    ...people.map((p, i) => ({ community: 'c_lab', profile: p.id, role: 'member' as const, joined_at: `2026-0${1 + i}-15T00:00:00Z` })),
    { community: 'c_other', profile: 'p_m0', role: 'member' },
    { community: 'c_closed', profile: 'p_closed', role: 'member' },
  ],
  wallets: [
    { owner: { organization: 'o_lab' }, balance: 10_000 },
    { owner: { user: 'u_paid' }, balance: 100 },
  ],
  keys: [
    { id: 'k_owner', secret: k.owner, owner: { user: 'u_owner' }, scopes: ['enrich:write', 'enrich:read', 'profile:read', 'self:enrich'], ...rate },
    { id: 'k_read', secret: k.read, owner: { user: 'u_owner' }, scopes: ['profile:read'], ...rate },
    { id: 'k_outsider', secret: k.outsider, owner: { user: 'u_outsider' }, scopes: ['enrich:write', 'enrich:read'], ...rate },
    { id: 'k_self', secret: k.self, owner: { user: 'u_paid' }, scopes: ['self:enrich', 'profile:read'], ...rate },
    { id: 'k_free', secret: k.free, owner: { user: 'u_free' }, scopes: ['self:enrich'], ...rate },
  ],
};

type Envelope = { error: { code: string; message: string; request_id: string; [k: string]: unknown } };

/** The REST error envelope a tool error carries as JSON text. */
function envelopeOf(result: CallToolResult): Envelope {
  expect(result.isError, JSON.stringify(result.content)).toBe(true);
  const text = result.content.find((c) => c.type === 'text');
  return JSON.parse((text as { text: string }).text) as Envelope;
}

/** A run as both surfaces answer it, but for what differs between two runs: the id and the times. */
const withoutIdentity = (run: any) => ({ ...run, run_id: undefined, created_at: undefined, started_at: undefined, finished_at: undefined });

describe.each(storeNames())('MCP enrichment tools on %s (parity with REST)', (store) => {
  let sys: TestSystem;
  const clients: Client[] = [];

  beforeAll(async () => {
    sys = await startTestSystem({ store, seed, env: { ORCID_API_URL: 'off', OPENALEX_API_URL: 'off' } });
  });
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await sys?.stop();
  });

  async function connect(secret: string): Promise<Client> {
    const client = new Client({ name: 'mcp-enrichment-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(sys.mcpUrl!), { requestInit: { headers: bearer(secret) } }));
    clients.push(client);
    return client;
  }
  const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;

  // REST
  const estimateRest = (secret: string, community: string, body: Record<string, unknown>) =>
    request(sys.restUrl, 'POST', `/v1/communities/${community}/enrich`, { headers: bearer(secret), body: { ...body, dry_run: true } });
  const startRest = (secret: string, community: string, body: unknown) =>
    request(sys.restUrl, 'POST', `/v1/communities/${community}/enrich`, { headers: bearer(secret), body });
  const pollRest = (secret: string, community: string | undefined, runId: string, query = '') =>
    request(sys.restUrl, 'GET', community ? `/v1/communities/${community}/enrich/runs/${runId}${query}` : `/v1/me/enrich/runs/${runId}${query}`, {
      headers: bearer(secret),
    });
  const selfRest = (secret: string) => request(sys.restUrl, 'POST', '/v1/me/enrich', { headers: bearer(secret) });

  /** A 2xx answer and the tool's result carry the same body (structured, and as text). */
  function expectSameBody(rest: JsonResponse, tool: CallToolResult, view: (b: any) => unknown = (b) => b): void {
    expect(rest.status, JSON.stringify(rest.body)).toBeLessThan(300);
    expect(tool.isError ?? false, JSON.stringify(tool.content)).toBe(false);
    expect(view(tool.structuredContent)).toEqual(view(rest.body));
    expect(JSON.parse((tool.content[0] as { text: string }).text)).toEqual(tool.structuredContent);
  }

  /** A refusal: the tool error carries REST's envelope (code, message, extras), with its own request id. */
  function expectSameRefusal(rest: JsonResponse, tool: CallToolResult, status: number, code: string): Envelope {
    expect(rest.status, JSON.stringify(rest.body)).toBe(status);
    expect(rest.body.error.code).toBe(code);
    const envelope = envelopeOf(tool);
    const { request_id: _rest, ...restError } = rest.body.error;
    const { request_id: requestId, ...toolError } = envelope.error;
    expect(requestId).toMatch(/^req_/);
    expect(toolError).toEqual(restError);
    return envelope;
  }

  /** Polls through MCP until the run is final. */
  async function untilFinal(client: Client, args: { run_id: string; community_id?: string }): Promise<CallToolResult> {
    for (let i = 0; i < 300; i++) {
      const poll = await call(client, 'get_enrichment_run', args);
      expect(poll.isError ?? false, JSON.stringify(poll.content)).toBe(false);
      const status = (poll.structuredContent as { status: string }).status;
      if (status === 'succeeded' || status === 'failed') return poll;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('the run did not finish');
  }

  it('estimate_community_enrichment equals the REST dry run, exactly', async () => {
    const client = await connect(k.owner);
    const cases: Record<string, unknown>[] = [
      { depth: 'standard', joined_since: '2026-03-01T00:00:00Z' },
      { depth: 'deep', profile_ids: ['p_m1', 'p_m2', 'p_closed'] },
      { depth: 'quick', include_already_enriched: true, workflow_key: 'smart_enrich' },
      {},
    ];
    for (const options of cases) {
      const rest = await estimateRest(k.owner, 'c_lab', options);
      expect(rest.status).toBe(200);
      const tool = await call(client, 'estimate_community_enrichment', { community_id: 'c_lab', ...options });
      expectSameBody(rest, tool);
    }
    expect((await call(client, 'estimate_community_enrichment', { community_id: 'c_lab', depth: 'standard', joined_since: '2026-03-01T00:00:00Z' })).structuredContent)
      .toEqual({ eligible_count: 4, total_members: 6, estimated_max_credits_per_profile: 3, estimated_max_credits: 12 });
    // Without depth: counts only.
    expect((await call(client, 'estimate_community_enrichment', { community_id: 'c_lab' })).structuredContent).toMatchObject({
      estimated_max_credits_per_profile: null,
      estimated_max_credits: null,
    });
    // Outside the write reach: forbidden on both; a dry run needs no attestation: c_closed estimates.
    const outsider = await connect(k.outsider);
    expectSameRefusal(
      await estimateRest(k.outsider, 'c_lab', { depth: 'quick' }),
      await call(outsider, 'estimate_community_enrichment', { community_id: 'c_lab', depth: 'quick' }),
      403,
      'forbidden',
    );
    expectSameBody(await estimateRest(k.owner, 'c_closed', { depth: 'quick' }), await call(client, 'estimate_community_enrichment', { community_id: 'c_closed', depth: 'quick' }));
  });

  it('start_community_enrichment answers what REST answers, and the run polls to succeeded through MCP, as REST sees it', async () => {
    const client = await connect(k.owner);
    const options = { depth: 'quick', profile_ids: ['p_m0', 'p_m1', 'p_m2', 'p_closed'], include_already_enriched: true };
    const rest = await startRest(k.owner, 'c_lab', options);
    expect(rest.status, JSON.stringify(rest.body)).toBe(202);
    // The same people in a run still working would be skipped (docs/ENRICHMENT.md, overlapping
    // runs): the MCP run starts once the REST one is done, so both see the same community.
    await untilFinal(client, { run_id: rest.body.run_id, community_id: 'c_lab' });
    const tool = await call(client, 'start_community_enrichment', { community_id: 'c_lab', ...options });
    expectSameBody(rest, tool, withoutIdentity);
    const run = tool.structuredContent as { run_id: string };
    expect(run.run_id).not.toBe(rest.body.run_id);
    expect(tool.structuredContent).toMatchObject({ kind: 'community', community_id: 'c_lab', depth: 'quick', eligible_count: 3, credits_charged: 0 });

    const done = await untilFinal(client, { run_id: run.run_id, community_id: 'c_lab' });
    expect(done.structuredContent).toMatchObject({
      run_id: run.run_id,
      status: 'succeeded',
      counts: { total: 4, succeeded: 3, failed: 0, skipped: 1 },
      credits_charged: 3,
      next_items_after: null,
    });
    // A poll of one run: equal on both surfaces, for the MCP-started run and the REST-started one.
    expectSameBody(await pollRest(k.owner, 'c_lab', run.run_id), await call(client, 'get_enrichment_run', { run_id: run.run_id, community_id: 'c_lab' }));
    const restRun = await pollRest(k.owner, 'c_lab', rest.body.run_id);
    expectSameBody(restRun, await call(client, 'get_enrichment_run', { run_id: rest.body.run_id, community_id: 'c_lab' }));
    // Both runs did the same: equal but for the identity.
    expect(withoutIdentity(done.structuredContent)).toEqual(withoutIdentity(restRun.body));
    // items_after pages alike.
    expectSameBody(
      await pollRest(k.owner, 'c_lab', run.run_id, '?items_after=p_m0'),
      await call(client, 'get_enrichment_run', { run_id: run.run_id, community_id: 'c_lab', items_after: 'p_m0' }),
    );
    expect(((await call(client, 'get_enrichment_run', { run_id: run.run_id, community_id: 'c_lab', items_after: 'p_m0' })).structuredContent as any).items[0].profile_id).toBe('p_m1');
  });

  it('refusals agree: a missing scope is forbidden naming it; a start without depth is invalid_request; writes not enabled are unprocessable', async () => {
    const reader = await connect(k.read);
    const cases: [string, JsonResponse, CallToolResult, string][] = [
      ['estimate', await estimateRest(k.read, 'c_lab', { depth: 'quick' }), await call(reader, 'estimate_community_enrichment', { community_id: 'c_lab', depth: 'quick' }), 'enrich:write'],
      ['start', await startRest(k.read, 'c_lab', { depth: 'quick' }), await call(reader, 'start_community_enrichment', { community_id: 'c_lab', depth: 'quick' }), 'enrich:write'],
      ['community poll', await pollRest(k.read, 'c_lab', 'run_unknown'), await call(reader, 'get_enrichment_run', { run_id: 'run_unknown', community_id: 'c_lab' }), 'enrich:read'],
      ['self poll', await pollRest(k.read, undefined, 'run_unknown'), await call(reader, 'get_enrichment_run', { run_id: 'run_unknown' }), 'self:enrich'],
      ['self start', await selfRest(k.read), await call(reader, 'enrich_my_profile'), 'self:enrich'],
    ];
    for (const [what, rest, tool, scope] of cases) {
      const envelope = expectSameRefusal(rest, tool, 403, 'forbidden');
      expect(envelope.error.required_scope, what).toBe(scope);
      expect(envelope.error.message, what).toContain(scope);
    }

    const owner = await connect(k.owner);
    const noDepth = expectSameRefusal(
      await startRest(k.owner, 'c_lab', { profile_ids: ['p_m3'] }),
      await call(owner, 'start_community_enrichment', { community_id: 'c_lab', profile_ids: ['p_m3'] }),
      400,
      'invalid_request',
    );
    expect(noDepth.error.message).toMatch(/depth is required/);
    expectSameRefusal(
      await startRest(k.owner, 'c_closed', { depth: 'quick' }),
      await call(owner, 'start_community_enrichment', { community_id: 'c_closed', depth: 'quick' }),
      422,
      'unprocessable',
    );
  });

  it('start_community_enrichment honours idempotency_key: the same key twice is one run; other arguments are unprocessable', async () => {
    const client = await connect(k.owner);
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'start_community_enrichment')!.inputSchema.properties).toHaveProperty('idempotency_key');

    const args = { community_id: 'c_lab', depth: 'quick', profile_ids: ['p_m4', 'p_m5'], include_already_enriched: true, idempotency_key: `enrich-mcp-${store}` };
    const first = await call(client, 'start_community_enrichment', args);
    expect(first.isError ?? false, JSON.stringify(first.content)).toBe(false);
    expect(first._meta?.['expertnet/idempotent_replayed']).toBeUndefined();
    const again = await call(client, 'start_community_enrichment', args);
    expect(again.isError ?? false).toBe(false);
    expect(again.structuredContent).toEqual(first.structuredContent);
    expect(again._meta).toMatchObject({ 'expertnet/idempotent_replayed': true });

    const runId = (first.structuredContent as { run_id: string }).run_id;
    const done = await untilFinal(client, { run_id: runId, community_id: 'c_lab' });
    // One run, charged once per person.
    expect(done.structuredContent).toMatchObject({ counts: { total: 2, succeeded: 2 }, credits_charged: 2 });

    const other = envelopeOf(await call(client, 'start_community_enrichment', { ...args, depth: 'deep' }));
    expect(other.error.code).toBe('unprocessable');
    expect(other.error.message).toContain('idempotency_key');
    // A refusal is not stored: a start without depth under a fresh key, then a good one under the same key.
    const key = `enrich-mcp-refused-${store}`;
    expect(envelopeOf(await call(client, 'start_community_enrichment', { community_id: 'c_lab', idempotency_key: key })).error.code).toBe('invalid_request');
    const retried = await call(client, 'start_community_enrichment', { community_id: 'c_lab', depth: 'quick', profile_ids: ['p_m5'], idempotency_key: key });
    expect(retried.isError ?? false, JSON.stringify(retried.content)).toBe(false);
  });

  it('enrich_my_profile answers what REST answers, starts a new run on every call, and its run polls alike', async () => {
    const client = await connect(k.self);
    const rest = await selfRest(k.self);
    expect(rest.status, JSON.stringify(rest.body)).toBe(202);
    const first = await call(client, 'enrich_my_profile');
    expectSameBody(rest, first, withoutIdentity);
    expect(first.structuredContent).toMatchObject({ kind: 'self', community_id: null, depth: 'standard', credits_charged: 1 });
    const second = await call(client, 'enrich_my_profile');
    expect(second.isError ?? false).toBe(false);
    const ids = [rest.body.run_id, (first.structuredContent as any).run_id, (second.structuredContent as any).run_id];
    expect(new Set(ids).size).toBe(3);

    const done = await untilFinal(client, { run_id: ids[1] });
    expect(done.structuredContent).toMatchObject({ status: 'succeeded', counts: { total: 1, succeeded: 1 }, credits_charged: 1 });
    expectSameBody(await pollRest(k.self, undefined, ids[1]), await call(client, 'get_enrichment_run', { run_id: ids[1] }));
    await untilFinal(client, { run_id: ids[0] });
    expectSameBody(await pollRest(k.self, undefined, ids[0]), await call(client, 'get_enrichment_run', { run_id: ids[0] }));
  });

  it('a free plan: after one run, the 30-day cooldown is the same rate_limited with available_at on both', async () => {
    const client = await connect(k.free);
    const first = await call(client, 'enrich_my_profile');
    expect(first.isError ?? false, JSON.stringify(first.content)).toBe(false);
    expect(first.structuredContent).toMatchObject({ kind: 'self', credits_charged: 0 });
    const refused = expectSameRefusal(await selfRest(k.free), await call(client, 'enrich_my_profile'), 429, 'rate_limited');
    expect(Date.parse(String(refused.error.available_at)) - Date.now()).toBeGreaterThan(29 * 86_400_000);
  });

  it('get_enrichment_run is fenced: another community, no community for a community run, another caller’s self run → not_found', async () => {
    const owner = await connect(k.owner);
    const started = await call(owner, 'start_community_enrichment', { community_id: 'c_lab', depth: 'quick', profile_ids: ['p_m3'], include_already_enriched: true });
    const runId = (started.structuredContent as { run_id: string }).run_id;
    expectSameRefusal(await pollRest(k.owner, 'c_other', runId), await call(owner, 'get_enrichment_run', { run_id: runId, community_id: 'c_other' }), 404, 'not_found');
    expectSameRefusal(await pollRest(k.owner, undefined, runId), await call(owner, 'get_enrichment_run', { run_id: runId }), 404, 'not_found');
    expectSameRefusal(await pollRest(k.owner, 'c_lab', 'run_unknown'), await call(owner, 'get_enrichment_run', { run_id: 'run_unknown', community_id: 'c_lab' }), 404, 'not_found');
    const outsider = await connect(k.outsider);
    expectSameRefusal(await pollRest(k.outsider, 'c_lab', runId), await call(outsider, 'get_enrichment_run', { run_id: runId, community_id: 'c_lab' }), 403, 'forbidden');

    const self = await connect(k.self);
    const selfRun = (await call(self, 'enrich_my_profile')).structuredContent as { run_id: string };
    expectSameRefusal(await pollRest(k.owner, undefined, selfRun.run_id), await call(owner, 'get_enrichment_run', { run_id: selfRun.run_id }), 404, 'not_found');
    // A self run is not a community run either.
    expectSameRefusal(
      await pollRest(k.owner, 'c_lab', selfRun.run_id),
      await call(owner, 'get_enrichment_run', { run_id: selfRun.run_id, community_id: 'c_lab' }),
      404,
      'not_found',
    );
  });
});
