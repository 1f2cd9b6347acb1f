// Text the store cannot keep, over real HTTP on both surfaces and at the gRPC door: a lone surrogate
// (high or low) or NUL in one item of a bulk add rejects that item, naming the field, while the
// other items are added whole — in the roster and findable by search; anywhere else it is a 400
// naming the field and nothing is stored. Noncharacters are text: stored and read back unchanged. A
// body whose bytes are not UTF-8 (an overlong form, an encoded surrogate) is unreadable: 400
// bad_request, nobody added.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AddMemberStatus } from '../proto/gen/expertnet/communities/v1/communities_service.js';
import { callAs, type CallOptions } from '../services/kit/grpc/client.js';
import { readRemoteError } from '../services/kit/grpc/errors.js';
import { bearer, request, type JsonResponse } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { buildRequest, sendRaw } from './helpers/raw-http.js';
import { storeNames } from './helpers/stores.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';
import { writerSeed } from './helpers/writer-seed.js';

const writer = liveKey();
const seed = writerSeed(writer);

const lone = (unit: string, at: number) =>
  `name: must be well-formed Unicode text: a lone surrogate (U+${unit}) at character ${at} stands for no character`;

describe.each(storeNames())('text the store cannot keep, on %s', (store) => {
  let sys: TestSystem;
  let operator: CallOptions;
  beforeAll(async () => {
    sys = await startTestSystem({ store, seed });
    operator = await callAs(sys.signer, { kind: 'operator', actor: 'test' }, undefined, 10_000);
  }, 300_000);
  afterAll(async () => sys?.stop());

  const post = (path: string, body: unknown) => request(sys.restUrl, 'POST', path, { headers: bearer(writer), body });
  const postRaw = (path: string, rawBody: string, headers: Record<string, string> = {}) =>
    request(sys.restUrl, 'POST', path, { headers: { ...bearer(writer), 'content-type': 'application/json', ...headers }, rawBody });
  const members = async () => (await sys.clients.communities.countMembers({ communityId: 'c_bio' }, operator)).count;

  /** The profile ids a community search for `query` finds. */
  async function found(query: string): Promise<string[]> {
    const res = await post('/v1/search', { query, scope: 'community', community_id: 'c_bio', limit: 50, wait_seconds: 25 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return (res.body.matches as Array<{ profile_id: string }>).map((m) => m.profile_id);
  }

  async function mcpCall(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    const client = new Client({ name: 'text-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(sys.mcpUrl!), { requestInit: { headers: bearer(writer) } }));
    try {
      return (await client.callTool({ name, arguments: args })) as CallToolResult;
    } finally {
      await client.close();
    }
  }

  const envelope = (res: JsonResponse, status: number, code: string) => {
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body.error.code).toBe(code);
    expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
    return res.body.error.message as string;
  };

  describe('a bulk add with a lone surrogate in one item', () => {
    it('REST, the reported body: the bad item is rejected naming name, the good one is added and findable by search', async () => {
      const before = await members();
      const res = await postRaw(
        '/v1/communities/c_bio/members',
        '{"members":[{"email":"good-1@example.org","name":"Zebulon Quixotic"},{"email":"lone-1@example.org","name":"Bad \\ud800 Name"}]}',
      );
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const [good, bad] = res.body.results;
      expect(good).toEqual({ index: 0, status: 'added', profile_id: expect.any(String), error: null });
      expect(bad).toEqual({ index: 1, status: 'rejected', profile_id: null, error: { code: 'invalid_request', message: lone('D800', 5) } });
      expect(await members()).toBe(before + 1);
      expect(await found('Zebulon Quixotic')).toContain(good.profile_id);
    });

    it('MCP add_community_members, a low surrogate: the bad item is rejected naming name, the good one is added and findable by search', async () => {
      const before = await members();
      const result = await mcpCall('add_community_members', {
        community_id: 'c_bio',
        members: [{ email: 'good-2@example.org', name: 'Ysolde Marchetti' }, { email: 'lone-2@example.org', name: 'Bad \udfff Name' }],
      });
      expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
      const [good, bad] = (result.structuredContent as { results: Array<Record<string, unknown>> }).results;
      expect(good).toEqual({ index: 0, status: 'added', profile_id: expect.any(String), error: null });
      expect(bad).toEqual({ index: 1, status: 'rejected', profile_id: null, error: { code: 'invalid_request', message: lone('DFFF', 5) } });
      expect(await members()).toBe(before + 1);
      expect(await found('Ysolde Marchetti')).toContain(good!.profile_id);
    });

    it('REST, NUL and a lone surrogate in the seed fields: each item is rejected naming its field; nobody is added', async () => {
      const before = await members();
      const res = await post('/v1/communities/c_bio/members', {
        members: [
          { name: 'Seed One', headline: 'x\ud800' },
          { name: 'Seed Two', bio: '\udc00' },
          { name: 'Seed Three', organization: 'Lab\u0000' },
          { email: 'seed.four\ud800@example.org' },
        ],
      });
      expect(res.status).toBe(200);
      const messages = (res.body.results as Array<{ status: string; error: { message: string } }>).map((r) => [r.status, r.error.message]);
      expect(messages).toEqual([
        ['rejected', expect.stringMatching(/^headline: must be well-formed Unicode text: a lone surrogate \(U\+D800\)/)],
        ['rejected', expect.stringMatching(/^bio: must be well-formed Unicode text: a lone surrogate \(U\+DC00\)/)],
        ['rejected', 'organization: must not contain the NUL character (U+0000)'],
        ['rejected', expect.stringContaining('email: must be well-formed Unicode text')],
      ]);
      expect(await members()).toBe(before);
    });

    it('an internal caller over the service’s own door: the bad item is rejected naming name, the good one is added', async () => {
      const edge = await callAs(sys.signer, { kind: 'edge' }, 'r', 10_000);
      const { caller } = await sys.clients.identity.authenticate({ apiKey: writer, accessToken: '' }, edge);
      const asCaller = await callAs(sys.signer, { kind: 'caller', caller: caller! }, 'r', 10_000);
      const item = { email: '', linkedinUrl: '', orcid: '', name: '', headline: '', bio: '', organization: '', location: '', rejectedReason: '' };
      const before = await members();
      const { results } = await sys.clients.communities.addMembers(
        { communityId: 'c_bio', role: 0, members: [{ ...item, name: 'Internal Good' }, { ...item, name: 'Internal \ud800 Bad' }] },
        asCaller,
      );
      expect(results.map((r) => r.status)).toEqual([AddMemberStatus.ADD_MEMBER_STATUS_ADDED, AddMemberStatus.ADD_MEMBER_STATUS_REJECTED]);
      expect(results[1]).toMatchObject({ errorCode: 'invalid_request', errorMessage: lone('D800', 10) });
      expect(await members()).toBe(before + 1);
    });
  });

  describe('outside a bulk add item: 400 naming the field, nothing stored', () => {
    it('a search query with a lone surrogate is 400 invalid_request naming body.query', async () => {
      const message = envelope(await post('/v1/search', { query: 'pond \ud800', scope: 'community', community_id: 'c_bio', wait_seconds: 0 }), 400, 'invalid_request');
      expect(message).toBe('body.query: must be well-formed Unicode text: a lone surrogate (U+D800) at character 6 stands for no character');
    });

    it('enrichment options with a lone surrogate are 400 invalid_request naming the field; no run starts', async () => {
      const message = envelope(await post('/v1/communities/c_bio/enrich', { profile_ids: ['p_one\udc00'] }), 400, 'invalid_request');
      expect(message).toContain('body.profile_ids.0: must be well-formed Unicode text: a lone surrogate (U+DC00)');
      const runs = await request(sys.restUrl, 'GET', '/v1/communities/c_bio/enrich/runs', { headers: bearer(writer) });
      expect(runs.status).toBe(200);
      expect(runs.body.runs).toEqual([]);
    });

    it('MCP: a lone surrogate in a query argument or a path argument is a tool error naming it', async () => {
      for (const [name, args, argument] of [
        ['list_community_members', { community_id: 'c_bio', after: 'x\ud800' }, 'after'],
        ['get_community_member', { community_id: 'c_bio', profile_id: 'p_one\udfff' }, 'profile_id'],
      ] as const) {
        const result = await mcpCall(name, args);
        expect(result.isError).toBe(true);
        const error = JSON.parse((result.content[0] as { text: string }).text).error;
        expect(error.code).toBe('invalid_request');
        // The argument is named (alone, or after the request part it maps to: query.after).
        expect(error.message).toMatch(new RegExp(`(^|\\.)${argument}: must be well-formed Unicode text: a lone surrogate`));
      }
    });

    it('a service refuses a lone surrogate from an internal caller naming the field; the profile is not stored', async () => {
      const profile = { id: 'p_lone', userId: '', public: false, name: 'Lone \ud800', headline: '', bio: '', organization: '', location: '', email: '', linkedinUrl: '', orcid: '', avatarUrl: '' };
      const failure = await sys.clients.communities.upsertProfile({ profile: profile as never }, operator).then(() => undefined, readRemoteError);
      expect(failure).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('profile.name: must be well-formed Unicode text: a lone surrogate (U+D800)') });
      const lookup = await sys.clients.communities.getProfile({ profileId: 'p_lone' }, operator).then(() => undefined, readRemoteError);
      expect(lookup?.code).toBe('not_found');
    });
  });

  it('noncharacters are text: a member named with U+FFFE, U+FFFF and U+FDD0 is added and read back unchanged', async () => {
    const name = 'Non\ufffeChar \ufdd0Person';
    const res = await post('/v1/communities/c_bio/members', { members: [{ email: 'nonchar@example.org', name, headline: 'edge \uffff case' }] });
    expect(res.body.results[0].status).toBe('added');
    const member = await request(sys.restUrl, 'GET', `/v1/communities/c_bio/members/${res.body.results[0].profile_id}`, { headers: bearer(writer) });
    expect(member.status).toBe(200);
    expect(member.body).toMatchObject({ name, headline: 'edge \uffff case' });
  });

  describe('a body whose bytes are not UTF-8 is 400 bad_request; nobody is added', () => {
    const body = (bytes: number[]) =>
      Buffer.concat([Buffer.from('{"members":[{"email":"bytes@example.org","name":"Bad '), Buffer.from(bytes), Buffer.from(' Bytes"}]}')]);

    it.each([
      ['an overlong "/" (0xC0 0xAF)', [0xc0, 0xaf]],
      ['an overlong three-byte "/" (0xE0 0x80 0xAF)', [0xe0, 0x80, 0xaf]],
      ['an encoded surrogate (0xED 0xA0 0x80)', [0xed, 0xa0, 0x80]],
      ['a byte that is never UTF-8 (0xFF)', [0xff]],
    ])('REST and the MCP port: %s', async (_label, bytes) => {
      const before = await members();
      for (const [url, target, payload] of [
        [sys.restUrl, '/v1/communities/c_bio/members', body(bytes)],
        [
          sys.mcpUrl!,
          new URL(sys.mcpUrl!).pathname,
          Buffer.concat([
            Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add_community_members","arguments":{"community_id":"c_bio","members":[{"name":"Bad '),
            Buffer.from(bytes),
            Buffer.from(' Bytes"}]}}}'),
          ]),
        ],
      ] as const) {
        const answer = await sendRaw(url, buildRequest(url, {
          method: 'POST',
          target,
          headers: [['Authorization', `Bearer ${writer}`], ['Content-Type', 'application/json'], ['Accept', 'application/json, text/event-stream']],
          body: payload,
        }));
        expect(answer.status, answer.body).toBe(400);
        const error = JSON.parse(answer.body).error;
        expect(error).toEqual({ code: 'bad_request', message: 'the body is not valid UTF-8', request_id: answer.headers['x-request-id'] });
      }
      expect(await members()).toBe(before);
    });
  });
});
