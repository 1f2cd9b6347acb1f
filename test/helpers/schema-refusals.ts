// Requests that break exactly one rule of a request schema, generated from the schema itself (its
// JSON Schema, input side): a missing required field, a wrong type, a value out of range, an
// unknown enum value, a field that must never be sent, a value off its pattern or format, an
// unknown field. Each starts from a valid value and changes one field, so the refusal names it.
import { z } from 'zod';

type Json = Record<string, any>;

export interface Refusal {
  /** What the change breaks, e.g. `body.limit below its minimum`. */
  rule: string;
  value: Record<string, unknown>;
}

/** Values of the wrong JSON type for a field of this schema. */
function wrongType(s: Json): unknown {
  if (s.type === 'integer' || s.type === 'number') return 'abc';
  if (s.type === 'boolean') return 'yes';
  if (s.type === 'array') return 'not a list';
  if (s.type === 'object') return 'not an object';
  return 12345; // strings, enums, constants
}

function sampleItem(s: Json, current: unknown): unknown {
  if (Array.isArray(current) && current.length > 0) return current[0];
  return s.items?.type === 'string' ? 'p_one' : {};
}

/** One-rule breaks of a single field, as JSON values (a JSON body). */
function fieldBreaks(name: string, s: Json, current: unknown): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  if (s.not && Object.keys(s.not).length === 0) return [[`${name} sent at all`, true]];
  out.push([`${name} of the wrong type`, wrongType(s)]);
  if (s.type === 'integer') out.push([`${name} not a whole number`, 1.5]);
  if (typeof s.minimum === 'number') out.push([`${name} below its minimum`, s.minimum - 1]);
  if (typeof s.maximum === 'number') out.push([`${name} above its maximum`, s.maximum + 1]);
  if (typeof s.minLength === 'number' && s.minLength > 0) out.push([`${name} shorter than its minimum`, '']);
  if (typeof s.maxLength === 'number') out.push([`${name} longer than its maximum`, 'x'.repeat(s.maxLength + 1)]);
  if (typeof s.minItems === 'number' && s.minItems > 0) out.push([`${name} with too few items`, []]);
  if (typeof s.maxItems === 'number') out.push([`${name} with too many items`, Array(s.maxItems + 1).fill(sampleItem(s, current))]);
  if (Array.isArray(s.enum) || 'const' in s) out.push([`${name} not one of its values`, 'not_a_value']);
  if (typeof s.pattern === 'string') out.push([`${name} off its pattern`, 'bad value!']);
  if (typeof s.format === 'string') out.push([`${name} not a ${s.format}`, 'not-a-format']);
  if (s.type === 'array' && s.items?.type === 'object') out.push([`${name} with an item of the wrong type`, ['not an object']]);
  return out;
}

/**
 * Every one-rule break of a JSON body built on `valid`. A break the schema itself accepts is no rule
 * of the request (a bulk add's item of the wrong type is answered `rejected` in its place) and is
 * left out.
 */
export function bodyRefusals(schema: z.ZodType, valid: Record<string, unknown>): Refusal[] {
  return allBodyBreaks(schema, valid).filter((r) => !schema.safeParse(r.value).success);
}

function allBodyBreaks(schema: z.ZodType, valid: Record<string, unknown>): Refusal[] {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json;
  const out: Refusal[] = [];
  for (const [name, s] of Object.entries<Json>(json.properties ?? {})) {
    if ((json.required ?? []).includes(name)) {
      const { [name]: _gone, ...rest } = valid;
      out.push({ rule: `${name} missing`, value: rest });
    }
    for (const [rule, value] of fieldBreaks(name, s, valid[name])) out.push({ rule, value: { ...valid, [name]: value } });
  }
  if (json.additionalProperties === false) out.push({ rule: 'an unknown field', value: { ...valid, unknown_field: 1 } });
  return out;
}

/** Every one-rule break of path parameters or a query string: text only, as a URL carries it. */
export function textRefusals(schema: z.ZodObject, valid: Record<string, string>): Refusal[] {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json;
  const out: Refusal[] = [];
  for (const [name, s] of Object.entries<Json>(json.properties ?? {})) {
    const breaks: Array<[string, string]> = [];
    if (s.type === 'integer' || s.type === 'number') breaks.push([`${name} not a number`, 'abc']);
    if (s.type === 'integer') breaks.push([`${name} not a whole number`, '1.5']);
    if (typeof s.minimum === 'number') breaks.push([`${name} below its minimum`, String(s.minimum - 1)]);
    if (typeof s.pattern === 'string') breaks.push([`${name} off its pattern`, 'bad value!']);
    for (const [rule, value] of breaks) out.push({ rule, value: { ...valid, [name]: value } });
  }
  if (json.additionalProperties === false) out.push({ rule: 'an unknown parameter', value: { ...valid, unknown_field: '1' } });
  return out;
}
