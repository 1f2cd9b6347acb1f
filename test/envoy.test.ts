// envoy/envoy.yaml checked against Envoy's own API schema, since no Envoy binary runs here.
//
// The .proto files come from @grpc/grpc-js-xds (deps/envoy-api, xds, protoc-gen-validate,
// googleapis). A strict walker converts the YAML, read as proto3 JSON the way Envoy reads it, into
// a protobufjs object for envoy.config.bootstrap.v3.Bootstrap and reports, each with its path:
// unknown fields (protobufjs' fromObject would silently drop them), values of the wrong JSON kind,
// unknown enum names, two members of one oneof, deprecated fields, an `@type` that names no loaded
// message, and a subset of the protoc-gen-validate rules Envoy enforces (required messages and
// oneofs, string min_len/pattern, repeated min_items, numeric and duration bounds). The result is
// then encoded with fromObject/encode and decoded back. On top of that come the edge's own rules:
// TLS, routing (simulated per method and path), retries only for GET/HEAD, request ids, JSON access
// logs, tracing, clusters, circuit breakers and outlier detection.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import protobuf from 'protobufjs';
import { parse, parseAllDocuments } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { ALLOWED_METHODS, ALLOWED_REQUEST_HEADERS, EXPOSED_HEADERS } from '../gateway/rest/plugins/cors.js';
import { loadConfig } from '../services/kit/config.js';

const repoRoot = path.resolve(new URL('..', import.meta.url).pathname);
const ENVOY_YAML = path.join(repoRoot, 'envoy', 'envoy.yaml');

// Every extension (typed_config / Any) the configuration may name must be loaded here; an @type
// outside this schema is reported as unresolvable.
const PROTO_FILES = [
  'envoy/config/bootstrap/v3/bootstrap.proto',
  'envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager.proto',
  'envoy/extensions/filters/http/router/v3/router.proto',
  'envoy/extensions/filters/http/cors/v3/cors.proto',
  'envoy/extensions/access_loggers/file/v3/file.proto',
  'envoy/extensions/formatter/req_without_query/v3/req_without_query.proto',
  'envoy/config/trace/v3/opentelemetry.proto',
  'envoy/extensions/transport_sockets/tls/v3/tls.proto',
  'envoy/extensions/request_id/uuid/v3/uuid.proto',
  'envoy/extensions/upstreams/http/v3/http_protocol_options.proto',
  'envoy/extensions/retry/host/previous_hosts/v3/previous_hosts.proto',
  'envoy/extensions/resource_monitors/downstream_connections/v3/downstream_connections.proto',
];

function loadEnvoySchema(): protobuf.Root {
  const require = createRequire(import.meta.url);
  const xdsDir = path.dirname(require.resolve('@grpc/grpc-js-xds/package.json'));
  const protobufjsDir = path.dirname(require.resolve('protobufjs/package.json'));
  const includeDirs = [
    ...['envoy-api', 'xds', 'protoc-gen-validate', 'googleapis', 'udpa', 'cncf'].map((d) => path.join(xdsDir, 'deps', d)),
    protobufjsDir, // google/protobuf/descriptor.proto, which the annotations extend
  ].filter((d) => existsSync(d));
  const root = new protobuf.Root();
  root.resolvePath = (origin, target) => {
    // google/protobuf/{any,duration,struct,...}.proto are bundled with protobufjs
    if (target.startsWith('google/protobuf/') && protobuf.common.get(target)) return target;
    for (const dir of includeDirs) {
      const candidate = path.join(dir, target);
      if (existsSync(candidate)) return candidate;
    }
    return protobuf.util.path.resolve(origin, target);
  };
  root.loadSync(PROTO_FILES, { keepCase: true });
  root.resolveAll();
  return root;
}

// ---------------------------------------------------------------------------------------------
// The strict walker: proto3 JSON (as Envoy reads YAML) -> protobufjs object, collecting problems.

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** protoc's json_name: snake_case -> lowerCamelCase. */
const jsonName = (name: string): string => name.replace(/_(.)/g, (_m, c: string) => c.toUpperCase());

const INT_RANGES: Record<string, [number, number]> = {
  int32: [-2147483648, 2147483647],
  sint32: [-2147483648, 2147483647],
  sfixed32: [-2147483648, 2147483647],
  uint32: [0, 4294967295],
  fixed32: [0, 4294967295],
};
const INT64 = new Set(['int64', 'sint64', 'sfixed64', 'uint64', 'fixed64']);
const WRAPPERS: Record<string, string> = {
  '.google.protobuf.DoubleValue': 'double',
  '.google.protobuf.FloatValue': 'float',
  '.google.protobuf.Int64Value': 'int64',
  '.google.protobuf.UInt64Value': 'uint64',
  '.google.protobuf.Int32Value': 'int32',
  '.google.protobuf.UInt32Value': 'uint32',
  '.google.protobuf.BoolValue': 'bool',
  '.google.protobuf.StringValue': 'string',
  '.google.protobuf.BytesValue': 'bytes',
};
const DURATION = /^(-)?(\d+)(?:\.(\d{1,9}))?s$/;
const SPECIAL_JSON = new Set([
  ...Object.keys(WRAPPERS),
  ...['Duration', 'Timestamp', 'FieldMask', 'Empty', 'Struct', 'ListValue', 'Value', 'Any'].map((n) => `.google.protobuf.${n}`),
]);

