// Where the recorded exchanges (examples.ts) go in an operation: each exchange becomes a named
// Example Object on every parameter it sets, on the request body it sent and on the response of
// the status it got — so a reader sees, under one name, the whole request and what came back.
import type { JsonObject, JsonValue } from './json.js';
import { examplesOf, type ExampleExchange } from './examples.js';

type Part = (exchange: ExampleExchange) => unknown;

/** `{ name: { summary, value } }` over the exchanges that carry the part; undefined when none does. */
function exampleMap(exchanges: readonly ExampleExchange[], part: Part): JsonObject | undefined {
  const map: JsonObject = {};
  for (const exchange of exchanges) {
    const value = part(exchange);
    if (value !== undefined) map[exchange.name] = { summary: exchange.summary, value: value as JsonValue };
  }
  return Object.keys(map).length > 0 ? map : undefined;
}

// A request refused as invalid (400) breaks its schema on purpose: the document shows its answer
// only, as a request example must be valid against the request's schema.
const valid = (part: Part): Part => (e) => (e.response.status === 400 ? undefined : part(e));

const REQUEST_PART = {
  path: (key: string): Part => valid((e) => e.request.params?.[key]),
  query: (key: string): Part => valid((e) => e.request.query?.[key]),
  header: (key: string): Part => valid((e) => e.request.headers?.[key]),
  body: valid((e) => e.request.body),
};

/** A query value as the parameter's schema types it (the recording keeps the text that was sent). */
function typed(value: unknown, type: JsonValue | undefined): unknown {
  if (typeof value !== 'string') return value;
  if ((type === 'integer' || type === 'number') && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

/** The examples of one parameter (`key` as the contract names it: lower-case for headers). */
export function parameterExamples(operationId: string, location: 'path' | 'query' | 'header', key: string, schema: JsonObject): JsonObject {
  const part = REQUEST_PART[location](key);
  const examples = exampleMap(examplesOf(operationId), (e) => typed(part(e), schema.type));
  return examples ? { examples } : {};
}

export function requestBodyExamples(operationId: string): JsonObject {
  const examples = exampleMap(examplesOf(operationId), REQUEST_PART.body);
  return examples ? { examples } : {};
}

export function responseExamples(operationId: string, status: number): JsonObject {
  const examples = exampleMap(examplesOf(operationId), (e) => (e.response.status === status ? e.response.body : undefined));
  return examples ? { examples } : {};
}
