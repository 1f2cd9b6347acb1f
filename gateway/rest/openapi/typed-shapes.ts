// Rewrites of converted JSON Schemas that keep their meaning (the same instances validate) but give
// type generators such as openapi-typescript an exact type instead of `unknown` or a too-loose one:
//
// - An `anyOf` beside `properties` whose branches only add requirements (`required: [...]`, or a
//   narrower enum of one property) is rendered by openapi-typescript as a union with the bare
//   branches — `{…} | unknown` — which TypeScript collapses to `unknown`. Wrapped in `allOf` it
//   becomes an intersection, `{…} & ({ email: unknown } | { name: unknown })`, and each branch
//   names the properties it requires (with the empty schema: the parent property keeps the type)
//   so that the intersection makes exactly those properties required.
// - A property whose schema is `not: {}` (a field the API refuses whatever its value) types as
//   `unknown`, so a client could send it. The object is closed (`additionalProperties: false`), so
//   dropping the property refuses it just the same; its description moves to the object's.

import type { JsonObject, JsonValue } from './json.js';

export type { JsonObject, JsonValue };

const isObject = (v: JsonValue | undefined): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A branch that only narrows: `required`, and `properties` of the parent (no type of its own). */
function onlyNarrows(branch: JsonValue, parentProperties: JsonObject): branch is JsonObject {
  if (!isObject(branch)) return false;
  if (Object.keys(branch).some((k) => k !== 'required' && k !== 'properties')) return false;
  const props = isObject(branch.properties) ? Object.keys(branch.properties) : [];
  const required = Array.isArray(branch.required) ? (branch.required as string[]) : [];
  return [...props, ...required].every((name) => name in parentProperties);
}

function requirementsAsIntersection(schema: JsonObject): void {
  const properties = schema.properties;
  const anyOf = schema.anyOf;
  if (!isObject(properties) || !Array.isArray(anyOf) || !anyOf.every((b) => onlyNarrows(b, properties))) return;
  const branches = (anyOf as JsonObject[]).map((branch) => {
    const required = (branch.required ?? []) as string[];
    const named: JsonObject = Object.fromEntries(required.map((name) => [name, {}]));
    return { ...branch, properties: { ...named, ...((branch.properties ?? {}) as JsonObject) } };
  });
  delete schema.anyOf;
  schema.allOf = [...((schema.allOf ?? []) as JsonValue[]), { anyOf: branches }];
}

function isNever(v: JsonValue): boolean {
  return isObject(v) && isObject(v.not) && Object.keys(v.not).length === 0;
}

function refusedPropertiesIntoDescription(schema: JsonObject): void {
  const properties = schema.properties;
  if (!isObject(properties) || schema.additionalProperties !== false) return;
  const notes: string[] = [];
  for (const [name, property] of Object.entries(properties)) {
    if (!isNever(property)) continue;
    const why = isObject(property) && typeof property.description === 'string' ? ` ${property.description}` : '';
    notes.push(`\`${name}\`:${why}`);
    delete properties[name];
  }
  if (notes.length) schema.description = [schema.description, ...notes].filter((s) => typeof s === 'string').join(' ');
}

/** Applies both rewrites to a schema and every schema nested in it, in place. */
export function exactTypeShapes(value: JsonValue): void {
  if (Array.isArray(value)) {
    for (const item of value) exactTypeShapes(item);
    return;
  }
  if (!isObject(value)) return;
  for (const child of Object.values(value)) exactTypeShapes(child);
  refusedPropertiesIntoDescription(value);
  requirementsAsIntersection(value);
}