/** A field's protoc-gen-validate rules, `(validate.rules)`, merged from its parsed options. */
type Rules = Obj;
function rulesOf(field: protobuf.Field): Rules | undefined {
  const merge = (into: Obj, from: Obj): Obj => {
    for (const [k, v] of Object.entries(from)) into[k] = isObj(v) && isObj(into[k]) ? merge({ ...(into[k] as Obj) }, v) : v;
    return into;
  };
  let rules: Rules | undefined;
  for (const entry of (field.parsedOptions ?? []) as Obj[]) {
    const r = entry['(validate.rules)'];
    if (isObj(r)) rules = merge(rules ?? {}, r);
  }
  return rules;
}
const rule = (rules: Rules | undefined, key: string): unknown => {
  let cur: unknown = rules;
  for (const k of key.split('.')) cur = isObj(cur) ? cur[k] : undefined;
  return cur;
};

export class StrictEnvoyConverter {
  readonly problems: string[] = [];
  private readonly fieldIndex = new Map<protobuf.Type, Map<string, protobuf.Field>>();

  constructor(private readonly root: protobuf.Root) {}

  /** Converts `json` into a protobufjs object of `typeName`; problems accumulate in `problems`. */
  convert(json: unknown, typeName: string, at = ''): Obj | undefined {
    return this.message(json, this.root.lookupType(typeName), at, undefined) as Obj | undefined;
  }

  private problem(at: string, what: string): void {
    this.problems.push(`${at || '<root>'}: ${what}`);
  }

  private fields(type: protobuf.Type): Map<string, protobuf.Field> {
    let index = this.fieldIndex.get(type);
    if (!index) {
      index = new Map();
      for (const field of type.fieldsArray) {
        index.set(field.name, field);
        index.set(jsonName(field.name), field);
        const explicit = field.options?.json_name;
        if (typeof explicit === 'string') index.set(explicit, field);
      }
      this.fieldIndex.set(type, index);
    }
    return index;
  }

  private fieldName(type: protobuf.Type, snake: string): string {
    const field = this.fields(type).get(snake) ?? this.fields(type).get(jsonName(snake));
    if (!field) throw new Error(`${type.fullName} has no field ${snake}`);
    return field.name;
  }

  private message(value: unknown, type: protobuf.Type, at: string, rules: Rules | undefined): unknown {
    const special = this.wellKnown(value, type, at, rules);
    if (special !== NOT_SPECIAL) return special;
    if (!isObj(value)) {
      this.problem(at, `expected an object (${type.fullName.slice(1)}), got ${JSON.stringify(value)}`);
      return undefined;
    }
    const out: Obj = {};
    const oneofSetBy = new Map<string, string>();
    const index = this.fields(type);
    for (const [key, fieldValue] of Object.entries(value)) {
      const here = at ? `${at}.${key}` : key;
      const field = index.get(key);
      if (!field) {
        this.problem(here, `unknown field of ${type.fullName.slice(1)}`);
        continue;
      }
      if (field.name in out) {
        this.problem(here, `field ${field.name} given twice (snake_case and camelCase)`);
        continue;
      }
      if (field.options?.deprecated === true) this.problem(here, `deprecated field of ${type.fullName.slice(1)}`);
      const oneof = field.partOf;
      if (oneof) {
        const other = oneofSetBy.get(oneof.name);
        if (other !== undefined) this.problem(here, `oneof ${oneof.name} is already set by ${other}`);
        oneofSetBy.set(oneof.name, key);
      }
      if (fieldValue === null && field.resolvedType?.fullName !== '.google.protobuf.Value') {
        this.problem(here, 'null value (an empty YAML key?)');
        continue;
      }
      const converted = this.field(field, fieldValue, here);
      if (converted !== undefined) out[field.name] = converted;
    }
    // protoc-gen-validate rules on absent fields (a oneof member's rules apply only once chosen):
    // a required message must be there, and an absent scalar or list is checked as its default
    for (const field of type.fieldsArray) {
      if (field.partOf || field.name in out || this.hasProblemUnder(at, field)) continue;
      const rules = rulesOf(field);
      if (!rules) continue;
      const here = at ? `${at}.${field.name}` : field.name;
      const required =
        rule(rules, 'message.required') === true || rule(rules, 'duration.required') === true || rule(rules, 'any.required') === true;
      if (required) this.problem(here, `required field of ${type.fullName.slice(1)} is missing`);
      else if (field.repeated || field.map) {
        const minItems = rule(rules, 'repeated.min_items') ?? rule(rules, 'map.min_pairs');
        if (typeof minItems === 'number' && minItems > 0) this.problem(here, `missing; needs at least ${minItems} item(s)`);
      } else if (!field.resolvedType && rule(rules, `${field.type}.ignore_empty`) !== true) {
        const before = this.problems.length;
        this.scalar(field.type, field.type === 'string' ? '' : field.type === 'bool' ? false : 0, here, rules);
        for (let i = before; i < this.problems.length; i += 1) this.problems[i] += ' (field absent: its default value)';
      }
    }
    for (const oneof of type.oneofsArray) {
      if (oneof.options?.['(validate.required)'] === true && !oneofSetBy.has(oneof.name)) {
        this.problem(at, `one of ${oneof.oneof.join(', ')} is required (${type.fullName.slice(1)})`);
      }
    }
    return out;
  }

  private hasProblemUnder(at: string, field: protobuf.Field): boolean {
    const prefixes = [field.name, jsonName(field.name)].map((n) => (at ? `${at}.${n}` : n));
    return this.problems.some((p) => prefixes.some((prefix) => p.startsWith(prefix)));
  }

