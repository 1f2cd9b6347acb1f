// Expert search over real HTTP (docs/SEARCH.md): the request rules, the scope rules (spec rules
// 2–7), jobs (200 complete, 202 pending then polling, fencing, expiry by 404), billing exactly once
// (spec billing rules 3–5) and never for failures, a reach change between start and poll, MCP
// parity. The worker against the job store directly is services/search/search-jobs.test.ts.
//
// The product's ranking pipeline (services/search/pipeline) runs unchanged; this suite only wraps it
// so that chosen queries wait for a gate (to observe a running job) or fail like a provider outage.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createEdge } from '../gateway/core/edge.js';
import { MemoryRateLimiter } from '../services/kit/rate-limit/memory-limiter.js';
import { SearchComplete, SearchPending } from '../gateway/core/contract/search.js';
import { startMcpHttpServer, type RunningMcpServer } from '../gateway/mcp/server.js';
import { OwnerType } from '../proto/gen/expertnet/common/v1/common.js';
import { callAs } from '../services/kit/grpc/client.js';
import type { SearchPipeline } from '../services/search/pipeline/pipeline.js';
import { bearer, request, type JsonResponse } from './helpers/http.js';
import { storeNames } from './helpers/stores.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';
import { k, seed } from './helpers/search-seed.js';

/** Test control of the wrapped pipeline: queries starting "gated" wait for the gate; "outage" fails. */
const control = vi.hoisted(() => {
  let release: () => void = () => undefined;
  let gate = Promise.resolve();
  return {
    close() {
      gate = new Promise<void>((r) => (release = r));
    },
    open() {
      release();
    },
    wait: () => gate,
  };
});

vi.mock('../services/search/pipeline/index.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../services/search/pipeline/index.js')>();
  return {
    ...real,
    createSearchPipeline: (options?: Parameters<typeof real.createSearchPipeline>[0]): SearchPipeline => {
      const pipeline = real.createSearchPipeline(options);
      return {
        provider: pipeline.provider,
        async rank(db, req) {
          if (req.query.startsWith('gated')) await control.wait();
          if (req.query.includes('outage')) throw new real.ServiceError('embeddings provider unreachable', 'network');
          return pipeline.rank(db, req);
        },
        storeVectors: (db, keys) => pipeline.storeVectors(db, keys),
        prepareVectors: (db, docs) => pipeline.prepareVectors(db, docs),
      };
    },
  };
});


