// Fuzzed REST requests, one operation of the served OpenAPI document at a time: its path and query
// parameters and its body, valid or broken (NUL, a lone surrogate or a noncharacter in any string
// at any depth; bytes that are not UTF-8 inside one), under any credential, sent as raw bytes.
import fc from 'fast-check';
import { credentialArbitrary, type FuzzCredential } from './fuzz-credentials.js';
import {
  anyIndex, anyJson, brokenValue, jsonWithBadBytes, KNOWN_IDS, nastyString, nestedJsonText, pathParamValue, queryParamValue, validValue, withBadTextSomewhere,
  type OpenApiDocument, type Operation,
} from './fuzz-schema.js';
import type { FuzzKeys } from './fuzz-system.js';
import { buildRequest, encodeSegment } from './raw-http.js';

export interface FuzzRequest {
  method: string;
  target: string;
  headers: Array<[string, string]>;
  /** Text is sent as UTF-8; bytes as they are (not always UTF-8). */
  body?: string | Buffer;
  credential: FuzzCredential;
}

interface FuzzBody {
  contentType?: string;
  text?: string | Buffer;
}

function bodyArbitrary(doc: OpenApiDocument, op: Operation): fc.Arbitrary<FuzzBody> {
  const json = (v: unknown): FuzzBody => ({ contentType: 'application/json', text: JSON.stringify(v) });
  const odd = fc.oneof(
    fc.integer({ min: 10, max: 20_000 }).chain((depth) => fc.constantFrom<'array' | 'object'>('array', 'object').map((kind) => ({ contentType: 'application/json', text: nestedJsonText(depth, kind) }))),
    fc.constantFrom<FuzzBody>(
      { contentType: 'application/json', text: '{' },
      { contentType: 'application/json', text: '' },
      { contentType: 'application/json', text: '{"a":1,"a":2}' },
      { contentType: 'application/json', text: '\u0000' },
      { contentType: 'application/json; charset=utf-16', text: '{}' },
      { contentType: 'application/x-www-form-urlencoded', text: 'query=x&scope=all' },
      { contentType: 'text/plain', text: '{}' },
      { contentType: 'multipart/form-data; boundary=x', text: '--x--' },
      { contentType: '', text: '{}' },
      { text: '{}' },
      { contentType: 'application/json', text: `{"q":"${'x'.repeat(1024 * 1024)}"}` },
    ),
  );
  if (!op.body) {
    return fc.oneof({ weight: 8, arbitrary: fc.constant<FuzzBody>({}) }, { weight: 1, arbitrary: anyJson.map(json) }, { weight: 1, arbitrary: odd });
  }
  const valid = validValue(doc, op.body);
  return fc.oneof(
    { weight: 3, arbitrary: valid.map(json) },
    { weight: 4, arbitrary: brokenValue(doc, op.body).map(json) },
    { weight: 2, arbitrary: fc.tuple(valid, anyIndex, anyIndex).map(([v, i, kind]) => json(withBadTextSomewhere(v, i, kind))) },
    { weight: 1, arbitrary: fc.tuple(valid, anyIndex, anyIndex).map(([v, i, kind]) => ({ contentType: 'application/json', text: jsonWithBadBytes(v, i, kind) })) },
    { weight: 1, arbitrary: fc.constant<FuzzBody>({}) },
    { weight: 2, arbitrary: odd },
  );
}

/**
 * A request that gets past everything but its text: a known id in every path parameter, the key
 * with every scope, and a valid body with NUL, a lone surrogate or a noncharacter in one string, or
 * bytes that are not UTF-8 inside one. The text reaches the handler (and the store) this way; in a
 * fully random request an unknown id or the wrong key answers first.
 */