  private field(field: protobuf.Field, value: unknown, at: string): unknown {
    const rules = rulesOf(field);
    if (field.map) {
      if (!isObj(value)) {
        this.problem(at, 'expected a map (object)');
        return undefined;
      }
      const out: Obj = {};
      for (const [key, item] of Object.entries(value)) out[key] = this.single(field, item, `${at}[${JSON.stringify(key)}]`);
      return out;
    }
    if (field.repeated) {
      if (!Array.isArray(value)) {
        this.problem(at, `expected a list, got ${JSON.stringify(value)}`);
        return undefined;
      }
      const minItems = rule(rules, 'repeated.min_items');
      if (typeof minItems === 'number' && value.length < minItems) this.problem(at, `needs at least ${minItems} item(s)`);
      return value.map((item, i) => this.single(field, item, `${at}[${i}]`));
    }
    return this.single(field, value, at);
  }

  private single(field: protobuf.Field, value: unknown, at: string): unknown {
    const resolved = field.resolvedType;
    const rules = rulesOf(field);
    if (resolved instanceof protobuf.Type) return this.message(value, resolved, at, rules);
    if (resolved instanceof protobuf.Enum) return this.enumValue(resolved, value, at);
    return this.scalar(field.type, value, at, rules);
  }

  private enumValue(type: protobuf.Enum, value: unknown, at: string): unknown {
    if (typeof value === 'string' && value in type.values) return value;
    if (typeof value === 'number' && Object.values(type.values).includes(value)) return value;
    this.problem(at, `${JSON.stringify(value)} is not a value of ${type.fullName.slice(1)} (${Object.keys(type.values).join(', ')})`);
    return undefined;
  }

  private scalar(kind: string, value: unknown, at: string, rules: Rules | undefined): unknown {
    const bad = (expected: string): undefined => {
      this.problem(at, `expected ${expected} (${kind}), got ${JSON.stringify(value)}`);
      return undefined;
    };
    switch (kind) {
      case 'string': {
        if (typeof value !== 'string') return bad('a string');
        const minLen = rule(rules, 'string.min_len');
        if (typeof minLen === 'number' && [...value].length < minLen) this.problem(at, `shorter than ${minLen} character(s)`);
        const pattern = rule(rules, 'string.pattern');
        if (typeof pattern === 'string' && !new RegExp(pattern, 'u').test(value)) this.problem(at, `does not match ${pattern}`);
        return value;
      }
      case 'bool':
        return typeof value === 'boolean' ? value : bad('true or false');
      case 'bytes':
        return typeof value === 'string' && /^[A-Za-z0-9+/_-]*={0,2}$/.test(value) ? value : bad('base64 text');
      case 'double':
      case 'float': {
        if (typeof value === 'string' && ['NaN', 'Infinity', '-Infinity'].includes(value)) return value;
        const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
        if (typeof n !== 'number' || Number.isNaN(n)) return bad('a number');
        this.bounds(n, kind, at, rules);
        return n;
      }
      default: {
        if (!(kind in INT_RANGES) && !INT64.has(kind)) throw new Error(`unhandled scalar kind ${kind} at ${at}`);
        const n = typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
        if (typeof n !== 'number' || !Number.isInteger(n)) return bad('an integer');
        const range = INT_RANGES[kind];
        if (range && (n < range[0] || n > range[1])) this.problem(at, `${n} is out of range for ${kind}`);
        if (kind.startsWith('u') || kind.startsWith('fixed')) if (n < 0) this.problem(at, `${n} is negative (${kind})`);
        this.bounds(n, kind, at, rules);
        return INT64.has(kind) ? String(value) : n;
      }
    }
  }

  private bounds(n: number, kind: string, at: string, rules: Rules | undefined): void {
    const check = (op: string, ok: (limit: number) => boolean): void => {
      const limit = rule(rules, `${kind}.${op}`);
      const asNumber = typeof limit === 'string' ? Number(limit) : limit;
      if (typeof asNumber === 'number' && !ok(asNumber)) this.problem(at, `${n} violates ${op} ${asNumber}`);
    };
    check('gt', (l) => n > l);
    check('gte', (l) => n >= l);
    check('lt', (l) => n < l);
    check('lte', (l) => n <= l);
  }

