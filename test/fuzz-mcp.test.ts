// Property-based fuzzing of the MCP tools at /mcp on the MCP port: every tool the server lists,
// with arguments built from its input schema, valid or broken (NUL, a lone surrogate or a
// noncharacter in any string at any depth, bytes that are not UTF-8 inside one, wrong types,
// unknown fields, over-long values), under every kind of credential, plus odd JSON-RPC messages.
// Whatever is sent: no 5xx and no JSON-RPC internal error; a tool error is the REST error envelope
// carrying the X-Request-Id (or the SDK's documented argument-validation text, docs/MCP.md), never
// `internal`; no credential is 401; a refused call stores nothing.
// A failure prints its seed and path; docs/TESTING.md says how to replay it.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerProblems, describeFailure, fuzzParameters } from './helpers/fuzz-checks.js';
import { credentialArbitrary, type FuzzCredential } from './helpers/fuzz-credentials.js';
import { anyIndex, anyJson, brokenValue, jsonWithBadBytes, nastyString, validValue, withBadTextSomewhere, type OpenApiDocument } from './helpers/fuzz-schema.js';
import { settledSnapshot, startFuzzSystem, storedSince, type FuzzSystem, type StoreSnapshot } from './helpers/fuzz-system.js';
import { buildRequest, sendRaw, type RawAnswer } from './helpers/raw-http.js';
import { storeNames } from './helpers/stores.js';

const RUNS = { pglite: 500, postgres: 120 } as const;

interface Tool {
  name: string;
  inputSchema: Record<string, unknown>;
}

/** The schemas of tools/list are self-contained: no components to resolve. */
const NO_COMPONENTS: OpenApiDocument = { paths: {}, components: { schemas: {} } };

function rpc(url: string, headers: Array<[string, string]>, body: string | Buffer): Buffer {
  const utf8 = headers.map(([n, v]) => [n, Buffer.from(v, 'utf8').toString('latin1')] as [string, string]);
  return buildRequest(url, {
    method: 'POST',
    target: '/mcp',
    headers: [...utf8, ['Content-Type', 'application/json'], ['Accept', 'application/json, text/event-stream']],
    body,
  });
}

/** What is wrong with the JSON-RPC answer to one call (HTTP-level rules are answerProblems'). */
function rpcProblems(answer: RawAnswer): { problems: string[]; refused: boolean } {
  if (answer.status !== 200) return { problems: [], refused: answer.status >= 400 };
  let message: any;
  try {
    message = JSON.parse(answer.body);
  } catch {
    return { problems: ['a 200 whose body is not JSON'], refused: false };
  }
  if (message.error) {
    return { problems: message.error.code === -32603 ? [`a JSON-RPC internal error: ${message.error.message}`] : [], refused: true };
  }
  const result = message.result;
  if (!result?.isError) return { problems: [], refused: false };
  const text: string = result.content?.find((c: any) => c.type === 'text')?.text ?? '';
  let envelope: any;
  try {
    envelope = JSON.parse(text);
  } catch {
    // Arguments are refused in the envelope, as REST refuses the request; only a call of a tool
    // that does not exist is answered in the SDK's own words.
    return { problems: /Tool [\s\S]* not found/.test(text) ? [] : [`a tool error that is neither the envelope nor the unknown-tool text: ${text.slice(0, 200)}`], refused: true };
  }
  const error = envelope?.error;
  const problems: string[] = [];
  if (!error || typeof error.code !== 'string' || typeof error.message !== 'string' || typeof error.request_id !== 'string') problems.push('a tool error whose JSON is not the envelope');
  else {
    if (['internal', 'unavailable', 'search_unavailable'].includes(error.code)) problems.push(`a tool error ${error.code}: no input may produce a server failure`);
    if (error.request_id !== answer.headers['x-request-id']) problems.push(`error.request_id ${error.request_id} differs from X-Request-Id ${answer.headers['x-request-id']}`);
  }
  return { problems, refused: true };
}