function badTextPastTheChecks(doc: OpenApiDocument, ops: Operation[], keys: FuzzKeys): fc.Arbitrary<FuzzRequest> {
  const credential: FuzzCredential = { label: 'key with every scope', headers: [['Authorization', `Bearer ${keys.all}`]], none: false };
  // The seed's community with writes allowed (and a member of it) where a parameter names one.
  const known = (name: string) => ({ id: 'c_bio', profile_id: 'p_one' })[name] ?? KNOWN_IDS[0]!;
  return fc.constantFrom(...ops.filter((op) => op.body)).chain((op) =>
    fc.tuple(validValue(doc, op.body!), anyIndex, anyIndex, fc.boolean()).map(([value, pick, kind, bytes]) => {
      const path = op.pathParams.map((p) => known(p.name as string));
      let i = 0;
      const target = op.template.replace(/\{[^}]+\}/g, () => encodeSegment(String(path[i++] ?? '')));
      const body = bytes ? jsonWithBadBytes(value, pick, kind) : JSON.stringify(withBadTextSomewhere(value, pick, kind));
      return { method: op.method, target, headers: [...credential.headers, ['Content-Type', 'application/json']], body, credential };
    }),
  );
}

export function restRequestArbitrary(doc: OpenApiDocument, ops: Operation[], keys: FuzzKeys): fc.Arbitrary<FuzzRequest> {
  return fc.oneof({ weight: 8, arbitrary: anyRequest(doc, ops, keys) }, { weight: 2, arbitrary: badTextPastTheChecks(doc, ops, keys) });
}

function anyRequest(doc: OpenApiDocument, ops: Operation[], keys: FuzzKeys): fc.Arbitrary<FuzzRequest> {
  return fc.constantFrom(...ops).chain((op) =>
    fc.record({
      method: fc.oneof({ weight: 12, arbitrary: fc.constant(op.method) }, { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS') }),
      path: fc.tuple(...op.pathParams.map((p) => pathParamValue(doc, p))),
      query: fc.array(
        fc.oneof(
          ...op.queryParams.map((p) => queryParamValue(doc, p).map((v) => [p.name as string, v] as const)),
          fc.tuple(fc.constantFrom('unknown', 'limit', '__proto__', ''), nastyString).map(([k, v]) => [k, v] as const),
        ),
        { maxLength: 3 },
      ),
      body: bodyArbitrary(doc, op),
      credential: credentialArbitrary(keys),
      idempotencyKey: fc.option(fc.oneof(fc.uuid(), fc.constantFrom('k', ' ', 'x'.repeat(255), 'x'.repeat(256), 'é'), fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 30 })), { freq: 3 }),
      requestId: fc.option(fc.oneof(fc.uuid(), fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 200 })), { freq: 4 }),
    }).map(({ method, path, query, body, credential, idempotencyKey, requestId }) => {
      let i = 0;
      const pathname = op.template.replace(/\{[^}]+\}/g, () => encodeSegment(String(path[i++] ?? '')));
      const search = query.length > 0 ? `?${query.map(([k, v]) => `${encodeSegment(k)}=${encodeSegment(v)}`).join('&')}` : '';
      const headers: Array<[string, string]> = [...credential.headers];
      if (body.contentType !== undefined) headers.push(['Content-Type', body.contentType]);
      if (idempotencyKey !== null) headers.push(['Idempotency-Key', idempotencyKey]);
      if (requestId !== null) headers.push(['X-Request-Id', requestId]);
      return { method, target: pathname + search, headers, ...(body.text !== undefined && { body: body.text }), credential };
    }),
  );
}

export function toBytes(url: string, request: FuzzRequest): Buffer {
  // Header values are sent as UTF-8 bytes, as a client would.
  const headers = request.headers.map(([n, v]) => [n, Buffer.from(v, 'utf8').toString('latin1')] as [string, string]);
  return buildRequest(url, { method: request.method, target: request.target, headers, ...(request.body !== undefined && { body: request.body }) });
}

/** A one-line summary of a request for failure messages (bodies cut). */
export function summarize(request: FuzzRequest): string {
  // Bytes are shown as latin1 text: each byte one character, so bytes that are not UTF-8 show.
  const text = Buffer.isBuffer(request.body) ? request.body.toString('latin1') : request.body;
  const body = text === undefined ? '' : ` body=${JSON.stringify(text.length > 300 ? `${text.slice(0, 300)}…(${text.length})` : text)}`;
  return `${request.method} ${request.target.length > 300 ? `${request.target.slice(0, 300)}…` : request.target} [${request.credential.label}] headers=${JSON.stringify(request.headers.filter(([n]) => !/authorization|x-api-key/i.test(n)))}${body}`;
}
