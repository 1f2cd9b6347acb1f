// Hand-written arbitraries for the raw HTTP layer: messages a parser must refuse or survive —
// malformed request lines, control characters and NUL in paths and headers, bad percent-encoding,
// duplicate or conflicting Content-Length, huge headers, chunked and compressed bodies that lie,
// deeply nested JSON, bodies over 1 MiB, foreign content types, JSON strings holding bytes that are
// not UTF-8 (overlong forms, encoded surrogates), lone surrogate escapes and noncharacters. Each case says whether Node can
// parse it as HTTP at all: a parseable request without a credential must be answered 401 first.
import fc from 'fast-check';
import { BAD_TEXT, BAD_UTF8, nestedJsonText } from './fuzz-schema.js';

export interface RawCase {
  label: string;
  /** Everything after the request line's target up to the body: built per server (Host, key). */
  build(server: { host: string; credential: Array<[string, string]> }): Buffer;
  /** Node's parser accepts the message as HTTP (so the application sees it). */
  parseable: boolean;
  /** A CORS preflight: 204 before authentication is correct. */
  preflight?: boolean;
  /** The path the target names, when it is one of the surface's paths unaltered (a query aside). */
  path?: string;
}

const REST_PATHS = ['/v1/me', '/v1/me/profile', '/v1/search', '/v1/communities/c_bio/members', '/v1/communities/c_bio/members/p_one', '/v1/communities/c_bio/enrich', '/v1/openapi.json', '/', '/nope'];
const MCP_PATHS = ['/mcp', '/mcp/', '/MCP', '/nope'];

