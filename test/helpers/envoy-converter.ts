// The strict walker: proto3 JSON (as Envoy reads YAML) -> protobufjs object, collecting problems,
// each with its path: unknown fields, values of the wrong JSON kind, unknown enum names, two members
// of one oneof, deprecated fields, an `@type` that names no loaded message, and a subset of the
// protoc-gen-validate rules Envoy enforces.
import protobuf from 'protobufjs';

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

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