  /** Well-known types with a special JSON form; NOT_SPECIAL for everything else. */
  private wellKnown(value: unknown, type: protobuf.Type, at: string, rules: Rules | undefined): unknown {
    const name = type.fullName;
    const wrapped = WRAPPERS[name];
    if (wrapped) {
      const inner = this.scalar(wrapped, value, at, rules);
      return inner === undefined ? undefined : { value: inner };
    }
    switch (name) {
      case '.google.protobuf.Duration': {
        const m = typeof value === 'string' ? DURATION.exec(value) : null;
        if (!m) {
          this.problem(at, `expected a duration such as "35s" or "0.250s", got ${JSON.stringify(value)}`);
          return undefined;
        }
        const sign = m[1] ? -1 : 1;
        const seconds = sign * Number(m[2]);
        const nanos = sign * Number((m[3] ?? '').padEnd(9, '0'));
        this.durationBounds(seconds + nanos / 1e9, at, rules);
        return { seconds, nanos };
      }
      case '.google.protobuf.Timestamp': {
        const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
        if (Number.isNaN(ms)) {
          this.problem(at, `expected an RFC 3339 timestamp, got ${JSON.stringify(value)}`);
          return undefined;
        }
        return { seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1e6 };
      }
      case '.google.protobuf.FieldMask':
        if (typeof value !== 'string') {
          this.problem(at, `expected a comma-separated field mask, got ${JSON.stringify(value)}`);
          return undefined;
        }
        return { paths: value.split(',').filter(Boolean).map((p) => p.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)) };
      case '.google.protobuf.Empty':
        if (!isObj(value) || Object.keys(value).length > 0) this.problem(at, 'expected {} (google.protobuf.Empty)');
        return {};
      case '.google.protobuf.Struct':
        return this.struct(value, at);
      case '.google.protobuf.ListValue':
        return this.listValue(value, at);
      case '.google.protobuf.Value':
        return this.value(value, at);
      case '.google.protobuf.Any':
        return this.any(value, at);
      default:
        return NOT_SPECIAL;
    }
  }

  private durationBounds(seconds: number, at: string, rules: Rules | undefined): void {
    for (const op of ['gt', 'gte', 'lt', 'lte'] as const) {
      const bound = rule(rules, `duration.${op}`); // e.g. gt {} (> 0s) or gt {nanos: 1000000}
      if (!isObj(bound)) continue;
      const limit = Number(bound.seconds ?? 0) + Number(bound.nanos ?? 0) / 1e9;
      const ok = op === 'gt' ? seconds > limit : op === 'gte' ? seconds >= limit : op === 'lt' ? seconds < limit : seconds <= limit;
      if (!ok) this.problem(at, `${seconds}s violates ${op} ${limit}s`);
    }
  }

  private struct(value: unknown, at: string): unknown {
    if (!isObj(value)) {
      this.problem(at, `expected an object (google.protobuf.Struct), got ${JSON.stringify(value)}`);
      return undefined;
    }
    const fields: Obj = {};
    for (const [key, item] of Object.entries(value)) fields[key] = this.value(item, `${at}.${key}`);
    return { fields };
  }

  private listValue(value: unknown, at: string): unknown {
    if (!Array.isArray(value)) {
      this.problem(at, `expected a list (google.protobuf.ListValue), got ${JSON.stringify(value)}`);
      return undefined;
    }
    return { values: value.map((item, i) => this.value(item, `${at}[${i}]`)) };
  }

  private value(value: unknown, at: string): unknown {
    const type = this.root.lookupType('google.protobuf.Value');
    const key = (snake: string): string => this.fieldName(type, snake);
    if (value === null) return { [key('null_value')]: 'NULL_VALUE' };
    if (typeof value === 'number') return { [key('number_value')]: value };
    if (typeof value === 'string') return { [key('string_value')]: value };
    if (typeof value === 'boolean') return { [key('bool_value')]: value };
    if (Array.isArray(value)) return { [key('list_value')]: this.listValue(value, at) };
    return { [key('struct_value')]: this.struct(value, at) };
  }

  private any(value: unknown, at: string): unknown {
    if (!isObj(value) || typeof value['@type'] !== 'string') {
      this.problem(at, 'expected an Any with an "@type"');
      return undefined;
    }
    const url = value['@type'];
    const here = `${at}.@type`;
    const slash = url.lastIndexOf('/');
    if (slash < 0) {
      this.problem(here, `${url} is not a type URL (type.googleapis.com/<message>)`);
      return undefined;
    }
    let type: protobuf.Type | undefined;
    try {
      type = this.root.lookupType(url.slice(slash + 1));
    } catch {
      type = undefined;
    }
    if (!type) {
      this.problem(here, `unresolvable type URL ${url}: no such message in the loaded Envoy schema`);
      return undefined;
    }
    const { '@type': _dropped, ...rest } = value;
    if (SPECIAL_JSON.has(type.fullName)) {
      // proto3 JSON puts a well-known type's own JSON form under "value"
      return { '@type': url, value: this.message(rest.value, type, `${at}.value`, undefined) };
    }
    const inner = this.message(rest, type, at, undefined);
    return isObj(inner) ? { '@type': url, ...inner } : undefined;
  }
}
const NOT_SPECIAL = Symbol('not a well-known type');

// ---------------------------------------------------------------------------------------------
// Helpers over the converted object (keys are the .proto field names; an Any keeps its fields
// inline beside "@type"; a Duration is {seconds, nanos}; a wrapper is {value}).

const get = (o: unknown, ...keys: (string | number)[]): unknown => {
  let cur = o;
  for (const k of keys) cur = isObj(cur) || Array.isArray(cur) ? (cur as Record<string | number, unknown>)[k] : undefined;
  return cur;
};
const list = (o: unknown): Obj[] => (Array.isArray(o) ? (o.filter(isObj) as Obj[]) : []);
const seconds = (d: unknown): number | undefined =>
  isObj(d) ? Number(d.seconds ?? 0) + Number(d.nanos ?? 0) / 1e9 : undefined;
const typeOf = (any: unknown): string => String(get(any, '@type') ?? '');
const structToJson = (s: unknown): Obj =>
  Object.fromEntries(
    Object.entries((get(s, 'fields') as Obj | undefined) ?? {}).map(([k, v]) => [k, isObj(v) ? Object.values(v)[0] : undefined]),
  );

const HCM = 'envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager';

function httpConnectionManagers(bootstrap: Obj): Obj[] {
  return list(get(bootstrap, 'static_resources', 'listeners'))
    .flatMap((l) => list(l.filter_chains))
    .flatMap((fc) => list(fc.filters))
    .map((f) => f.typed_config)
    .filter((tc): tc is Obj => typeOf(tc).endsWith(HCM));
}

interface Request {
  method: string;
  path: string;
}

