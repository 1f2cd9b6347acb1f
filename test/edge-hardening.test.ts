// Hardening of the edge over real HTTP (raw sockets where no HTTP client would send the request):
// NUL in any request text, JSON nested too deep, and the refusals the router and Node's HTTP parser
// make — each answered 400-class in the error envelope with X-Request-Id equal to error.request_id,
// after authentication wherever the request could be read, and changing nothing.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../gateway/core/json-depth.js';
import { MAX_PARAM_LENGTH } from '../gateway/rest/framework-errors.js';
import { callAs, type CallOptions } from '../services/kit/grpc/client.js';
import { readRemoteError } from '../services/kit/grpc/errors.js';
import { bearer, request, type JsonResponse } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { buildRequest, type RawAnswer as RawResponse, sendRaw } from './helpers/raw-http.js';

/** A request's bytes as text (ASCII here): headers given as `Name: value` lines. */
function rawRequest(url: string, method: string, target: string, headers: string[], body = ''): string {
  const pairs = headers.map((h): [string, string] => [h.slice(0, h.indexOf(':')), h.slice(h.indexOf(':') + 1).trim()]);
  return buildRequest(url, { method, target, headers: pairs, body: body || undefined }).toString('latin1');
}
const rawHttp = (url: string, bytes: string) => sendRaw(url, Buffer.from(bytes, 'latin1'));
import { storeNames } from './helpers/stores.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';
import { writerSeed } from './helpers/writer-seed.js';

const writer = liveKey();
const seed = writerSeed(writer);

/** The envelope of a refusal, its X-Request-Id equal to error.request_id. */
function expectEnvelope(res: JsonResponse | RawResponse, status: number, code: string): { code: string; message: string; request_id: string } {
  const body = typeof res.body === 'string' ? JSON.parse(res.body) : res.body;
  expect(res.status, JSON.stringify(body)).toBe(status);
  expect(body).toEqual({ error: { code, message: expect.any(String), request_id: expect.any(String) } });
  const header = res.headers instanceof Headers ? res.headers.get('x-request-id') : res.headers['x-request-id'];
  expect(header).toBe(body.error.request_id);
  return body.error;
}

const deep = (levels: number, inner = '1') => `${'['.repeat(levels)}${inner}${']'.repeat(levels)}`;