function message(method: string, target: string, headers: Array<[string, string]>, body?: Buffer | string, version = 'HTTP/1.1'): Buffer {
  const b = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  const all = [...headers];
  if (b && !all.some(([n]) => /^(content-length|transfer-encoding)$/i.test(n))) all.push(['Content-Length', String(b.length)]);
  if (!all.some(([n]) => /^connection$/i.test(n))) all.push(['Connection', 'close']);
  const head = `${method} ${target} ${version}\r\n${all.map(([n, v]) => `${n}: ${v}\r\n`).join('')}\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), b ?? Buffer.alloc(0)]);
}

/** A JSON body of a surface's operation with a hole in one string: what goes in the hole is the case. */
interface TextHole {
  path: string;
  before: string;
  after: string;
}

const REST_HOLES: TextHole[] = [
  { path: '/v1/search', before: '{"query":"pond ', after: '","scope":"all","wait_seconds":0}' },
  { path: '/v1/communities/c_bio/members', before: '{"members":[{"email":"raw.bytes@example.org","name":"Raw ', after: ' Name"},{"name":"Fine Name"}]}' },
  { path: '/v1/communities/c_bio/members', before: '{"members":[{"name":"Raw","headline":"', after: '"}]}' },
  { path: '/v1/communities/c_bio/enrich', before: '{"dry_run":true,"profile_ids":["p_one', after: '"]}' },
];
const MCP_HOLES: TextHole[] = [
  { path: '/mcp', before: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_experts","arguments":{"query":"pond ', after: '","scope":"all","wait_seconds":0}}}' },
  { path: '/mcp', before: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add_community_members","arguments":{"community_id":"c_bio","members":[{"name":"Raw ', after: ' Name"}]}}}' },
  { path: '/mcp', before: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_community_members","arguments":{"community_id":"c_bio","after":"', after: '"}}}' },
];

/** What fills a hole: raw bytes that are not UTF-8, or text (a JSON escape of a lone surrogate, or a character sent as UTF-8). */
const holeFilling: fc.Arbitrary<{ label: string; bytes: Buffer }> = fc.oneof(
  fc.constantFrom(...BAD_UTF8).map((b) => ({ label: `bytes ${b.map((x) => x.toString(16).toUpperCase().padStart(2, '0')).join(' ')}`, bytes: Buffer.from(b) })),
  fc.constantFrom(...BAD_TEXT).map((t) => {
    // A lone surrogate cannot be sent as UTF-8: it travels as its JSON escape; the rest as UTF-8.
    const lone = (c: string) => c.length === 1 && c >= '\ud800' && c <= '\udfff';
    const escaped = [...t].map((c) => (lone(c) || c === '\u0000' ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c)).join('');
    return { label: `text ${JSON.stringify(escaped)}`, bytes: Buffer.from(escaped, 'utf8') };
  }),
);

const jsonType: [string, string] = ['Content-Type', 'application/json'];
const mcpAccept: [string, string] = ['Accept', 'application/json, text/event-stream'];
const ctl = fc.integer({ min: 0, max: 0x1f }).filter((c) => c !== 0x0a && c !== 0x0d).map((c) => String.fromCharCode(c));

/** Raw cases against one surface; `paths` are the ones that surface serves (or does not). */
export function rawCaseArbitrary(surface: 'rest' | 'mcp'): fc.Arbitrary<RawCase> {
  const paths = surface === 'rest' ? REST_PATHS : MCP_PATHS;
  const path = fc.constantFrom(...paths);
  const method = fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'OPTIONS');
  const extra = surface === 'mcp' ? [jsonType, mcpAccept] : [jsonType];
  // A counterexample prints as its label (fast-check's toStringMethod), not as the builder's source.
  const named = (c: RawCase): RawCase => Object.assign(c, { [fc.toStringMethod]: () => `${c.label}${c.parseable ? '' : ' (not parseable)'}` });
  const ok = (label: string, build: RawCase['build'], more: Partial<RawCase> = {}): RawCase => named({ label, build, parseable: true, ...more });
  const bad = (label: string, build: RawCase['build']): RawCase => named({ label, build, parseable: false });

  const holes = surface === 'rest' ? REST_HOLES : MCP_HOLES;
  const parseable: fc.Arbitrary<RawCase>[] = [
    // Every text field of a body the surface reads, holding bytes that are not UTF-8, a lone
    // surrogate, NUL or a noncharacter: 400 or a per-item rejection, or stored as sent — never a 5xx.
    fc.tuple(fc.constantFrom(...holes), holeFilling).map(([hole, fill]) =>
      ok(`POST ${hole.path} JSON string with ${fill.label}`, (s) =>
        message('POST', hole.path, [['Host', s.host], ...s.credential, ...extra], Buffer.concat([Buffer.from(hole.before), fill.bytes, Buffer.from(hole.after)])), { path: hole.path })),
    // Bad percent-encoding and odd characters in the path, all legal on the wire.
    fc.tuple(method, path, fc.constantFrom('%', '%zz', '%C0%AF', '%ED%A0%80', '%FF', '%00', '%2F..%2F', '%25', '/..', '//', '/./', ';x', '~', '%E2%80%AE')).map(([m, p, odd]) =>
      ok(`${m} ${p}${odd}`, (s) => message(m, `${p}${odd}`, [['Host', s.host], ...s.credential]))),
    fc.tuple(method, fc.constantFrom('/v1/communities/', '/v1/search/', '/v1/communities/c_bio/members/'), fc.integer({ min: 100, max: 6000 })).map(([m, p, n]) =>
      ok(`${m} ${p}<${n} characters>`, (s) => message(m, `${p}${'a'.repeat(n)}${p.startsWith('/v1/communities/') && !p.includes('members') ? '/members' : ''}`, [['Host', s.host], ...s.credential]))),
    // Raw UTF-8 bytes (obs-text) in the target and in header values.
    fc.tuple(method, path, fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 })).map(([m, p, u]) =>
      ok(`${m} ${p} + raw UTF-8`, (s) => message(m, `${p}${Buffer.from(u, 'utf8').toString('latin1')}`, [['Host', s.host], ...s.credential]))),
    // Query strings: bad encoding, repeated and empty parameters.
    fc.tuple(path, fc.constantFrom('?limit=%zz', '?limit=1&limit=2', '?=', '?&&&', '?after=%00', '?limit=%FF', `?x=${'y'.repeat(5000)}`)).map(([p, q]) =>
      ok(`GET ${p}${q.slice(0, 40)}`, (s) => message('GET', `${p}${q}`, [['Host', s.host], ...s.credential]), { path: p })),
    // Many headers, odd but legal names and values, repeated credentials.
    fc.tuple(path, fc.integer({ min: 1, max: 150 })).map(([p, n]) =>
      ok(`GET ${p} with ${n} extra headers`, (s) => message('GET', p, [['Host', s.host], ...s.credential, ...Array.from({ length: n }, (_, i) => [`X-F${i}`, 'v'] as [string, string])]), { path: p })),
    fc.tuple(path, fc.constantFrom<Array<[string, string]>>(
      [['X-Request-Id', '']], [['X-Request-Id', 'x'.repeat(129)]], [['X-Request-Id', 'a'], ['X-Request-Id', 'b']], [['Accept-Encoding', 'br, gzip, zstd']],
      [['Authorization', 'Bearer a'], ['Authorization', 'Bearer b']], [['Content-Type', 'application/json; charset=latin1']], [['Expect', '100-continue']], [['Idempotency-Key', 'a'], ['Idempotency-Key', 'b']],
    )).map(([p, h]) => ok(`GET ${p} with ${JSON.stringify(h)}`, (s) => message(p === '/mcp' ? 'POST' : 'GET', p, [['Host', s.host], ...s.credential, ...h]), { path: p })),
    // Bodies: deep nesting, over 1 MiB (sized and chunked), gzip that is not, charsets, wrong types.
    fc.tuple(path, fc.integer({ min: 100, max: 100_000 }), fc.constantFrom<'array' | 'object'>('array', 'object'), fc.boolean()).map(([p, depth, kind, idem]) =>
      ok(`POST ${p} JSON nested ${depth} deep${idem ? ' with Idempotency-Key' : ''}`, (s) =>
        message('POST', p, [['Host', s.host], ...s.credential, ...extra, ...(idem ? [['Idempotency-Key', `nest-${depth}`] as [string, string]] : [])], nestedJsonText(depth, kind)), { path: p })),
    fc.tuple(path, fc.constantFrom(1024 * 1024 + 1, 2 * 1024 * 1024), fc.boolean()).map(([p, size, chunked]) =>
      ok(`POST ${p} ${size}-byte body${chunked ? ' chunked' : ''}`, (s) => {
        const body = `{"q":"${'x'.repeat(size)}"}`;
        if (!chunked) return message('POST', p, [['Host', s.host], ...s.credential, ...extra], body);
        const chunks = `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`;
        return message('POST', p, [['Host', s.host], ...s.credential, ...extra, ['Transfer-Encoding', 'chunked']], chunks);
      }, { path: p })),
    fc.tuple(path, fc.constantFrom(
      ['Content-Encoding', 'gzip'], ['Content-Encoding', 'deflate'], ['Content-Encoding', 'identity, br'], ['Content-Type', 'application/json; charset=utf-16'],
      ['Content-Type', 'text/plain'], ['Content-Type', 'application/xml'], ['Content-Type', 'application/json\u0000'.replace('\u0000', '')], ['Content-Type', ';;;'],
    ) as fc.Arbitrary<[string, string]>).map(([p, h]) =>
      ok(`POST ${p} with ${h.join(': ')}`, (s) => message('POST', p, [['Host', s.host], ...s.credential, ...extra.filter(([n]) => n.toLowerCase() !== h[0].toLowerCase()), h], '{"query":"x","scope":"all"}'), { path: p })),
    fc.tuple(path, fc.constantFrom('\u0000', '{"query":"\u0000","scope":"all"}', '{"query":"a\\u0000b","scope":"all"}', '\ufeff{}', '{"a":' + '"x",'.repeat(2000) + '"b":1}', 'null', '[]', '"text"', '1e999', '{"__proto__":{"x":1}}')).map(([p, b]) =>
      ok(`POST ${p} body ${JSON.stringify(b.slice(0, 30))}`, (s) => message('POST', p, [['Host', s.host], ...s.credential, ...extra], b), { path: p })),
    // Chunked bodies: valid, with extensions and trailers.
    fc.tuple(path, fc.constantFrom('2\r\n{}\r\n0\r\n\r\n', '2;ext=1\r\n{}\r\n0\r\nX-Trailer: t\r\n\r\n', '0\r\n\r\n')).map(([p, chunks]) =>
      ok(`POST ${p} chunked ${JSON.stringify(chunks.slice(0, 12))}`, (s) => message('POST', p, [['Host', s.host], ...s.credential, ...extra, ['Transfer-Encoding', 'chunked']], chunks), { path: p })),
    // Unknown and odd methods.
    fc.tuple(fc.constantFrom('BREW', 'PROPFIND', 'TRACE', 'HEAD', 'SEARCH', 'M-SEARCH', 'QUERY'), path).map(([m, p]) =>
      ok(`${m} ${p}`, (s) => message(m, p, [['Host', s.host], ...s.credential]), { path: p })),
    // Absolute-form and asterisk-form targets.
    fc.tuple(path, fc.constantFrom('http://evil.example', 'http://127.0.0.1')).map(([p, origin]) =>
      ok(`GET ${origin}${p}`, (s) => message('GET', `${origin}${p}`, [['Host', s.host], ...s.credential]))),
    fc.constant(ok('OPTIONS *', (s) => message('OPTIONS', '*', [['Host', s.host], ...s.credential]))),
    // A preflight is answered before authentication.
    path.map((p) => ok(`preflight ${p}`, (s) => message('OPTIONS', p, [['Host', s.host], ['Origin', 'http://127.0.0.1'], ['Access-Control-Request-Method', 'POST'], ...s.credential]), { preflight: true, path: p })),
  ];

  const malformed: fc.Arbitrary<RawCase>[] = [
    // Request lines a parser must refuse.
    fc.constantFrom('HELLO', 'GET', 'GET /v1/me', 'GET /v1/me HTTP/9.9', 'GET  /v1/me  HTTP/1.1', 'get /v1/me HTTP/1.1', 'GET /v1/me HTTP/1.1 extra', ' GET /v1/me HTTP/1.1', 'GET /v1/\u0000me HTTP/1.1', 'GET /v1/me\u0001 HTTP/1.1', 'GET /v1/me\u007f HTTP/1.1', 'G\u0000T /v1/me HTTP/1.1', '\u0016\u0003\u0001\u0002\u0000').map((line) =>
      bad(`request line ${JSON.stringify(line)}`, (s) => Buffer.from(`${line}\r\nHost: ${s.host}\r\n${s.credential.map(([n, v]) => `${n}: ${v}\r\n`).join('')}Connection: close\r\n\r\n`, 'latin1'))),
    fc.tuple(path, ctl).map(([p, c]) => bad(`control character ${c.charCodeAt(0)} in the path`, (s) => message('GET', `${p}${c}x`, [['Host', s.host], ...s.credential]))),
    // Control characters and NUL in header names and values.
    fc.tuple(path, ctl, fc.boolean()).filter(([, c]) => c !== '\t').map(([p, c, inName]) =>
      bad(`control character ${c.charCodeAt(0)} in a header ${inName ? 'name' : 'value'}`, (s) => message('GET', p, [['Host', s.host], ...s.credential, inName ? [`X-${c}A`, 'v'] : ['X-A', `a${c}b`]]))),
    path.map((p) => bad('NUL in the Authorization header', (s) => message('GET', p, [['Host', s.host], ['Authorization', 'Bearer svc_live_\u0000']]))),
    // Content-Length that lies, twice, or fights Transfer-Encoding.
    fc.tuple(path, fc.constantFrom<Array<[string, string]>>(
      [['Content-Length', '2'], ['Content-Length', '3']], [['Content-Length', '-1']], [['Content-Length', 'abc']], [['Content-Length', '2, 3']], [['Content-Length', '1e3']],
      [['Content-Length', '2'], ['Transfer-Encoding', 'chunked']], [['Transfer-Encoding', 'chunked'], ['Transfer-Encoding', 'identity']], [['Transfer-Encoding', 'gzip']],
    )).map(([p, h]) => bad(`POST ${p} with ${JSON.stringify(h)}`, (s) => message('POST', p, [['Host', s.host], ...s.credential, ...extra, ...h], '{}'))),
    fc.tuple(path, fc.constantFrom('zz\r\n{}\r\n0\r\n\r\n', '2\r\n{}0\r\n\r\n', '-1\r\n\r\n')).map(([p, chunks]) =>
      bad(`POST ${p} broken chunks ${JSON.stringify(chunks.slice(0, 10))}`, (s) => message('POST', p, [['Host', s.host], ...s.credential, ...extra, ['Transfer-Encoding', 'chunked']], chunks))),
    // Headers over Node's 16 KiB limit, in one header or many, or in the target.
    fc.tuple(path, fc.integer({ min: 17_000, max: 80_000 }), fc.constantFrom('one', 'many', 'target')).map(([p, size, how]) =>
      bad(`headers of ${size} bytes (${how})`, (s) => {
        if (how === 'target') return message('GET', `${p}?x=${'a'.repeat(size)}`, [['Host', s.host], ...s.credential]);
        const headers: Array<[string, string]> = how === 'one' ? [['X-Big', 'b'.repeat(size)]] : Array.from({ length: Math.ceil(size / 1000) }, (_, i) => [`X-Big-${i}`, 'b'.repeat(1000)] as [string, string]);
        return message('GET', p, [['Host', s.host], ...s.credential, ...headers]);
      })),
    // Obsolete line folding and a header without a colon.
    path.map((p) => bad('obs-fold header', (s) => message('GET', p, [['Host', s.host], ...s.credential, ['X-A', 'a\r\n b']]))),
    path.map((p) => bad('header line without a colon', (s) => Buffer.from(`GET ${p} HTTP/1.1\r\nHost: ${s.host}\r\nNoColonHere\r\nConnection: close\r\n\r\n`, 'latin1'))),
    // No Host in HTTP/1.1.
    path.map((p) => bad('no Host header', (s) => message('GET', p, [...s.credential]))),
  ];
  return fc.oneof({ weight: 3, arbitrary: fc.oneof(...parseable) }, { weight: 2, arbitrary: fc.oneof(...malformed) });
}