describe.each(storeNames())('MCP fuzzing on %s', (store) => {
  let f: FuzzSystem;
  let tools: Tool[];
  beforeAll(async () => {
    f = await startFuzzSystem(store);
    const list = await sendRaw(f.mcpUrl, rpc(f.mcpUrl, [['Authorization', `Bearer ${f.keys.all}`]], JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })));
    expect(list.status).toBe(200);
    tools = JSON.parse(list.body).result.tools;
  }, 300_000);
  afterAll(async () => f?.stop());

  it('calls every listed tool with schema-built arguments: no server failure, the envelope with X-Request-Id, 401 first, a refusal stores nothing', async () => {
    expect(tools.length).toBeGreaterThanOrEqual(14);
    const args = (tool: Tool) =>
      fc.oneof(
        { weight: 3, arbitrary: validValue(NO_COMPONENTS, tool.inputSchema) },
        { weight: 4, arbitrary: brokenValue(NO_COMPONENTS, tool.inputSchema) },
        { weight: 2, arbitrary: fc.tuple(validValue(NO_COMPONENTS, tool.inputSchema), anyIndex, anyIndex).map(([v, i, kind]) => withBadTextSomewhere(v, i, kind)) },
      );
    // One call in ten goes with bytes that are not UTF-8 inside one string of the message (`badBytes`: which string, which bytes).
    const badBytes = fc.oneof({ weight: 9, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.tuple(anyIndex, anyIndex) });
    const call = fc.oneof(
      { weight: 10, arbitrary: fc.constantFrom(...tools).chain((tool) => args(tool).map((a) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool.name, arguments: a } }))) },
      {
        weight: 1,
        arbitrary: fc.oneof(
          fc.record({ jsonrpc: fc.constant('2.0'), id: fc.oneof(fc.integer(), nastyString), method: fc.constantFrom('tools/list', 'initialize', 'ping', 'resources/list', 'nope', 'tools/call'), params: anyJson }),
          fc.tuple(nastyString, anyJson).map(([name, a]) => ({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: a } })),
        ),
      },
    );
    // Calls that get past everything but their text: the key with every scope, known community and
    // profile ids, valid arguments with NUL, a lone surrogate or a noncharacter in one string. In a
    // fully random call an unknown id or the wrong key answers first, and the text never reaches a handler.
    const allScopes: FuzzCredential = { label: 'key with every scope', headers: [['Authorization', `Bearer ${f.keys.all}`]], none: false };
    // Bulk-add items keep their name and seed fields: the identifiers built from the schema (odd
    // emails, URLs that are not LinkedIn's, iDs whose check digit is wrong) reject the item first.
    const byName = (item: unknown) =>
      item && typeof item === 'object' ? { name: 'Fuzz Person', ...Object.fromEntries(Object.entries(item).filter(([k]) => !['email', 'linkedin_url', 'orcid'].includes(k))) } : item;
    const known = (a: unknown) =>
      a && typeof a === 'object' && !Array.isArray(a)
        ? {
            ...a,
            ...('community_id' in a && { community_id: 'c_bio' }),
            ...('profile_id' in a && { profile_id: 'p_one' }),
            ...('members' in a && Array.isArray(a.members) && { members: a.members.map(byName) }),
          }
        : a;
    const pastTheChecks = fc.constantFrom(...tools).chain((tool) =>
      fc.tuple(validValue(NO_COMPONENTS, tool.inputSchema), anyIndex, anyIndex)
        .map(([v, pick, kind]) => [{ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool.name, arguments: withBadTextSomewhere(known(v), pick, kind) } }, allScopes] as const));
    const calls = fc.oneof({ weight: 8, arbitrary: fc.tuple(call, credentialArbitrary(f.keys)) }, { weight: 2, arbitrary: pastTheChecks });
    let baseline: StoreSnapshot | undefined;
    await fc.assert(
      fc.asyncProperty(calls, badBytes, async ([message, credential], bytes) => {
        baseline ??= await settledSnapshot(f.db);
        const body = bytes ? jsonWithBadBytes(message, bytes[0], bytes[1]) : JSON.stringify(message);
        const answer = await sendRaw(f.mcpUrl, rpc(f.mcpUrl, credential.headers, body));
        const problems = answerProblems(answer, { noCredential: credential.none });
        const rpcCheck = rpcProblems(answer);
        problems.push(...rpcCheck.problems);
        if (rpcCheck.refused) {
          const stored = await storedSince(f.db, baseline);
          if (stored.length > 0) problems.push(`a refused call stored rows in ${stored.join(', ')}`);
        } else {
          baseline = undefined;
        }
        const shown = Buffer.isBuffer(body) ? body.toString('latin1') : body;
        if (problems.length > 0) throw new Error(describeFailure(problems, `${shown.slice(0, 500)} [${credential.label}]`, answer));
      }),
      fuzzParameters(RUNS[store]),
    );
  }, 600_000);
});