describe.each(storeNames())('expert search on %s', (store) => {
  let sys: TestSystem;
  let mcp: RunningMcpServer;
  let mcpClient: Client | undefined;

  beforeAll(async () => {
    sys = await startTestSystem({ store, seed });
    mcp = await startMcpHttpServer({
      edge: createEdge({ clients: sys.clients, signer: sys.signer, deadlineMs: 10_000 }),
      limiter: new MemoryRateLimiter(),
      host: '127.0.0.1',
      port: 0,
      authorizationServers: ['http://127.0.0.1:8080/oauth'],
    });
  });
  afterAll(async () => {
    control.open();
    await mcpClient?.close().catch(() => undefined);
    await mcp?.close();
    await sys?.stop();
  });

  const operator = () => callAs(sys.signer, { kind: 'operator', actor: 'search-test' }, undefined, 10_000);
  const search = (secret: string, body: unknown) => request(sys.restUrl, 'POST', '/v1/search', { headers: bearer(secret), body });
  const poll = (secret: string, id: string) => request(sys.restUrl, 'GET', `/v1/search/${id}`, { headers: bearer(secret) });
  const ids = (res: JsonResponse) => (res.body.matches as Array<{ profile_id: string }>).map((m) => m.profile_id);
  const matchOf = (res: JsonResponse, id: string) => (res.body.matches as Array<{ profile_id: string; shared_communities: string[] }>).find((m) => m.profile_id === id);

  function expectError(res: JsonResponse, status: number, code: string) {
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body.error.code).toBe(code);
  }

  /** Ledger entries of u_ana (the payer of these searches: a global search falls to the personal wallet). */
  async function searchCharges(): Promise<string[]> {
    const { entries } = await sys.clients.billing.listLedgerEntries(
      { owner: { type: OwnerType.OWNER_TYPE_USER, id: 'u_ana' }, pageSize: 500, pageToken: '' },
      await operator(),
    );
    return entries.map((e) => e.reference).filter((r) => r.startsWith('search:'));
  }

  async function pollUntilDone(secret: string, id: string): Promise<JsonResponse> {
    for (let i = 0; i < 100; i++) {
      const res = await poll(secret, id);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      if (res.body.status !== 'running') return res;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`search ${id} did not finish`);
  }

  describe('request rules (400 invalid_request, nothing searched)', () => {
    it.each([
      ['include_teams true', { query: 'pond', scope: 'all', include_teams: true }],
      ['include_teams false (whatever its value)', { query: 'pond', scope: 'all', include_teams: false }],
      ['include_teams null', { query: 'pond', scope: 'all', include_teams: null }],
      ['scope community without community_id', { query: 'pond', scope: 'community' }],
      ['no query', { scope: 'all' }],
      ['an empty query', { query: '', scope: 'all' }],
      ['a blank query', { query: '   ', scope: 'all' }],
      ['a query over 1000 characters', { query: 'x'.repeat(1001), scope: 'all' }],
      ['no scope', { query: 'pond' }],
      ['an unknown scope', { query: 'pond', scope: 'teams' }],
      ['limit 0', { query: 'pond', scope: 'all', limit: 0 }],
      ['limit not a whole number', { query: 'pond', scope: 'all', limit: 2.5 }],
      ['wait_seconds over 25', { query: 'pond', scope: 'all', wait_seconds: 26 }],
      ['wait_seconds below 0', { query: 'pond', scope: 'all', wait_seconds: -1 }],
      ['an unknown field', { query: 'pond', scope: 'all', teams: true }],
    ])('refuses %s', async (_name, body) => {
      const before = await searchCharges();
      expectError(await search(k.ana, body), 400, 'invalid_request');
      expect(await searchCharges()).toEqual(before);
    });

    it('needs search:read (403 naming the scope)', async () => {
      const res = await search(k.noScope, { query: 'pond', scope: 'all' });
      expectError(res, 403, 'forbidden');
      expect(res.body.error.required_scope).toBe('search:read');
    });

    it('clamps a limit over 50 instead of refusing it, and honours a small limit', async () => {
      expect((await search(k.ana, { query: 'ecologist', scope: 'all', limit: 500 })).status).toBe(200);
      const one = await search(k.ana, { query: 'ecologist', scope: 'all', limit: 1 });
      expect(one.status).toBe(200);
      expect(one.body.matches).toHaveLength(1);
    });
  });

  describe('scope rules', () => {
    it.each([
      ['a community the key may not read', 'c_other'],
      ['an archived community', 'c_arch'],
      ['an unknown community', 'c_nowhere'],
    ])('rule 6: scope community for %s is 403, never an empty result', async (_name, community) => {
      expectError(await search(k.ana, { query: 'pond ecologist', scope: 'community', community_id: community }), 403, 'forbidden');
    });

    it('rule 4: scope all with no readable community is 422 unprocessable (no public fallback), also when an allowlist empties it', async () => {
      const before = await searchCharges();
      expectError(await search(k.outsider, { query: 'pond ecologist', scope: 'all' }), 422, 'unprocessable');
      expectError(await search(k.allowNone, { query: 'pond ecologist', scope: 'all' }), 422, 'unprocessable');
      expect(await searchCharges()).toEqual(before);
    });

    it('rule 2: scope community searches that one community, with no public matches', async () => {
      const res = await search(k.ana, { query: 'pond ecologist', scope: 'community', community_id: 'c_bio' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(ids(res)).toContain('p_eco');
      for (const id of ids(res)) expect(['p_ana', 'p_eco']).toContain(id);
      // shared_communities: every community the caller may read that holds the person.
      expect(matchOf(res, 'p_eco')!.shared_communities).toEqual(['c_bio', 'c_chem']);
    });

    it('rule 3: scope all covers the readable communities plus public claimed profiles, nothing else', async () => {
      const res = await search(k.ana, { query: 'pond ecologist', scope: 'all', limit: 50 });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(ids(res)).toEqual(expect.arrayContaining(['p_eco', 'p_gone', 'p_public']));
      for (const hidden of ['p_secret', 'p_arch', 'p_private', 'p_unclaimed']) expect(ids(res)).not.toContain(hidden);
      expect(matchOf(res, 'p_public')!.shared_communities).toEqual([]);
      expect(matchOf(res, 'p_gone')!.shared_communities).toEqual(['c_gone']);
    });

    it('rule 5: scope public covers public claimed profiles only (empty shared_communities), even for a key with no community', async () => {
      for (const secret of [k.ana, k.outsider]) {
        const res = await search(secret, { query: 'pond ecologist', scope: 'public', limit: 50 });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(ids(res)).toEqual(['p_public']);
        expect(res.body.matches[0].shared_communities).toEqual([]);
      }
    });
  });

  it('ignores Idempotency-Key: the same key twice starts two searches, neither replayed', async () => {
    const headers = { ...bearer(k.ana), 'idempotency-key': `search-${store}-twice` };
    const body = { query: 'freshwater pond ecologist', scope: 'all' };
    const first = await request(sys.restUrl, 'POST', '/v1/search', { headers, body });
    const second = await request(sys.restUrl, 'POST', '/v1/search', { headers, body });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body.search_id).not.toBe(first.body.search_id);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
  });

  it('200 complete: the documented match shape; billed once (search:<id>) right after the result is stored', async () => {
    const res = await search(k.ana, { query: 'freshwater pond ecologist', scope: 'all' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(SearchComplete.strict().safeParse(res.body).success, JSON.stringify(res.body)).toBe(true);
    const elin = matchOf(res, 'p_eco') as Record<string, unknown>;
    expect(Object.keys(elin).sort()).toEqual(
      ['avatar_url', 'explanation', 'headline', 'location', 'name', 'organization', 'profile_id', 'score', 'semantic_score', 'shared_communities', 'user_id', 'weak_match'],
    );
    expect(elin).toMatchObject({
      profile_id: 'p_eco', user_id: null, name: 'Elin Ecologist', headline: 'Freshwater pond ecologist',
      organization: 'Pond Institute', location: 'Oslo', avatar_url: 'https://img.example.org/elin.png', shared_communities: ['c_bio', 'c_chem'],
    });
    expect(typeof elin.score).toBe('number');
    expect(typeof elin.semantic_score).toBe('number');
    expect(res.body.matches[0].profile_id).toBe('p_eco'); // the best match first
    expect((await searchCharges()).filter((r) => r === `search:${res.body.search_id}`)).toHaveLength(1);
    // A completed search can be polled again by its key: the same result, still charged once.
    const again = await poll(k.ana, res.body.search_id);
    expect(again.body).toEqual(res.body);
    expect((await searchCharges()).filter((r) => r === `search:${res.body.search_id}`)).toHaveLength(1);
  });

  it('indexing stores each document’s vector (checked in the table on PostgreSQL); explanations name no machinery', async () => {
    if (store === 'postgres') {
      const client = new pg.Client({ connectionString: sys.env.DATABASE_URL });
      await client.connect();
      try {
        // Every document the seed indexed holds the default embedder's 100-dimension vector.
        const { rows } = await client.query(`SELECT count(*)::int AS n, count(*) FILTER (WHERE embedding_model = 'glove-6b-100d-sif' AND cardinality(embedding) = 100)::int AS embedded FROM search.documents`);
        expect(rows[0].n).toBeGreaterThan(0);
        expect(rows[0].embedded).toBe(rows[0].n);
      } finally {
        await client.end();
      }
    }
    const res = await search(k.ana, { query: 'freshwater pond ecologist', scope: 'all' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const elin = matchOf(res, 'p_eco') as unknown as { explanation: string };
    for (const machinery of ['glove-6b-100d-sif', 'offline-hash-512', 'embedder', 'pgvector', 'nearest-neighbour', 'WordNet', 'RRF']) expect(elin.explanation).not.toContain(machinery);
  });

  it('explanations quote the profile with the query’s words in bold; a poor fit is flagged weak_match and said so', async () => {
    const good = await search(k.ana, { query: 'freshwater pond ecologist', scope: 'all' });
    expect(good.status, JSON.stringify(good.body)).toBe(200);
    const elin = matchOf(good, 'p_eco') as unknown as { explanation: string; weak_match: boolean };
    expect(elin.explanation).toContain('Matches "freshwater", "pond" and "ecologist" in the name, headline and organization: "**Freshwater pond ecologist**"; "**Pond** Institute".');
    expect(elin.explanation).toContain('Good match: 3 of 3 words of the request found.');
    expect(elin.weak_match).toBe(false);
    expect(good.body.no_good_match).toBe(false);

    // Only "marine" of five words is in Paula's profile: still listed, but flagged and said so.
    const poor = await search(k.ana, { query: 'review a CRISPR grant on marine pollution', scope: 'all' });
    expect(poor.status, JSON.stringify(poor.body)).toBe(200);
    const paula = matchOf(poor, 'p_public') as unknown as { explanation: string; weak_match: boolean };
    expect(paula.weak_match).toBe(true);
    expect(paula.explanation).toContain('Matches "marine" in the headline: "**Marine** and pond ecologist".');
    expect(paula.explanation).toContain('Weak match: only 1 of 5 words of the request found; nothing here fits the request well.');
    // Said once for the whole answer: true exactly when no match is good.
    expect(poor.body.no_good_match).toBe(poor.body.matches.every((m: { weak_match: boolean }) => m.weak_match));
    const none = await search(k.ana, { query: 'zzqx blorft', scope: 'all' });
    expect(none.status, JSON.stringify(none.body)).toBe(200);
    expect(none.body).toMatchObject({ status: 'complete', matches: [], no_good_match: true });
    expect((await poll(k.ana, none.body.search_id)).body).toMatchObject({ status: 'complete', no_good_match: true });
  });

  it('202 with wait_seconds 0, then polling to complete; fenced to the key; charged exactly once under 10 parallel polls', async () => {
    control.close();
    const started = await search(k.ana, { query: 'gated pond ecologist', scope: 'all', wait_seconds: 0 });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    expect(SearchPending.strict().safeParse(started.body).success).toBe(true);
    expect(started.body).toMatchObject({ status: 'pending', poll_after_seconds: 2 });
    const id: string = started.body.search_id;
    expect(started.headers.get('retry-after')).toBe('2');
    expect(started.headers.get('location')).toBe(`/v1/search/${id}`);

    const running = await poll(k.ana, id);
    expect(running.status).toBe(200);
    expect(running.body).toEqual({ search_id: id, status: 'running', poll_after_seconds: 2 });
    expect(await searchCharges()).not.toContain(`search:${id}`);

    // Another key of the same user, an unknown id: 404 alike.
    expectError(await poll(k.ana2, id), 404, 'not_found');
    expectError(await poll(k.ana, 'srch_unknown'), 404, 'not_found');

    control.open();
    const results = await Promise.all(Array.from({ length: 10 }, () => pollUntilDone(k.ana, id)));
    for (const res of results) {
      expect(res.body.status).toBe('complete');
      expect(ids(res)).toContain('p_eco');
    }
    expect((await searchCharges()).filter((r) => r === `search:${id}`)).toHaveLength(1);
    expectError(await poll(k.ana2, id), 404, 'not_found');
  });

  it('a finished search polled again is answered from memory, the same result, still fenced to the key that started it', async () => {
    const done = await search(k.ana, { query: 'pond ecologist', scope: 'all' });
    expect(done.body.status, JSON.stringify(done.body)).toBe('complete');
    const id: string = done.body.search_id;
    const first = await poll(k.ana, id); // read from the store, then kept (complete and charged)
    expect(first.status).toBe(200);
    expect(first.body).toEqual(done.body);
    // The row gone behind the service's back: the kept job still answers, so the poll read no store.
    await sys.db!.query('DELETE FROM search.search_jobs WHERE id = $1', [id]);
    const again = await poll(k.ana, id);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(done.body);
    expectError(await poll(k.ana2, id), 404, 'not_found');
    expect((await searchCharges()).filter((r) => r === `search:${id}`)).toHaveLength(1);
  });

  it('a failed search is not billed: 502 search_unavailable within the wait, `failed` when polled', async () => {
    const before = await searchCharges();
    expectError(await search(k.ana, { query: 'provider outage', scope: 'all' }), 502, 'search_unavailable');

    control.close();
    const started = await search(k.ana, { query: 'gated provider outage', scope: 'all', wait_seconds: 0 });
    expect(started.status).toBe(202);
    control.open();
    const done = await pollUntilDone(k.ana, started.body.search_id);
    expect(done.body).toEqual({ search_id: started.body.search_id, status: 'failed' });
    expect(await searchCharges()).toEqual(before);
  });

  it('a reach change between start and poll: the poll answers the stored result to the starting key; new searches see the change', async () => {
    control.close();
    const started = await search(k.ana, { query: 'gated glacier pond ecologist', scope: 'community', community_id: 'c_gone', wait_seconds: 0 });
    expect(started.status).toBe(202);
    await sys.clients.communities.archiveCommunity({ communityId: 'c_gone', archived: true }, await operator());
    try {
      control.open();
      const done = await pollUntilDone(k.ana, started.body.search_id);
      expect(done.body.status).toBe('complete');
      expect(ids(done)).toContain('p_gone');
      expectError(await search(k.ana, { query: 'glacier', scope: 'community', community_id: 'c_gone' }), 403, 'forbidden');
      const all = await search(k.ana, { query: 'glacier pond ecologist', scope: 'all' });
      expect(ids(all)).not.toContain('p_gone');
    } finally {
      await sys.clients.communities.archiveCommunity({ communityId: 'c_gone', archived: false }, await operator());
    }
  });

  it('corpus upkeep: members added through the API are searchable at once', async () => {
    const added = await request(sys.restUrl, 'POST', '/v1/communities/c_bio/members', {
      headers: bearer(k.writer),
      body: { members: [{ name: 'Nora Newcomer', headline: 'Volcanologist' }] },
    });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    const res = await search(k.ana, { query: 'volcanologist', scope: 'community', community_id: 'c_bio' });
    expect(ids(res)).toEqual([added.body.results[0].profile_id]);
  });

  it('MCP search_experts and get_search answer what REST answers', async () => {
    mcpClient = new Client({ name: 'search-test', version: '1.0.0' });
    await mcpClient.connect(new StreamableHTTPClientTransport(new URL(mcp.endpoint), { requestInit: { headers: bearer(k.ana) } }));
    const call = async (name: string, args: Record<string, unknown>) => (await mcpClient!.callTool({ name, arguments: args })) as CallToolResult;
    const errorCode = (r: CallToolResult) => JSON.parse((r.content[0] as { text: string }).text).error.code as string;

    // detail full: the REST body itself (the compact default is test/mcp-assistant.test.ts's).
    const body = { query: 'pond ecologist', scope: 'all' };
    const rest = await search(k.ana, body);
    const tool = await call('search_experts', { ...body, detail: 'full' });
    expect(tool.isError ?? false).toBe(false);
    const { search_id: toolId, ...toolBody } = tool.structuredContent as { search_id: string };
    const { search_id: _restId, ...restBody } = rest.body;
    expect(toolBody).toEqual(restBody);
    expect((await call('get_search', { search_id: toolId, detail: 'full' })).structuredContent).toEqual((await poll(k.ana, toolId)).body);

    expect(errorCode(await call('search_experts', { query: 'pond', scope: 'community' }))).toBe('invalid_request');
    expect(errorCode(await call('search_experts', { query: 'pond', scope: 'community', community_id: 'c_other' }))).toBe('forbidden');
    expect(errorCode(await call('get_search', { search_id: 'srch_unknown' }))).toBe('not_found');
    expect((await searchCharges()).filter((r) => r === `search:${toolId}`)).toHaveLength(1);
  });
});