describe.each(storeNames())('edge hardening on %s', (store) => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem({ store, seed });
  }, 300_000);
  // Fresh call options each time: caller tokens are short-lived.
  const operator = (): Promise<CallOptions> => callAs(sys.signer, { kind: 'operator', actor: 'test' }, undefined, 10_000);
  afterAll(async () => sys?.stop());

  const members = async () => (await sys.clients.communities.countMembers({ communityId: 'c_bio' }, await operator())).count;
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    request(sys.restUrl, 'POST', path, { headers: { ...bearer(writer), ...headers }, body });
  const postRaw = (path: string, rawBody: string, headers: Record<string, string> = {}) =>
    request(sys.restUrl, 'POST', path, { headers: { ...bearer(writer), 'content-type': 'application/json', ...headers }, rawBody });

  describe('NUL (U+0000) in request text', () => {
    it('a search query with NUL is 400 invalid_request naming body.query, and no search job is stored', async () => {
      const res = await post('/v1/search', { query: 'pond\u0000ecology', scope: 'public', wait_seconds: 0 });
      const error = expectEnvelope(res, 400, 'invalid_request');
      expect(error.message).toBe('body.query: must not contain the NUL character (U+0000)');
      if (store === 'postgres') {
        const client = new pg.Client({ connectionString: sys.env.DATABASE_URL });
        await client.connect();
        try {
          const { rows } = await client.query('SELECT count(*)::int AS n FROM search.search_jobs');
          expect(rows[0].n).toBe(0);
        } finally {
          await client.end();
        }
      }
    });

    it.each([
      ['name', { name: 'Zoë\u0000' }],
      ['headline', { name: 'Zoë', headline: 'a\u0000b' }],
      ['bio', { name: 'Zoë', bio: '\u0000' }],
      ['organization', { name: 'Zoë', organization: 'Lab\u0000' }],
      ['location', { name: 'Zoë', location: 'Oslo\u0000' }],
      ['email', { email: 'zoe\u0000@example.org' }],
      ['linkedin_url', { linkedin_url: 'https://www.linkedin.com/in/zoe\u0000x' }],
      ['orcid', { orcid: '0000-0002-1825-009\u0000' }],
    ])('a bulk add item with NUL in %s is rejected naming the field; nobody is added', async (field, item) => {
      const before = await members();
      const res = await post('/v1/communities/c_bio/members', { members: [item] }, { 'idempotency-key': `nul-${field}` });
      expect(res.status).toBe(200);
      expect(res.body.results).toEqual([
        { index: 0, status: 'rejected', profile_id: null, error: { code: 'invalid_request', message: expect.stringContaining(`${field}: must not contain the NUL character (U+0000)`) } },
      ]);
      expect(await members()).toBe(before);
    });

    it('NUL in enrichment options, a query parameter or a path parameter is 400 invalid_request naming it', async () => {
      const enrich = await post('/v1/communities/c_bio/enrich', { dry_run: true, profile_ids: ['p_one\u0000'] });
      expect(expectEnvelope(enrich, 400, 'invalid_request').message).toContain('body.profile_ids.0: must not contain the NUL character');
      const since = await post('/v1/communities/c_bio/enrich', { dry_run: true, joined_since: '2026-01-01T00:00:00Z\u0000' });
      expect(expectEnvelope(since, 400, 'invalid_request').message).toContain('body.joined_since: must not contain the NUL character');
      const cursor = await request(sys.restUrl, 'GET', '/v1/communities/c_bio/members?after=x%00', { headers: bearer(writer) });
      expect(expectEnvelope(cursor, 400, 'invalid_request').message).toBe('query.after: must not contain the NUL character (U+0000)');
      const path = await request(sys.restUrl, 'GET', '/v1/communities/c_bio%00/members', { headers: bearer(writer) });
      expect(expectEnvelope(path, 400, 'invalid_request').message).toBe('path.id: must not contain the NUL character (U+0000)');
    });

    it('MCP search_experts with NUL in the query is a tool error naming query and NUL; nothing runs', async () => {
      const client = new Client({ name: 'hardening-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(sys.mcpUrl!), { requestInit: { headers: bearer(writer) } }));
      try {
        const result = (await client.callTool({ name: 'search_experts', arguments: { query: 'pond\u0000', scope: 'public', wait_seconds: 0 } })) as CallToolResult;
        expect(result.isError).toBe(true);
        const text = (result.content[0] as { text: string }).text;
        expect(text).toContain('query');
        expect(text).toContain('must not contain the NUL character (U+0000)');
      } finally {
        await client.close();
      }
    });

    it('a service refuses NUL from an internal caller: invalid_request naming the field, nothing stored', async () => {
      const profile = { id: 'p_nul', userId: '', public: false, name: 'Nul\u0000Name', headline: '', bio: '', organization: '', location: '', email: '', linkedinUrl: '', orcid: '', avatarUrl: '' };
      const failure = await sys.clients.communities.upsertProfile({ profile: profile as never }, await operator()).then(() => undefined, readRemoteError);
      expect(failure).toMatchObject({ code: 'invalid_request', message: 'profile.name: must not contain the NUL character (U+0000)' });
      const lookup = await sys.clients.communities.getProfile({ profileId: 'p_nul' }, await operator()).then(() => undefined, readRemoteError);
      expect(lookup?.code).toBe('not_found');
    });
  });

  describe(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`, () => {
    it.each(['/v1/communities/c_bio/members', '/v1/communities/c_bio/enrich'])(
      'POST %s: 10,000 levels are 400 bad_request with or without Idempotency-Key; no record is kept for the key',
      async (path) => {
        const before = await members();
        const body = `{"members":${deep(10_000)}}`;
        const key = `deep-${path}`;
        const withKey = expectEnvelope(await postRaw(path, body, { 'idempotency-key': key }), 400, 'bad_request');
        const withoutKey = expectEnvelope(await postRaw(path, body), 400, 'bad_request');
        expect(withKey.message).toBe(`the body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep`);
        expect(withoutKey.message).toBe(withKey.message);
        // The key is still free: a real request with it runs (not 422 for another body, not a replay).
        const valid = path.endsWith('/members') ? { members: [{ name: 'After Deep' }] } : { dry_run: true };
        const ran = await post(path, valid, { 'idempotency-key': key });
        expect(ran.status, JSON.stringify(ran.body)).toBe(200);
        expect(ran.headers.get('idempotent-replayed')).toBeNull();
        expect(await members()).toBe(before + (path.endsWith('/members') ? 1 : 0));
      },
    );

    it('MCP port: 10,000 levels are 400 bad_request in the envelope, before any tool runs; nobody is added', async () => {
      const before = await members();
      const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add_community_members","arguments":{"community_id":"c_bio","members":${deep(10_000)}}}}`;
      const res = await request(sys.mcpUrl!, 'POST', '', {
        headers: { ...bearer(writer), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        rawBody: body,
      });
      expect(expectEnvelope(res, 400, 'bad_request').message).toBe(`the body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep`);
      expect(await members()).toBe(before);
    });

    it(`${MAX_JSON_DEPTH} levels are read (and judged by the schema); ${MAX_JSON_DEPTH + 1} are refused unread`, async () => {
      // Nested in `role`, a request-level field: a nested item would only be a rejected item.
      const atLimit = `{"role":${deep(MAX_JSON_DEPTH - 1)}}`;
      expectEnvelope(await postRaw('/v1/communities/c_bio/members', atLimit), 400, 'invalid_request');
      const over = `{"role":${deep(MAX_JSON_DEPTH)}}`;
      expectEnvelope(await postRaw('/v1/communities/c_bio/members', over), 400, 'bad_request');
      // Brackets inside strings are text, not nesting.
      const inString = JSON.stringify({ members: [{ name: '['.repeat(1000) }] });
      expect((await postRaw('/v1/communities/c_bio/members', inString)).status).toBe(200);
    });
  });

  describe('refusals of the router and of the HTTP parser', () => {
    const long = 'c'.repeat(MAX_PARAM_LENGTH + 10);

    it('a path parameter of 101–128 characters is a valid id and reaches the route (403 for an unknown community)', async () => {
      const id = `c_${'x'.repeat(120)}`;
      const res = await request(sys.restUrl, 'GET', `/v1/communities/${id}/members`, { headers: bearer(writer) });
      expectEnvelope(res, 403, 'forbidden');
    });

    it('an over-long path parameter or an undecodable path: 401 without a credential, then 400, never quoting the path', async () => {
      for (const path of [`/v1/communities/${long}/members`, '/v1/communities/%E0%A4%A/members']) {
        const anonymous = await request(sys.restUrl, 'GET', path);
        expectEnvelope(anonymous, 401, 'unauthorized');
        const badKey = await request(sys.restUrl, 'GET', path, { headers: bearer('svc_live_not_a_key') });
        expectEnvelope(badKey, 401, 'unauthorized');
        const authenticated = await request(sys.restUrl, 'GET', path, { headers: bearer(writer) });
        const error = expectEnvelope(authenticated, 400, path.includes('%') ? 'bad_request' : 'invalid_request');
        expect(error.message).not.toContain(long);
        expect(error.message).not.toContain('%E0');
      }
    });

    it('a foreign content type or unparseable JSON: 401 first without a credential, 400 bad_request with one; nobody added', async () => {
      const before = await members();
      const headers = { 'content-type': 'text/plain' };
      expectEnvelope(await request(sys.restUrl, 'POST', '/v1/communities/c_bio/members', { headers, rawBody: 'x' }), 401, 'unauthorized');
      const foreign = await request(sys.restUrl, 'POST', '/v1/communities/c_bio/members', { headers: { ...headers, ...bearer(writer) }, rawBody: 'x' });
      expect(expectEnvelope(foreign, 400, 'bad_request').message).toBe('unsupported Content-Type: send application/json');
      const broken = await postRaw('/v1/communities/c_bio/members', '{"members": [', { 'idempotency-key': 'broken-json' });
      expect(expectEnvelope(broken, 400, 'bad_request').message).toBe('the body is not valid JSON');
      expect(await members()).toBe(before);
    });

    const body = JSON.stringify({ members: [{ name: 'Parser Case' }] });
    const auth = `Authorization: Bearer ${writer}`;
    const parserCases: Array<[string, () => string, number, string]> = [
      ['a control character in a header value', () => rawRequest(sys.restUrl, 'POST', '/v1/communities/c_bio/members', [auth, 'Content-Type: application/json', 'X-Note: a\u0001b'], body), 400, 'bad_request'],
      ['two different Content-Length headers', () => rawRequest(sys.restUrl, 'POST', '/v1/communities/c_bio/members', [auth, 'Content-Type: application/json', 'Content-Length: 3'], body), 400, 'bad_request'],
      ['headers over 16 KB', () => rawRequest(sys.restUrl, 'POST', '/v1/communities/c_bio/members', [auth, 'Content-Type: application/json', `X-Padding: ${'p'.repeat(17_000)}`], body), 431, 'headers_too_large'],
      ['a malformed request line', () => `POST /v1/communities/c_bio/members HTTP/1.1 extra\r\nHost: x\r\n${auth}\r\n\r\n`, 400, 'bad_request'],
    ];

    it.each(parserCases)('REST: %s is answered in the envelope with a request id and Connection: close; nobody added', async (_name, bytes, status, code) => {
      const before = await members();
      const res = await rawHttp(sys.restUrl, bytes());
      const error = expectEnvelope(res, status, code);
      expect(error.request_id).toMatch(/^req_[0-9a-f-]{36}$/);
      expect(res.headers.connection).toBe('close');
      expect(res.body).not.toContain('c_bio');
      expect(await members()).toBe(before);
    });

    it.each(parserCases)('MCP port: %s is answered in the envelope too', async (_name, bytes, status, code) => {
      const mcpBase = new URL(sys.mcpUrl!).origin;
      const res = await rawHttp(mcpBase, bytes().replace('/v1/communities/c_bio/members', '/mcp'));
      expectEnvelope(res, status, code);
      expect(res.headers.connection).toBe('close');
    });

    it('an unknown path is 404 without quoting it, on REST (once authenticated) and on the MCP port', async () => {
      const rest = await request(sys.restUrl, 'GET', '/v1/no-such-thing-here', { headers: bearer(writer) });
      expect(expectEnvelope(rest, 404, 'not_found').message).not.toContain('no-such-thing-here');
      const mcp = await request(new URL(sys.mcpUrl!).origin, 'GET', '/no-such-thing-here', { headers: bearer(writer) });
      expect(expectEnvelope(mcp, 404, 'not_found').message).not.toContain('no-such-thing-here');
    });
  });
});
