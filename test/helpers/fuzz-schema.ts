// Arbitraries built from the served OpenAPI document: for every operation, a request with path
// parameters, query parameters and a JSON body that are valid by the schema or deliberately broken
// (wrong types, missing or unknown fields, NUL and control characters, lone surrogates and
// noncharacters, bytes that are not UTF-8, over-long strings, deep nesting). The document decides what is generated, so a new endpoint or field is fuzzed without
// touching the suite.
import fc from 'fast-check';

type Schema = Record<string, any>;
export type OpenApiDocument = { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, Schema>; parameters?: Record<string, Schema> } };

export interface Operation {
  method: string;
  /** The path template, e.g. /v1/communities/{id}/members */
  template: string;
  pathParams: Schema[];
  queryParams: Schema[];
  /** The JSON body's schema, when the operation takes one. */
  body?: Schema;
  scopes: string[];
}

/** Ids the seed knows, so that generated requests also reach the rows behind the refusals. */
export const KNOWN_IDS = ['c_bio', 'c_closed', 'c_bob', 'c_none', 'p_ada', 'p_one', 'p_two', 'p_bob', 'p_free', 'p_none', 'srch_1', 'run_1'];
const WORDS = ['protein', 'enzyme', 'soil', 'ecology', 'marine', 'microscopy', 'design', 'the', 'and', 'ÄÖü', '日本語', '🧬'];

/**
 * Text the store cannot keep or that is easy to get wrong, put into one string of a value: NUL,
 * lone surrogates high and low (alone, at either end, reversed), and noncharacters (text: stored
 * as is). docs/API-DECISIONS.md says which are refused.
 */
export const BAD_TEXT = [
  '\u0000', '\ud800', '\udbff', '\udc00', '\udfff', '\udc00\ud800', 'x\ud83e', '\udde0x',
  '\ufffe', '\uffff', '\ufdd0', '\ufdef', '\u{1fffe}', '\u{10ffff}',
] as const;

/**
 * Byte sequences that are not UTF-8, sent raw inside a JSON string: overlong forms of "/" and of
 * NUL, an encoded surrogate (CESU-8), a lone continuation byte, bytes UTF-8 never uses, a
 * sequence cut short.
 */
export const BAD_UTF8: readonly number[][] = [
  [0xc0, 0xaf], [0xe0, 0x80, 0xaf], [0xf0, 0x80, 0x80, 0xaf], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xed, 0xbf, 0xbf],
  [0x80], [0xff], [0xfe], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82],
];

/** Strings no API field should choke on: NUL, control characters, lone surrogates, noncharacters, huge ones. */
const shortNasty: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('\u0000', 'a\u0000b', '\u0000'.repeat(5), '\u0001\u0002\u001f\u007f', '\r\n', '\ud800', '\udfff x', '\u202e', '\ufeff', '%00', '%', '%zz', '..', '../..', '\\', "'; DROP TABLE x; --", '${x}', '<script>', ' ', ''),
  fc.constantFrom(...BAD_TEXT),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 10 }),
);
/** Over the documented maximums (128-character ids, 255-character keys, 1000-character queries) and far beyond. */
const longString: fc.Arbitrary<string> = fc.oneof(
  fc.integer({ min: 129, max: 5000 }).map((n) => 'x'.repeat(n)),
  fc.constantFrom(256, 1001, 10_001, 100_000).map((n) => 'q'.repeat(n)),
);
export const nastyString: fc.Arbitrary<string> = fc.oneof({ weight: 5, arbitrary: shortNasty }, { weight: 1, arbitrary: longString });

/** Any JSON value, nasty strings included. */
export const anyJson: fc.Arbitrary<unknown> = fc.jsonValue({ maxDepth: 3 }).chain((v) =>
  fc.oneof({ weight: 3, arbitrary: fc.constant(v) }, { weight: 1, arbitrary: nastyString }, { weight: 1, arbitrary: fc.constantFrom(null, -1, 0, 1.5, 2 ** 53, -(2 ** 63), 1e308, true, [], {}) }),
);