/** Envoy's first-match routing, for the matchers this configuration may use. */
function routeFor(hcm: Obj, req: Request): { route: Obj; vhost: Obj } | undefined {
  const vhosts = list(get(hcm, 'route_config', 'virtual_hosts'));
  const vhost = vhosts.find((v) => (v.domains as string[] | undefined)?.includes('*'));
  if (!vhost) return undefined;
  const pathOnly = req.path.split('?')[0] ?? '';
  const headers: Record<string, string> = { ':method': req.method, ':path': req.path };
  for (const route of list(vhost.routes)) {
    const match = (route.match ?? {}) as Obj;
    let pathOk: boolean;
    if (typeof match.prefix === 'string') pathOk = pathOnly.startsWith(match.prefix);
    else if (typeof match.path === 'string') pathOk = pathOnly === match.path;
    else if (typeof match.path_separated_prefix === 'string') {
      const p = match.path_separated_prefix;
      pathOk = pathOnly === p || pathOnly.startsWith(`${p}/`);
    } else if (isObj(match.safe_regex)) pathOk = fullMatch(String(match.safe_regex.regex), pathOnly);
    else throw new Error(`route ${String(route.name)}: path matcher not simulated: ${JSON.stringify(match)}`);
    if (!pathOk) continue;
    const headersOk = list(match.headers).every((h) => {
      const actual = headers[String(h.name).toLowerCase()];
      let ok: boolean;
      const sm = h.string_match as Obj | undefined;
      if (h.present_match !== undefined) ok = actual !== undefined;
      else if (!sm) throw new Error(`route ${String(route.name)}: header matcher not simulated: ${JSON.stringify(h)}`);
      else if (actual === undefined) ok = false;
      else if (typeof sm.exact === 'string') ok = actual === sm.exact;
      else if (typeof sm.prefix === 'string') ok = actual.startsWith(sm.prefix);
      else if (isObj(sm.safe_regex)) ok = fullMatch(String(sm.safe_regex.regex), actual);
      else throw new Error(`route ${String(route.name)}: string matcher not simulated: ${JSON.stringify(sm)}`);
      return h.invert_match === true ? !ok : ok;
    });
    if (headersOk) return { route, vhost };
  }
  return undefined;
}
const fullMatch = (re2: string, s: string): boolean => new RegExp(`^(?:${re2})$`).test(s);

/** The retry policy Envoy applies to a request: the route's, else the virtual host's. */
const retryPolicyOf = (m: { route: Obj; vhost: Obj }): Obj | undefined =>
  (get(m.route, 'route', 'retry_policy') ?? get(m.route, 'route', 'retry_policy_typed_config') ?? m.vhost.retry_policy ?? m.vhost.retry_policy_typed_config) as
    | Obj
    | undefined;

/** Requests that must never be retried by the proxy, and which of them a configuration would retry. */
function retriedUnsafeRequests(hcm: Obj): string[] {
  const unsafe = ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
  const paths = ['/v1/search', '/v1/communities/c1/members', '/v1/me', '/mcp', '/anything'];
  return unsafe.flatMap((method) =>
    paths.filter((p) => {
      const m = routeFor(hcm, { method, path: p });
      return m !== undefined && retryPolicyOf(m) !== undefined;
    }).map((p) => `${method} ${p}`),
  );
}

