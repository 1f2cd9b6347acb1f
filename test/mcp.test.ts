// The MCP surface end to end, with the official SDK's client: a running system (every service
// over gRPC), the REST edge it starts, and an MCP server bound to an edge built from the same
// clients and signer — the way the runtime builds it. Every tool is compared with its REST
// operation (same credential, same data): status ↔ error code, body ↔ structuredContent, a
// refused argument named as the tool names it.
// Transport, authentication and stdio: mcp-transport.test.ts.
import { describe, expect, it } from 'vitest';
import { callAs } from '../services/kit/grpc/client.js';
import { bearer, request } from './helpers/http.js';
import { envelopeOf, k, mcpSuite } from './helpers/mcp-suite.js';

describe('MCP server (streamable HTTP, stateless; stdio)', () => {
  const { system, server, connect, call, expectParity } = mcpSuite();

  it('lists the tools with their annotations and input schemas, without output schemas', async () => {
    const client = await connect(k.ada);
    // Tools only, and a fixed list: no list_changed notifications are promised.
    expect(client.getServerCapabilities()).toEqual({ tools: { listChanged: false } });
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(Object.keys(byName).sort()).toEqual(
      ['add_community_members', 'enrich_my_profile', 'estimate_community_enrichment', 'get_community_member', 'get_enrichment_run',
        'get_my_profile', 'get_search', 'list_communities', 'list_community_members', 'list_enrichment_runs', 'remove_community_member',
        'search_experts', 'start_community_enrichment', 'whoami'],
    );
    for (const name of ['whoami', 'get_my_profile', 'list_community_members', 'get_community_member', 'get_search', 'estimate_community_enrichment', 'get_enrichment_run', 'list_communities', 'list_enrichment_runs']) {
      expect(byName[name]!.annotations, name).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true });
    }
    for (const name of ['add_community_members', 'enrich_my_profile', 'start_community_enrichment']) {
      expect(byName[name]!.annotations, name).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
    }
    expect(byName.remove_community_member!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    for (const t of tools) expect(t.annotations?.openWorldHint, t.name).toBe(false);
    expect(byName.list_community_members!.inputSchema.required).toEqual(['community_id']);
    expect(Object.keys(byName.list_community_members!.inputSchema.properties ?? {}).sort()).toEqual(['after', 'community_id', 'limit']);
    expect(byName.add_community_members!.inputSchema.required?.sort()).toEqual(['community_id', 'members']);
    // No edge database given: the tool takes no idempotency key rather than pretending to honour one.
    expect(byName.add_community_members!.inputSchema.properties).not.toHaveProperty('idempotency_key');
    // No output schemas are listed (docs/MCP.md, "Sized for an assistant"): a result is the REST body.
    for (const t of tools) expect(t.outputSchema, t.name).toBeUndefined();
    // Enrichment: the REST body's options (but dry_run, which each tool sets), the REST bodies as outputs.
    const options = ['community_id', 'depth', 'include_already_enriched', 'joined_since', 'profile_ids', 'workflow_key'];
    expect(Object.keys(byName.enrich_my_profile!.inputSchema.properties ?? {})).toEqual([]);
    expect(Object.keys(byName.estimate_community_enrichment!.inputSchema.properties ?? {}).sort()).toEqual(options);
    expect(Object.keys(byName.start_community_enrichment!.inputSchema.properties ?? {}).sort()).toEqual(options);
    for (const name of ['estimate_community_enrichment', 'start_community_enrichment']) {
      expect(byName[name]!.inputSchema.required, name).toEqual(['community_id']);
    }
    expect(byName.get_enrichment_run!.inputSchema.required).toEqual(['run_id']);
    expect(Object.keys(byName.get_enrichment_run!.inputSchema.properties ?? {}).sort()).toEqual(['community_id', 'items_after', 'run_id']);
    expect(byName.start_community_enrichment!.description).toMatch(/depth is required/);
    expect(byName.enrich_my_profile!.description).toMatch(/30 days/);
    for (const t of tools) expect(t.description!.length).toBeGreaterThan(80);
  });

  it('whoami equals GET /v1/me for an API key and for an OAuth access token (one per resource)', async () => {
    const client = await connect(k.ada);
    const tool = await call(client, 'whoami');
    const rest = await request(system().restUrl, 'GET', '/v1/me', { headers: bearer(k.ada) });
    // Usage counters move with every request; everything else is equal.
    const strip = (b: any) => ({ ...b, usage: undefined });
    expect(rest.status).toBe(200);
    expect(strip(tool.structuredContent)).toEqual(strip(rest.body));
    expect((tool.structuredContent as any).key).toMatchObject({ id: 'k_ada', credential: 'api_key' });

    // A token is good for one resource (RFC 8707): one for MCP, one for REST, each its own grant.
    const operator = await callAs(system().signer, { kind: 'operator', actor: 'mcp-test' }, undefined, 10_000);
    const issue = (resource: string) => system().clients.identity.issueAccessToken(
      { userId: 'u_ada', scopes: ['profile:read'], clientId: 'mcp-client', ttlSeconds: 300, requestedRate: 0, resource },
      operator,
    );
    const forMcp = await issue(server().resourceUrl);
    const forRest = await issue('');
    const viaToken = await call(await connect(forMcp.accessToken), 'whoami');
    const restToken = await request(system().restUrl, 'GET', '/v1/me', { headers: bearer(forRest.accessToken) });
    expect(restToken.status).toBe(200);
    const stripGrant = (b: any) => ({ ...strip(b), key: { ...b.key, id: undefined, created_at: undefined } });
    expect(stripGrant(viaToken.structuredContent)).toEqual(stripGrant(restToken.body));
    expect((viaToken.structuredContent as any).key).toMatchObject({ id: forMcp.grantId, credential: 'oauth' });
  });

  it('parity of the reads: get_my_profile, list_community_members (paging), get_community_member', async () => {
    const client = await connect(k.ada);
    const rest = (path: string, secret = k.ada) => request(system().restUrl, 'GET', path, { headers: bearer(secret) });

    await expectParity(await rest('/v1/me/profile'), await call(client, 'get_my_profile'));

    const page1 = await rest('/v1/communities/c_bio/members?limit=2');
    expect(page1.status).toBe(200);
    const tool1 = await call(client, 'list_community_members', { community_id: 'c_bio', limit: 2 });
    await expectParity(page1, tool1);
    const cursor = page1.body.next_cursor as string;
    expect(cursor).toBeTruthy();
    await expectParity(
      await rest(`/v1/communities/c_bio/members?limit=2&after=${encodeURIComponent(cursor)}`),
      await call(client, 'list_community_members', { community_id: 'c_bio', limit: 2, after: cursor }),
    );
    // Above the maximum: served as the maximum on both.
    await expectParity(await rest('/v1/communities/c_bio/members?limit=5000'), await call(client, 'list_community_members', { community_id: 'c_bio', limit: 5000 }));
    // A cursor of another community: 400 invalid_request on both.
    const wrongCursor = await rest(`/v1/communities/c_chem/members?after=${encodeURIComponent(cursor)}`);
    expect(wrongCursor.status).toBe(400);
    await expectParity(wrongCursor, await call(client, 'list_community_members', { community_id: 'c_chem', after: cursor }));
    // Outside the read reach: 403 on both.
    const foreign = await rest('/v1/communities/c_foreign/members');
    expect(foreign.status).toBe(403);
    await expectParity(foreign, await call(client, 'list_community_members', { community_id: 'c_foreign' }));

    await expectParity(await rest('/v1/communities/c_bio/members/p_one'), await call(client, 'get_community_member', { community_id: 'c_bio', profile_id: 'p_one' }));
    const missing = await rest('/v1/communities/c_bio/members/p_gone_rest');
    expect(missing.status).toBe(404);
    await expectParity(missing, await call(client, 'get_community_member', { community_id: 'c_bio', profile_id: 'p_gone_rest' }));

    // Bob has no profile: 404 not_found on both.
    const bobProfile = await rest('/v1/me/profile', k.bob);
    expect(bobProfile.status).toBe(404);
    await expectParity(bobProfile, await call(await connect(k.bob), 'get_my_profile'));
  });

  it('parity of the writes: add_community_members and remove_community_member (different people, same outcome)', async () => {
    const client = await connect(k.ada);
    const add = (body: unknown) =>
      request(system().restUrl, 'POST', '/v1/communities/c_chem/members', { headers: bearer(k.ada), body });

    const restAdded = await add({ members: [{ email: 'one@example.org' }, { email: 'new-rest@example.org', name: 'New Rest' }] });
    expect(restAdded.status).toBe(200);
    const toolAdded = await call(client, 'add_community_members', {
      community_id: 'c_chem',
      members: [{ email: 'two@example.org' }, { email: 'new-mcp@example.org', name: 'New Mcp' }],
    });
    await expectParity(restAdded, toolAdded, false);
    const shape = (b: any) => b.results.map((r: any) => ({ index: r.index, status: r.status, error: r.error }));
    expect(shape(toolAdded.structuredContent)).toEqual(shape(restAdded.body));
    expect((toolAdded.structuredContent as any).results[0]).toMatchObject({ status: 'added', profile_id: 'p_two' });

    // Repeating a person: already_member on both.
    const again = await add({ members: [{ email: 'one@example.org' }] });
    const toolAgain = await call(client, 'add_community_members', { community_id: 'c_chem', members: [{ email: 'two@example.org' }] });
    expect(shape(toolAgain.structuredContent)).toEqual(shape(again.body));
    expect((toolAgain.structuredContent as any).results[0].status).toBe('already_member');

    // Writes not enabled: 422 unprocessable on both; outside the reach: 403 on both.
    const closed = await request(system().restUrl, 'POST', '/v1/communities/c_closed/members', { headers: bearer(k.ada), body: { members: [{ email: 'x@example.org' }] } });
    expect(closed.status).toBe(422);
    await expectParity(closed, await call(client, 'add_community_members', { community_id: 'c_closed', members: [{ email: 'x@example.org' }] }));
    const foreign = await request(system().restUrl, 'POST', '/v1/communities/c_foreign/members', { headers: bearer(k.ada), body: { members: [{ email: 'x@example.org' }] } });
    expect(foreign.status).toBe(403);
    await expectParity(foreign, await call(client, 'add_community_members', { community_id: 'c_foreign', members: [{ email: 'x@example.org' }] }));

    // Erasure: each surface erases its own person; then both answer 404 for the person already gone.
    const erased = await request(system().restUrl, 'DELETE', '/v1/communities/c_chem/members/p_gone_rest', { headers: bearer(k.ada) });
    expect(erased.status).toBe(200);
    const toolErased = await call(client, 'remove_community_member', { community_id: 'c_chem', profile_id: 'p_gone_mcp' });
    await expectParity(erased, toolErased, false);
    expect(toolErased.structuredContent).toEqual({ ...erased.body, profile_id: 'p_gone_mcp' });
    const erasedAgain = await request(system().restUrl, 'DELETE', '/v1/communities/c_chem/members/p_gone_mcp', { headers: bearer(k.ada) });
    expect(erasedAgain.status).toBe(404);
    await expectParity(erasedAgain, await call(client, 'remove_community_member', { community_id: 'c_chem', profile_id: 'p_gone_mcp' }));
  });

  it('a missing scope is a tool error forbidden naming the scope, as REST’s 403', async () => {
    const scopeless = await connect(k.scopeless);
    const rest = await request(system().restUrl, 'GET', '/v1/communities/c_bio/members', { headers: bearer(k.scopeless) });
    expect(rest.status).toBe(403);
    const tool = await call(scopeless, 'list_community_members', { community_id: 'c_bio' });
    await expectParity(rest, tool);
    expect(envelopeOf(tool).error).toMatchObject({ code: 'forbidden', required_scope: 'profile:read' });
    expect(envelopeOf(tool).error.message).toContain('profile:read');

    const reader = await connect(k.reader);
    const write = await call(reader, 'remove_community_member', { community_id: 'c_bio', profile_id: 'p_one' });
    expect(envelopeOf(write).error).toMatchObject({ code: 'forbidden', required_scope: 'member:write' });
    // whoami needs no scope.
    expect((await call(scopeless, 'whoami')).isError ?? false).toBe(false);
  });

  it('invalid arguments are REST’s 400 invalid_request with REST’s reasons, naming the tool’s arguments', async () => {
    const client = await connect(k.ada);
    const rest = await request(system().restUrl, 'GET', '/v1/communities/not%20a%20valid%20id!/members?limit=0', { headers: bearer(k.ada) });
    expect(rest.status).toBe(400);
    expect(rest.body.error.message).toMatch(/^path\.id: /);
    const bad = await call(client, 'list_community_members', { community_id: 'not a valid id!', limit: 0 });
    const error = envelopeOf(bad).error;
    expect(error.code).toBe(rest.body.error.code);
    expect(error.message).toBe(rest.body.error.message.replace(/^path\.id: /, 'community_id: '));
    const limit = await call(client, 'list_community_members', { community_id: 'c_bio', limit: 0 });
    const restLimit = await request(system().restUrl, 'GET', '/v1/communities/c_bio/members?limit=0', { headers: bearer(k.ada) });
    expect(envelopeOf(limit).error.message).toBe(restLimit.body.error.message.replace(/^query\.limit: /, 'limit: '));
  });

});
