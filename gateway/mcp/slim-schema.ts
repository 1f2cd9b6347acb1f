// The input schemas tools/list shows are read by a model, whose context they fill: every byte is paid
// for on every conversation. They are built from the contract's zod schemas and then slimmed of what
// teaches a model nothing. Nothing here weakens a check: a tool's arguments are still validated
// with the endpoint's full zod schemas (tool-call.ts), and its results are the REST bodies.
//
//   input   A string with a `format` (email, uri, date-time) loses its `pattern`: the format says
//           it, and the email expression alone is ~120 characters. Other patterns longer than
//           PATTERN_MAX go too (the field's description says the shape in words).
//           Integer bounds at ±2^53−1 (zod's "any safe integer") are no bound and go.
//           A description inside a described wrapper goes: a nullable or optional one's `anyOf`
//           members repeat it, and an array's `items` say again what the array's description says.

/** Patterns up to this length stay (an id's `^[A-Za-z0-9_.:-]{1,128}$` teaches its shape). */
export const PATTERN_MAX = 40;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** zod's bounds of an unbounded integer: the safe-integer range, which no caller needs to be told. */
const isSafeIntegerBound = (value: unknown) => value === Number.MAX_SAFE_INTEGER || value === Number.MIN_SAFE_INTEGER;

/** Keys whose values are schemas, or maps or lists of schemas, walked in both modes. */
const SCHEMA_MAPS = ['properties', 'patternProperties', 'definitions', '$defs'];
const SCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const SCHEMA_ONE = ['additionalProperties', 'not'];

type Slim = (schema: Json, parentDescription: string | undefined) => Json;

/** Slims every schema of the tree, a node before its children. */
function walk(node: unknown, slim: Slim, parentDescription?: string): unknown {
  if (!isObject(node)) return node;
  const out = slim({ ...node }, parentDescription);
  const description = typeof out.description === 'string' ? out.description : undefined;
  for (const key of SCHEMA_MAPS) {
    if (isObject(out[key])) out[key] = Object.fromEntries(Object.entries(out[key]).map(([name, child]) => [name, walk(child, slim)]));
  }
  for (const key of SCHEMA_LISTS) {
    // A wrapper's members repeat its description (zod puts it on both); the members' copies go.
    if (Array.isArray(out[key])) out[key] = out[key].map((child: unknown) => walk(child, slim, description));
  }
  if (isObject(out.items)) out.items = walk(out.items, slim, description);
  for (const key of SCHEMA_ONE) if (isObject(out[key])) out[key] = walk(out[key], slim);
  return out;
}

/** An input schema as tools/list shows it. */
export function slimInputSchema(schema: Json): Json {
  return walk(schema, (node, parentDescription) => {
    if (typeof node.pattern === 'string' && (typeof node.format === 'string' || node.pattern.length > PATTERN_MAX)) delete node.pattern;
    if (isSafeIntegerBound(node.maximum)) delete node.maximum;
    if (isSafeIntegerBound(node.minimum)) delete node.minimum;
    if (parentDescription !== undefined && node.description !== undefined) delete node.description;
    return node;
  }) as Json;
}