/** Every cluster name a configuration points at: route actions and gRPC services, anywhere. */
function referencedClusters(node: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) node.forEach((n) => referencedClusters(n, out));
  else if (isObj(node)) {
    for (const [k, v] of Object.entries(node)) {
      if ((k === 'cluster' || k === 'cluster_name') && typeof v === 'string') out.add(v);
      referencedClusters(v, out);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

describe('envoy/envoy.yaml', () => {
  let root: protobuf.Root;
  let raw: Obj;
  let bootstrap: Obj;
  let hcm: Obj;
  let clusters: Map<string, Obj>;

  const check = (json: unknown): { object: Obj | undefined; problems: string[] } => {
    const converter = new StrictEnvoyConverter(root);
    const object = converter.convert(json, 'envoy.config.bootstrap.v3.Bootstrap');
    return { object, problems: converter.problems };
  };
  const copy = (): Obj => structuredClone(raw);
  const rawHcm = (cfg: Obj): Obj =>
    get(cfg, 'static_resources', 'listeners', 0, 'filter_chains', 0, 'filters', 0, 'typed_config') as Obj;

  beforeAll(() => {
    root = loadEnvoySchema();
    raw = parse(readFileSync(ENVOY_YAML, 'utf8')) as Obj;
    const { object, problems } = check(raw);
    if (problems.length > 0) throw new Error(`envoy.yaml does not fit Envoy's schema:\n  ${problems.join('\n  ')}`);
    bootstrap = object!;
    const hcms = httpConnectionManagers(bootstrap);
    expect(hcms).toHaveLength(1);
    hcm = hcms[0]!;
    clusters = new Map(list(get(bootstrap, 'static_resources', 'clusters')).map((c) => [String(c.name), c]));
  });

  describe("Envoy's schema", () => {
    it('converts without unknown, deprecated or mistyped fields, and survives encode/decode as a Bootstrap', () => {
      const Bootstrap = root.lookupType('envoy.config.bootstrap.v3.Bootstrap');
      const bytes = Bootstrap.encode(Bootstrap.fromObject(bootstrap)).finish();
      expect(bytes.length).toBeGreaterThan(1000);
      const back = Bootstrap.toObject(Bootstrap.decode(bytes), { json: true, longs: String, enums: String }) as Obj;
      // the Any payloads were packed by type, so they unpack again
      const backHcm = get(back, 'static_resources', 'listeners', 0, 'filter_chains', 0, 'filters', 0, 'typed_config');
      expect(typeOf(backHcm)).toBe(`type.googleapis.com/${HCM}`);
      expect(list(get(backHcm, 'route_config', 'virtual_hosts', 0, 'routes'))).toHaveLength(
        list(get(hcm, 'route_config', 'virtual_hosts', 0, 'routes')).length,
      );
      expect(get(back, 'static_resources', 'clusters')).toHaveLength(clusters.size);
    });

    it('rejects a misspelled field, naming its path', () => {
      const cfg = copy();
      rawHcm(cfg).generate_request_idd = true;
      expect(check(cfg).problems).toEqual([
        'static_resources.listeners[0].filter_chains[0].filters[0].typed_config.generate_request_idd: unknown field of envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager',
      ]);
      const deep = copy();
      (get(deep, 'static_resources', 'clusters', 0, 'outlier_detection') as Obj).base_ejection_tme = '30s';
      expect(check(deep).problems).toEqual([
        'static_resources.clusters[0].outlier_detection.base_ejection_tme: unknown field of envoy.config.cluster.v3.OutlierDetection',
      ]);
    });

    it('accepts the camelCase JSON names Envoy accepts too', () => {
      const cfg = copy();
      const h = rawHcm(cfg);
      h.generateRequestId = h.generate_request_id;
      delete h.generate_request_id;
      expect(check(cfg).problems).toEqual([]);
    });

    it('rejects an @type that names no loaded message', () => {
      const cfg = copy();
      const router = list(rawHcm(cfg).http_filters)[0]!.typed_config as Obj;
      router['@type'] = 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Routr';
      expect(check(cfg).problems).toEqual([
        'static_resources.listeners[0].filter_chains[0].filters[0].typed_config.http_filters[0].typed_config.@type: unresolvable type URL type.googleapis.com/envoy.extensions.filters.http.router.v3.Routr: no such message in the loaded Envoy schema',
      ]);
    });

    it('rejects wrong value kinds, unknown enum names, two members of a oneof, deprecated fields and broken validation rules (required, min_len, duration bounds)', () => {
      const cfg = copy();
      const h = rawHcm(cfg);
      const routes = list(get(h, 'route_config', 'virtual_hosts', 0, 'routes'));
      (routes[0]!.route as Obj).timeout = 35; // a Duration is a string in JSON
      (routes[1]!.match as Obj).prefix = '/v1'; // beside path_separated_prefix
      h.codec_type = 'HTTP4';
      (get(h, 'route_config', 'virtual_hosts', 0) as Obj).cors = {}; // deprecated in v3
      const cluster = get(cfg, 'static_resources', 'clusters', 0) as Obj;
      cluster.name = ''; // min_len 1
      cluster.connect_timeout = '0s'; // gt 0s
      delete (get(cluster, 'health_checks', 0) as Obj).interval; // required
      delete (routes[2]!.route as Obj).cluster; // RouteAction needs one of cluster, weighted_clusters, ...
      delete h.stat_prefix; // absent string: "" fails min_len 1
      const problems = check(cfg).problems.join('\n');
      expect(problems).toContain('routes[0].route.timeout: expected a duration');
      expect(problems).toContain('routes[1].match.prefix: oneof path_specifier is already set by path_separated_prefix');
      expect(problems).toContain('typed_config.codec_type: "HTTP4" is not a value of');
      expect(problems).toContain('virtual_hosts[0].cors: deprecated field');
      expect(problems).toContain('static_resources.clusters[0].name: shorter than 1 character(s)');
      expect(problems).toContain('static_resources.clusters[0].health_checks[0].interval: required field');
      expect(problems).toContain('static_resources.clusters[0].connect_timeout: 0s violates gt 0s');
      expect(problems).toContain('routes[2].route: one of cluster, cluster_header, weighted_clusters');
      expect(problems).toContain('typed_config.stat_prefix: shorter than 1 character(s) (field absent');
    });
  });

  describe('the edge', () => {
    it('terminates TLS on 8443 with certificates mounted under /etc/envoy/tls/', () => {
      const listener = list(get(bootstrap, 'static_resources', 'listeners')).find(
        (l) => get(l, 'address', 'socket_address', 'port_value') === 8443,
      );
      expect(listener).toBeDefined();
      for (const chain of list(listener!.filter_chains)) {
        const tls = get(chain, 'transport_socket', 'typed_config');
        expect(typeOf(tls)).toBe('type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext');
        const certs = list(get(tls, 'common_tls_context', 'tls_certificates'));
        expect(certs.length).toBeGreaterThan(0);
        for (const cert of certs) {
          expect(get(cert, 'certificate_chain', 'filename')).toMatch(/^\/etc\/envoy\/tls\//);
          expect(get(cert, 'private_key', 'filename')).toMatch(/^\/etc\/envoy\/tls\//);
        }
      }
    });

    it('keeps the admin interface on loopback', () => {
      expect(get(bootstrap, 'admin', 'address', 'socket_address', 'address')).toBe('127.0.0.1');
    });

    it('routes /v1 and unknown paths to the gateway (timeout >= 30 s) and /mcp to mcp', () => {
      const cases: [string, string, string][] = [
        ['GET', '/v1/me', 'gateway'],
        ['POST', '/v1/search', 'gateway'],
        ['GET', '/v1', 'gateway'],
        ['OPTIONS', '/v1/no/such/path', 'gateway'],
        ['OPTIONS', '/elsewhere', 'gateway'],
        ['GET', '/', 'gateway'],
        ['GET', '/mcpx', 'gateway'],
        ['POST', '/mcp', 'mcp'],
        ['GET', '/mcp', 'mcp'],
        ['DELETE', '/mcp', 'mcp'],
      ];
      for (const [method, p, cluster] of cases) {
        const m = routeFor(hcm, { method, path: p });
        expect(get(m?.route, 'route', 'cluster'), `${method} ${p}`).toBe(cluster);
        if (cluster === 'gateway') expect(seconds(get(m?.route, 'route', 'timeout')), `${method} ${p}`).toBeGreaterThanOrEqual(30);
      }
      const mcp = routeFor(hcm, { method: 'GET', path: '/mcp' })!.route;
      const timeout = seconds(get(mcp, 'route', 'timeout'));
      // streamable HTTP: no overall deadline (0 disables it) or a long one, and an idle timeout
      expect(timeout === 0 || (timeout ?? 0) >= 300).toBe(true);
      expect(seconds(get(mcp, 'route', 'idle_timeout'))).toBeGreaterThan(0);
    });

    it('retries GET and HEAD on /v1 only for failures before processing, and never a POST or other unsafe method', () => {
      for (const method of ['GET', 'HEAD']) {
        const m = routeFor(hcm, { method, path: '/v1/me' })!;
        const policy = retryPolicyOf(m);
        expect(policy, method).toBeDefined();
        expect(new Set(String(policy!.retry_on).split(','))).toEqual(new Set(['connect-failure', 'refused-stream', 'unavailable']));
        expect(Number(get(policy, 'num_retries', 'value'))).toBeGreaterThan(0);
      }
      expect(retriedUnsafeRequests(hcm)).toEqual([]);
      // the check bites: a virtual-host retry policy would retry POST /v1/search
      const cfg = copy();
      (get(cfg, 'static_resources', 'listeners', 0, 'filter_chains', 0, 'filters', 0, 'typed_config', 'route_config', 'virtual_hosts', 0) as Obj).retry_policy =
        { retry_on: '5xx' };
      const { object, problems } = check(cfg);
      expect(problems).toEqual([]);
      expect(retriedUnsafeRequests(httpConnectionManagers(object!)[0]!)).toContain('POST /v1/search');
    });

    /** The CORS policy of each route, by route name (from the YAML: typed_per_filter_config holds Any). */
    const corsPolicies = (): Map<string, Obj | undefined> => {
      const routes = list(get(rawHcm(raw), 'route_config', 'virtual_hosts', 0, 'routes'));
      return new Map(routes.map((r) => [String(r.name), get(r, 'typed_per_filter_config', 'envoy.filters.http.cors') as Obj | undefined]));
    };

    it('answers CORS preflights on the gateway routes: the cors filter before the router, a CorsPolicy on /v1 and the fallback, none on /mcp', () => {
      expect(list(hcm.http_filters).map((f) => f.name)).toEqual(['envoy.filters.http.cors', 'envoy.filters.http.router']);
      expect(get(list(rawHcm(raw).http_filters as unknown)[0]!, 'typed_config', '@type')).toBe('type.googleapis.com/envoy.extensions.filters.http.cors.v3.Cors');
      const policies = corsPolicies();
      expect([...policies.keys()].sort()).toEqual(['fallback', 'mcp', 'v1', 'v1_safe']);
      for (const name of ['v1_safe', 'v1', 'fallback']) {
        expect(policies.get(name)?.['@type'], name).toBe('type.googleapis.com/envoy.extensions.filters.http.cors.v3.CorsPolicy');
      }
      // The MCP server answers its own preflights (MCP_ALLOWED_ORIGINS, its own methods and headers).
      expect(policies.get('mcp')).toBeUndefined();
      // A preflight of an origin not on the list goes on to the gateway, which answers it 204 without a grant.
      expect(policies.get('v1')?.forward_not_matching_preflights).toBe(true);
    });

    it("grants exactly what the gateway grants: the ConfigMap's origins and max age, the gateway's methods and headers", () => {
      const configMap = parseAllDocuments(readFileSync(path.join(repoRoot, 'deploy', 'k8s', 'configmap.yaml'), 'utf8'))
        .map((d) => d.toJS() as { kind?: string; data?: Record<string, string> })
        .find((d) => d.kind === 'ConfigMap' && d.data?.CORS_MAX_AGE_SECONDS !== undefined) as { data: Record<string, string> };
      // Read the way the gateway reads them (services/kit/config.ts).
      const gateway = loadConfig({ CORS_ALLOWED_ORIGINS: configMap.data.CORS_ALLOWED_ORIGINS, CORS_MAX_AGE_SECONDS: configMap.data.CORS_MAX_AGE_SECONDS });
      expect(gateway.CORS_ALLOWED_ORIGINS.length).toBeGreaterThan(0);
      const expected = {
        '@type': 'type.googleapis.com/envoy.extensions.filters.http.cors.v3.CorsPolicy',
        allow_origin_string_match: gateway.CORS_ALLOWED_ORIGINS.map((origin) => (origin === '*' ? { safe_regex: { regex: '.*' } } : { exact: origin })),
        allow_methods: ALLOWED_METHODS,
        allow_headers: ALLOWED_REQUEST_HEADERS,
        expose_headers: EXPOSED_HEADERS,
        max_age: String(gateway.CORS_MAX_AGE_SECONDS),
        forward_not_matching_preflights: true,
      };
      for (const [name, policy] of corsPolicies()) if (name !== 'mcp') expect(policy, name).toEqual(expected);
    });

    it('a CorsPolicy with a misspelled field or a wrong value kind does not fit the schema', () => {
      const misspelled = copy();
      const route = list(get(rawHcm(misspelled), 'route_config', 'virtual_hosts', 0, 'routes'))[0]!;
      const policy = { ...(get(route, 'typed_per_filter_config', 'envoy.filters.http.cors') as Obj) };
      (route.typed_per_filter_config as Obj)['envoy.filters.http.cors'] = { ...policy, allow_origins: ['https://x.example'] };
      expect(check(misspelled).problems.join('\n')).toMatch(/allow_origins/);
      (route.typed_per_filter_config as Obj)['envoy.filters.http.cors'] = { ...policy, max_age: 600 };
      expect(check(misspelled).problems.join('\n')).toMatch(/max_age/);
    });

    it('keeps a client X-Request-Id and generates a UUID otherwise', () => {
      expect(get(hcm, 'generate_request_id', 'value')).toBe(true);
      expect(hcm.preserve_external_request_id).toBe(true);
      const ext = get(hcm, 'request_id_extension', 'typed_config');
      expect(typeOf(ext)).toBe('type.googleapis.com/envoy.extensions.request_id.uuid.v3.UuidRequestIdConfig');
      expect(get(ext, 'pack_trace_reason', 'value')).toBe(false); // never rewrites a client's UUID
    });

    it('writes JSON access logs to stdout with request id, method, path, status, duration, upstream host and trace id', () => {
      const logs = list(hcm.access_log).map((l) => l.typed_config as Obj);
      const file = logs.find((l) => typeOf(l).endsWith('envoy.extensions.access_loggers.file.v3.FileAccessLog'));
      expect(file?.path).toBe('/dev/stdout');
      const fields = Object.values(structToJson(get(file, 'log_format', 'json_format'))).join(' ');
      for (const op of ['%REQ(X-REQUEST-ID)%', '%REQ(:METHOD)%', 'PATH)%', '%RESPONSE_CODE%', '%DURATION%', '%UPSTREAM_HOST%', '%TRACE_ID%']) {
        expect(fields).toContain(op);
      }
    });

    it('traces with OpenTelemetry over gRPC to the otel_collector cluster (HTTP/2, port 4317)', () => {
      const provider = get(hcm, 'tracing', 'provider') as Obj;
      expect(provider.name).toBe('envoy.tracers.opentelemetry');
      expect(typeOf(provider.typed_config)).toBe('type.googleapis.com/envoy.config.trace.v3.OpenTelemetryConfig');
      expect(get(provider.typed_config, 'grpc_service', 'envoy_grpc', 'cluster_name')).toBe('otel_collector');
      const collector = clusters.get('otel_collector');
      const options = get(collector, 'typed_extension_protocol_options', 'envoy.extensions.upstreams.http.v3.HttpProtocolOptions');
      expect(get(options, 'explicit_http_config', 'http2_protocol_options')).toBeDefined();
      expect(get(collector, 'load_assignment', 'endpoints', 0, 'lb_endpoints', 0, 'endpoint', 'address', 'socket_address', 'port_value')).toBe(4317);
    });

    it('defines every cluster it references, each with a connect timeout and matching load assignment', () => {
      for (const name of referencedClusters(hcm)) expect(clusters.has(name), `cluster ${name}`).toBe(true);
      for (const [name, cluster] of clusters) {
        expect(seconds(cluster.connect_timeout), name).toBeGreaterThan(0);
        expect(get(cluster, 'load_assignment', 'cluster_name'), name).toBe(name);
        // Envoy finds protocol options by key: it must name the packed message
        for (const [key, options] of Object.entries((cluster.typed_extension_protocol_options ?? {}) as Obj)) {
          expect(typeOf(options), `${name} ${key}`).toBe(`type.googleapis.com/${key}`);
        }
      }
      const address = (name: string): unknown =>
        get(clusters.get(name), 'load_assignment', 'endpoints', 0, 'lb_endpoints', 0, 'endpoint', 'address', 'socket_address');
      expect(address('gateway')).toMatchObject({ address: 'gateway.expertnet.svc.cluster.local', port_value: 8080 });
      expect(address('mcp')).toMatchObject({ address: 'mcp.expertnet.svc.cluster.local', port_value: 8081 });
    });

    it('protects gateway and mcp with circuit breakers and outlier detection', () => {
      for (const name of ['gateway', 'mcp']) {
        const cluster = clusters.get(name)!;
        const thresholds = list(get(cluster, 'circuit_breakers', 'thresholds'));
        expect(thresholds.length, name).toBeGreaterThan(0);
        for (const key of ['max_connections', 'max_pending_requests', 'max_requests', 'max_retries']) {
          expect(Number(get(thresholds[0], key, 'value')), `${name} ${key}`).toBeGreaterThan(0);
        }
        expect(Number(get(cluster, 'outlier_detection', 'consecutive_5xx', 'value')), name).toBeGreaterThan(0);
        expect(seconds(get(cluster, 'outlier_detection', 'base_ejection_time')), name).toBeGreaterThan(0);
      }
    });

    it("health-checks the gateway on its admin port's /readyz", () => {
      const gateway = clusters.get('gateway')!;
      expect(get(gateway, 'health_checks', 0, 'http_health_check', 'path')).toBe('/readyz');
      const endpoints = list(get(gateway, 'load_assignment', 'endpoints')).flatMap((e) => list(e.lb_endpoints));
      expect(endpoints.length).toBeGreaterThan(0);
      for (const e of endpoints) expect(get(e, 'endpoint', 'health_check_config', 'port_value')).toBe(9090);
    });
  });
});
