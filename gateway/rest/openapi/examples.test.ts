// The recorded examples (examples.json, `npm run examples`) against the endpoint table: every
// operation has at least one, naming the ones that have none; none names an operation or status the
// table does not have; each request passes the schemas the route validates with and each answer the
// schema of its status; and the built document carries them where a reader looks for them.
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { ENDPOINTS } from '../../core/contract/endpoints.js';
import { buildOpenApiDocument, type JsonObject } from './build-openapi.js';
import { EXAMPLES } from './examples.js';

const HOW = 'add a recipe in deploy/examples/recipes.ts and run `npm run examples`';

function problems(schema: z.ZodType | undefined, value: unknown, what: string): string[] {
  if (!schema) return value === undefined ? [] : [`${what}: the endpoint takes none, the example sends one`];
  const result = schema.safeParse(value ?? {});
  return result.success ? [] : result.error.issues.map((i) => `${what}.${i.path.join('.')}: ${i.message}`);
}

describe('OpenAPI examples (recorded from a run over the demo data)', () => {
  it('exist for every operation of the endpoint table', () => {
    const missing = ENDPOINTS.filter((e) => !(EXAMPLES[e.operationId]?.length)).map((e) => `${e.operationId} (${e.method} ${e.path})`);
    expect(missing, `operations without examples — ${HOW}: ${missing.join(', ')}`).toEqual([]);
  });

  it('show a success of every operation', () => {
    const missing = ENDPOINTS.filter((e) => !EXAMPLES[e.operationId]?.some((x) => x.response.status < 300)).map((e) => e.operationId);
    expect(missing, `operations without a 2xx example — ${HOW}`).toEqual([]);
  });

  it('name only operations and statuses the endpoint table has', () => {
    const operations = new Set(ENDPOINTS.map((e) => e.operationId));
    expect(Object.keys(EXAMPLES).filter((op) => !operations.has(op)), `examples of unknown operations — run \`npm run examples\``).toEqual([]);
    for (const endpoint of ENDPOINTS) {
      for (const x of EXAMPLES[endpoint.operationId] ?? []) {
        expect(Object.keys(endpoint.responses), `${endpoint.operationId}/${x.name}`).toContain(String(x.response.status));
      }
      const names = (EXAMPLES[endpoint.operationId] ?? []).map((x) => x.name);
      expect(new Set(names).size, endpoint.operationId).toBe(names.length);
    }
  });

  it('send requests the route accepts and show answers of the documented schema', () => {
    const found: string[] = [];
    for (const endpoint of ENDPOINTS) {
      for (const x of EXAMPLES[endpoint.operationId] ?? []) {
        const label = `${endpoint.operationId}/${x.name}`;
        const request = [
          ...problems(endpoint.params, x.request.params, `${label} params`),
          ...problems(endpoint.query, x.request.query, `${label} query`),
          ...problems(endpoint.headers, x.request.headers, `${label} headers`),
          ...problems(endpoint.body?.schema, x.request.body, `${label} body`),
        ];
        // A 400 example shows a refusal: its request must break the very rule the schema states.
        if (x.response.status === 400) expect(request, `${label}: answered 400, yet its request passes the schemas`).not.toEqual([]);
        else found.push(...request);
        found.push(...problems(endpoint.responses[x.response.status]?.body, x.response.body, `${label} response ${x.response.status}`));
        if (x.response.status === 202) expect(x.response.location, label).toMatch(/^\/v1\//);
      }
    }
    expect(found).toEqual([]);
  });

  it('put each example on the parameters, request body and response of its operation in the document', () => {
    const paths = buildOpenApiDocument().paths as Record<string, Record<string, JsonObject & { parameters: JsonObject[] }>>;
    for (const endpoint of ENDPOINTS) {
      const op = paths[endpoint.path]![endpoint.method.toLowerCase()]!;
      for (const x of EXAMPLES[endpoint.operationId] ?? []) {
        const label = `${endpoint.operationId}/${x.name}`;
        const response = (op.responses as Record<string, JsonObject>)[String(x.response.status)]!;
        expect(response, label).toMatchObject({ content: { 'application/json': { examples: { [x.name]: { summary: x.summary, value: x.response.body } } } } });
        if (x.request.body !== undefined && x.response.status !== 400) {
          expect(op.requestBody, label).toMatchObject({ content: { 'application/json': { examples: { [x.name]: { value: x.request.body } } } } });
        }
        for (const [name, value] of x.response.status === 400 ? [] : Object.entries({ ...x.request.params, ...x.request.query })) {
          const parameter = op.parameters.find((p) => p.name === name);
          expect(String((parameter?.examples as Record<string, { value: unknown }> | undefined)?.[x.name]?.value), `${label} ${name}`).toBe(value);
        }
      }
    }
  });
});