/** JSON text nested `depth` deep, built as text (a JavaScript value that deep could not be stringified). */
export function nestedJsonText(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array' ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

function resolve(doc: OpenApiDocument, schema: Schema): Schema {
  let s = schema;
  while (s && typeof s.$ref === 'string') {
    const [, , kind, name] = s.$ref.split('/');
    s = { ...(doc.components as any)[kind!][name!], ...Object.fromEntries(Object.entries(s).filter(([k]) => k !== '$ref')) };
  }
  return s;
}

/** Every operation of the document, parameters resolved. */
export function operationsOf(doc: OpenApiDocument): Operation[] {
  const ops: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const params = ((op.parameters ?? []) as Schema[]).map((p) => resolve(doc, p));
      const bodySchema = op.requestBody?.content?.['application/json']?.schema;
      const scopes = [...new Set(((op.security ?? []) as Record<string, string[]>[]).flatMap((s) => Object.values(s).flat()))];
      ops.push({
        method: method.toUpperCase(),
        template,
        pathParams: params.filter((p) => p.in === 'path'),
        queryParams: params.filter((p) => p.in === 'query'),
        ...(bodySchema && { body: resolve(doc, bodySchema) }),
        scopes,
      });
    }
  }
  return ops;
}

/** A value the schema accepts (mostly: formats are approximated). */
export function validValue(doc: OpenApiDocument, raw: Schema, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(doc, raw);
  if ('const' in schema) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...(schema.enum as unknown[]));
  switch (schema.type) {
    case 'string': {
      if (schema.format === 'email') return fc.oneof(fc.emailAddress(), fc.constantFrom('one@example.org', 'ada@example.org', 'new@example.org'));
      if (schema.format === 'uri') return fc.oneof(fc.webUrl(), fc.constantFrom('https://www.linkedin.com/in/someone', 'https://linkedin.com/in/ada/'));
      if (schema.format === 'date-time') return fc.date({ min: new Date('2000-01-01'), max: new Date('2030-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
      if (schema.pattern) {
        const matching = fc.stringMatching(new RegExp(schema.pattern));
        return schema.pattern.includes('A-Za-z0-9_.:-') ? fc.oneof(fc.constantFrom(...KNOWN_IDS), matching) : matching;
      }
      const min = schema.minLength ?? 0;
      const max = Math.min(schema.maxLength ?? 60, 60);
      return fc.oneof(
        fc.array(fc.constantFrom(...WORDS), { minLength: Math.max(1, min), maxLength: 6 }).map((w) => w.join(' ').slice(0, schema.maxLength ?? 1000)),
        fc.string({ minLength: min, maxLength: Math.max(min, max) }),
      );
    }
    case 'integer': {
      const min = schema.minimum ?? -1000;
      const max = schema.maximum ?? Math.max(min + 1000, 1000);
      return fc.integer({ min, max });
    }
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'array': {
      if (depth > 3) return fc.constant([]);
      const min = schema.minItems ?? 0;
      return fc.array(validValue(doc, schema.items ?? {}, depth + 1), { minLength: min, maxLength: Math.max(min, Math.min(schema.maxItems ?? 4, 4)) });
    }
    case 'object':
    case undefined: {
      const props = Object.entries((schema.properties ?? {}) as Record<string, Schema>).filter(([, p]) => !(p.not && Object.keys(p.not).length === 0));
      if (props.length === 0) return fc.constant({});
      const required = ((schema.required ?? []) as string[]).filter((k) => props.some(([n]) => n === k));
      return fc.record(Object.fromEntries(props.map(([name, p]) => [name, validValue(doc, p, depth + 1)])), { requiredKeys: required });
    }
    default:
      return anyJson;
  }
}

/**
 * An index to pick with (which string of a value, which bad text): uniform, since fast-check's
 * integers lean to small values, and a leaning pick would hit a value's first string most times.
 */
export const anyIndex: fc.Arbitrary<number> = fc.noBias(fc.nat());

/** The paths of every string inside a value (the value itself: an empty path). */
function stringPaths(value: unknown): Array<Array<string | number>> {
  const paths: Array<Array<string | number>> = [];
  const walk = (v: unknown, path: Array<string | number>) => {
    if (typeof v === 'string') paths.push(path);
    else if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
  };
  walk(value, []);
  return paths;
}

/** The same value with `insert` put into one of its strings, however deep (a nested member's e-mail, say); `pick` chooses which. */
export function withTextSomewhere(value: unknown, pick: number, insert: string): unknown {
  const paths = stringPaths(value);
  if (paths.length === 0) return value;
  const target = paths[pick % paths.length]!;
  const copy = structuredClone(value) as any;
  if (target.length === 0) return `${copy}${insert}`;
  let at = copy;
  for (const step of target.slice(0, -1)) at = at[step];
  const last = target[target.length - 1]!;
  at[last] = `${String(at[last]).slice(0, 3)}${insert}${String(at[last]).slice(3)}`;
  return copy;
}

/** The same value with one of BAD_TEXT (NUL, a lone surrogate, a noncharacter) in one of its strings. */
export const withBadTextSomewhere = (value: unknown, pick: number, kind: number) => withTextSomewhere(value, pick, BAD_TEXT[kind % BAD_TEXT.length]!);

/** Marks where raw bytes go in JSON text (ASCII, so JSON.stringify leaves it as is). */
const BYTES_MARK = '~BAD-UTF8~';

/**
 * The value as JSON bytes with one of BAD_UTF8 sent raw inside one of its strings (`pick` chooses
 * the string, `kind` the bytes): what a client that builds JSON by hand, or a broken encoder, sends.
 */
export function jsonWithBadBytes(value: unknown, pick: number, kind: number): Buffer {
  const text = JSON.stringify(withTextSomewhere(value, pick, BYTES_MARK) ?? null);
  const bytes = Buffer.from(BAD_UTF8[kind % BAD_UTF8.length]!);
  const parts = text.split(BYTES_MARK).map((part) => Buffer.from(part, 'utf8'));
  return Buffer.concat(parts.flatMap((part, i) => (i === 0 ? [part] : [bytes, part])));
}

/** A value the schema should refuse, or one at its edges: every way a client gets it wrong. */
export function brokenValue(doc: OpenApiDocument, raw: Schema): fc.Arbitrary<unknown> {
  const schema = resolve(doc, raw);
  const valid = validValue(doc, schema);
  const props = Object.keys(schema.properties ?? {});
  const ways: fc.Arbitrary<unknown>[] = [
    anyJson,
    fc.constantFrom(null, [], '', 0, 'not an object', [{}]),
    // NUL, control characters and over-long values in every string field, one field at a time.
    ...props.map((name) => valid.chain((v) => nastyString.map((s) => ({ ...(v as object), [name]: s })))),
    // Any JSON in one field.
    ...props.map((name) => valid.chain((v) => anyJson.map((x) => ({ ...(v as object), [name]: x })))),
    // A field the schema does not know.
    valid.chain((v) => fc.tuple(fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('__proto__', 'constructor', 'include_teams', '')), anyJson)
      .map(([k, x]) => (typeof v === 'object' && v !== null ? { ...(v as object), [k]: x } : v))),
  ];
  for (const name of (schema.required ?? []) as string[]) {
    ways.push(valid.map((v) => Object.fromEntries(Object.entries(v as object).filter(([k]) => k !== name))));
  }
  return fc.oneof(...ways);
}

/** A path parameter: a schema-valid id, a known one, or one with odd characters or length. */
export function pathParamValue(doc: OpenApiDocument, param: Schema): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 8, arbitrary: validValue(doc, param.schema ?? {}).map(String) },
    { weight: 3, arbitrary: nastyString },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }) },
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 300 }).map((n) => 'p'.repeat(n)) },
  );
}

/** A query parameter's raw (unencoded) value. */
export function queryParamValue(doc: OpenApiDocument, param: Schema): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: validValue(doc, param.schema ?? {}).map(String) },
    { weight: 2, arbitrary: nastyString },
    { weight: 1, arbitrary: fc.constantFrom('-1', '0', '1e3', '9007199254740993', '1.5', 'NaN', 'Infinity', '0x10', ' 5', '') },
  );
}
