// Builds the OpenAPI 3.1 document of the v1 REST surface from the endpoint contract
// (gateway/core/contract): the zod schemas the routes validate with are converted by zod's own
// JSON Schema generator (draft 2020-12, the dialect of OpenAPI 3.1). Request-side schemas are
// converted as their input type (defaults optional, before transforms), response-side schemas as
// their output type. The result is deterministic — same contract, same bytes — which is what the
// drift test against docs/openapi.json relies on. Every operation carries the examples recorded
// from a run of the system (examples.json, `npm run examples`).
import { z } from 'zod';
import { COMPONENTS, ENDPOINTS, type ComponentSide } from '../../core/contract/endpoints.js';
import { SCOPES, type Scope } from '../../../services/kit/scopes.js';
import { exactTypeShapes } from './typed-shapes.js';
import { RequestIdHeader, RESPONSE_HEADERS, type Endpoint, type ResponseHeaderName, type Tag } from '../../core/contract/schemas.js';
import { parameterExamples, requestBodyExamples, responseExamples } from './example-placement.js';
import type { JsonObject } from './json.js';

export type { JsonObject, JsonValue } from './json.js';

export const OPENAPI_VERSION = '3.1.0';
export const API_VERSION = '1.0.0';

const SCHEMA_REF = (name: string) => `#/components/schemas/${name}`;

const TAGS: Record<Tag, string> = {
  Identity: 'The calling key and the profile of the user behind it.',
  Communities: 'The communities a credential reaches, to find their ids.',
  Search: 'Asynchronous expert search over readable communities and public claimed profiles.',
  Members: 'Community rosters: listing, member reads, bulk add and community-scoped erasure.',
  Enrichment: 'Self-enrichment and community enrichment runs, their estimates and their progress.',
  Events: 'State changes of searches, enrichment runs and rosters, each visible where its resource is readable.',
  Meta: 'Machine-readable description of this API.',
};

/** What each scope grants, as the scope table of the specification says it (in these words). */
const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'search:read': 'Search for experts.',
  'profile:read': "Read the caller's own profile and the members of readable communities.",
  'enrich:read': 'Poll enrichment runs.',
  'self:enrich': "Enrich the caller's own profile (billable; never part of the Read preset).",
  'member:write': 'Add people to a controlled community and erase members from it.',
  'enrich:write': 'Start enrichment on the members of a controlled community.',
  'webhooks:read': 'List events, webhook endpoints and their deliveries (each event only where its resource is readable; never part of the Read preset).',
  'webhooks:write': 'Manage webhook endpoints (never part of the Read preset).',
};

const SECURITY_SCHEMES: JsonObject = {
  apiKeyBearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'API key',
    description: 'A personal API key (`svc_live_…` or `svc_test_…`) sent as `Authorization: Bearer <key>`. A key carries the scopes chosen when it was minted; each operation names the one it needs (see the `oauth2` scheme for the list).',
  },
  apiKeyHeader: {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: 'The same API key sent in the `X-API-Key` header. Sending both headers with different keys is refused with 400.',
  },
  // The scopes are declared here, on the one scheme type whose requirements may list scopes
  // (OpenAPI: scopes belong to oauth2 and openIdConnect); API keys carry the same scopes.
  oauth2: {
    type: 'oauth2',
    description:
      'A short-lived OAuth access token (a JWT) issued to tool-protocol clients by the deployment\'s identity provider, sent as `Authorization: Bearer <token>`. The issuer is per deployment: its address is the `authorization_servers` entry of the MCP server\'s `/.well-known/oauth-protected-resource` metadata, and the flow\'s URLs below are paths under that issuer. API keys carry the same scopes.',
    flows: {
      authorizationCode: {
        authorizationUrl: '/oauth/authorize',
        tokenUrl: '/oauth/token',
        scopes: Object.fromEntries(SCOPES.map((scope) => [scope, SCOPE_DESCRIPTIONS[scope]])),
      },
    },
  },
};

const DESCRIPTION = [
  'REST interface of the Expert Network: expert search, community rosters, enrichment runs and the identity of the calling key.',
  '',
  '**Authentication.** Every request, to any path, needs a credential: an API key as `Authorization: Bearer <key>` or `X-API-Key: <key>`, or an OAuth access token as `Authorization: Bearer <token>`. Without one the answer is 401, even for unknown paths. Only a CORS preflight (`OPTIONS` with `Access-Control-Request-Method`) is answered (204) without credentials. Each operation names the scope it needs (`x-required-scope`); a credential without it gets 403.',
  '',
  '**Errors.** Every non-2xx response has the body `{"error": {"code", "message", "request_id"}}`, plus `available_at` or `payer` where stated. New codes may appear within v1; handle an unknown code by its HTTP status. Every response carries `X-Request-Id`.',
  '',
  '**Rate limits.** Authenticated responses carry `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`; pace requests off `RateLimit-Remaining`. A 429 carries `Retry-After`.',
  '',
  '**Asynchronous work.** Searches and enrichment runs may answer 202 with a `Location` to poll and a `Retry-After` delay.',
  '',
  '**Versioning.** Within `/v1` only backward-compatible changes ship: new endpoints, fields, enum values and error codes. Ignore fields you do not know. Endpoints scheduled for retirement announce it with `Deprecation`, `Sunset` and `Link` headers.',
].join('\n');

/** zod's integer bounds for safe integers are implied by `type: integer` here; drop them as noise. */
const SAFE_MAX = Number.MAX_SAFE_INTEGER;

function cleanup(side: 'request' | 'response') {
  return ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
    if (jsonSchema.maximum === SAFE_MAX) delete jsonSchema.maximum;
    if (jsonSchema.minimum === -SAFE_MAX) delete jsonSchema.minimum;
    // A per-item fallback (the bulk add's rejected items) has no default to publish.
    if ('default' in jsonSchema && jsonSchema.default === undefined) delete jsonSchema.default;
    // `format` says it; zod's own long regex for it adds nothing a reader needs.
    if (jsonSchema.format === 'date-time' || jsonSchema.format === 'email') delete jsonSchema.pattern;
    // Responses may gain fields within v1 (clients must tolerate unknown fields), so response
    // objects are documented open. Requests keep `additionalProperties: false`: unknown fields are refused.
    if (side === 'response' && jsonSchema.additionalProperties === false) delete jsonSchema.additionalProperties;
  };
}

function conversionOptions(side: 'request' | 'response') {
  return {
    target: 'draft-2020-12' as const,
    io: side === 'request' ? ('input' as const) : ('output' as const),
    unrepresentable: 'throw' as const,
    override: cleanup(side),
  };
}

/** A schema converted on its own (parameters, headers): no component references. */
function convertInline(schema: z.ZodType, side: 'request' | 'response'): JsonObject {
  const json = z.toJSONSchema(schema, conversionOptions(side)) as Record<string, unknown>;
  delete json.$schema;
  return json as JsonObject;
}

/** Converts the components of one side together, so nested components become $refs. */
function convertComponents(side: 'request' | 'response'): Map<string, JsonObject> {
  const registry = z.registry<{ id: string }>();
  const included = (s: ComponentSide) => s === side || s === 'both';
  for (const component of COMPONENTS) if (included(component.side)) registry.add(component.schema, { id: component.name });
  const { schemas } = z.toJSONSchema(registry, { ...conversionOptions(side), uri: SCHEMA_REF }) as {
    schemas: Record<string, Record<string, unknown>>;
  };
  if ('__shared' in schemas) throw new Error('openapi: a schema needs a shared definition; register it in COMPONENTS');
  const out = new Map<string, JsonObject>();
  for (const [name, schema] of Object.entries(schemas)) {
    delete schema.$schema;
    delete schema.$id;
    out.set(name, schema as JsonObject);
  }
  return out;
}

function componentSchemas(): JsonObject {
  const request = convertComponents('request');
  const response = convertComponents('response');
  const all: JsonObject = {};
  for (const name of [...new Set([...request.keys(), ...response.keys()])].sort()) {
    const a = request.get(name);
    const b = response.get(name);
    if (a && b && JSON.stringify(a) !== JSON.stringify(b)) {
      throw new Error(`openapi: component ${name} differs between requests and responses; give each side its own schema`);
    }
    all[name] = (a ?? b)!;
  }
  return all;
}

function componentRef(schema: z.ZodType): JsonObject {
  const component = COMPONENTS.find((c) => c.schema === schema);
  if (!component) throw new Error('openapi: every request and response body must be a named component (contract/endpoints.ts COMPONENTS)');
  return { $ref: SCHEMA_REF(component.name) };
}

const headerKey = (name: ResponseHeaderName) => name.replace(/-/g, '');

function componentHeaders(): JsonObject {
  const headers: JsonObject = {};
  for (const [name, spec] of Object.entries(RESPONSE_HEADERS) as [ResponseHeaderName, (typeof RESPONSE_HEADERS)[ResponseHeaderName]][]) {
    headers[headerKey(name)] = {
      description: spec.description,
      ...(spec.required && { required: true }),
      schema: convertInline(spec.schema, 'response'),
    };
  }
  return headers;
}

/** `idempotency-key` → `Idempotency-Key`. */
const headerName = (key: string) => key.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());

function parametersOf(endpoint: Endpoint, location: 'path' | 'query' | 'header'): JsonObject[] {
  const object = { path: endpoint.params, query: endpoint.query, header: endpoint.headers }[location];
  if (!object) return [];
  const json = convertInline(object, 'request') as { properties?: Record<string, JsonObject>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([key, schema]) => {
    const { description, ...rest } = schema;
    const required = location === 'path' || (json.required ?? []).includes(key);
    return {
      name: location === 'header' ? headerName(key) : key,
      in: location,
      ...(typeof description === 'string' && { description }),
      required,
      schema: rest,
      ...parameterExamples(endpoint.operationId, location, key, rest),
    };
  });
}

/**
 * A request body's schema, inline: openapi-typescript makes a property with a `default` required
 * in `components/schemas` (it reads those as responses) but optional under `requestBody`, which is
 * what a default means to a client. A body component nothing else references moves here whole,
 * titled with its component name; one that others reference stays a `$ref`.
 */
function requestBodySchema(schema: z.ZodType, schemas: JsonObject, inlined: Set<string>): JsonObject {
  const ref = componentRef(schema);
  const name = String(ref.$ref).slice(SCHEMA_REF('').length);
  const referenced = Object.entries(schemas).some(([other, s]) => other !== name && JSON.stringify(s).includes(`"${ref.$ref}"`));
  if (referenced) return ref;
  inlined.add(name);
  return { title: name, ...(schemas[name] as JsonObject) };
}

function operation(endpoint: Endpoint, schemas: JsonObject, inlined: Set<string>): JsonObject {
  const scopes = endpoint.scope ? [endpoint.scope] : [];
  const scopeSentence = endpoint.scope
    ? `Required scope: \`${endpoint.scope}\`.`
    : 'Required scope: none beyond a valid credential.';
  const responses: JsonObject = {};
  for (const [status, response] of Object.entries(endpoint.responses)) {
    const codes = response.codes.length ? ` Error codes: ${response.codes.map((c) => `\`${c}\``).join(', ')}.` : '';
    const headers: JsonObject = {};
    for (const name of response.headers) headers[name] = { $ref: `#/components/headers/${headerKey(name)}` };
    responses[status] = {
      description: response.description + codes,
      headers,
      content: { 'application/json': { schema: componentRef(response.body), ...responseExamples(endpoint.operationId, Number(status)) } },
    };
  }
  return {
    tags: [endpoint.tag],
    summary: endpoint.summary,
    description: `${endpoint.description}\n\n${scopeSentence}`,
    operationId: endpoint.operationId,
    'x-required-scope': endpoint.scope,
    security: [{ apiKeyBearer: [] }, { apiKeyHeader: [] }, { oauth2: scopes }],
    parameters: [
      ...parametersOf(endpoint, 'path'),
      ...parametersOf(endpoint, 'query'),
      ...parametersOf(endpoint, 'header'),
      { $ref: '#/components/parameters/XRequestId' },
    ],
    ...(endpoint.body && {
      requestBody: {
        required: endpoint.body.required,
        content: { 'application/json': { schema: requestBodySchema(endpoint.body.schema, schemas, inlined), ...requestBodyExamples(endpoint.operationId) } },
      },
    }),
    responses,
  };
}

const METHOD_ORDER = ['GET', 'POST', 'PATCH', 'DELETE'] as const;

function paths(schemas: JsonObject, inlined: Set<string>): JsonObject {
  const byPath = new Map<string, Endpoint[]>();
  for (const endpoint of ENDPOINTS) byPath.set(endpoint.path, [...(byPath.get(endpoint.path) ?? []), endpoint]);
  const out: JsonObject = {};
  for (const [path, endpoints] of byPath) {
    const item: JsonObject = {};
    for (const method of METHOD_ORDER) {
      const endpoint = endpoints.find((e) => e.method === method);
      if (endpoint) item[method.toLowerCase()] = operation(endpoint, schemas, inlined);
    }
    out[path] = item;
  }
  return out;
}

/** The OpenAPI 3.1 document of the v1 REST surface. */
export function buildOpenApiDocument(): JsonObject {
  const requestId = RequestIdHeader;
  const { description: requestIdDescription, ...requestIdSchema } = convertInline(requestId, 'request');
  const schemas = componentSchemas();
  exactTypeShapes(schemas);
  const inlined = new Set<string>();
  const documentPaths = paths(schemas, inlined);
  for (const name of inlined) delete schemas[name];
  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: 'Expert Network API',
      version: API_VERSION,
      description: DESCRIPTION,
      contact: { name: 'The operators of this deployment' },
    },
    servers: [{ url: '/', description: 'The deployment serving this document.' }],
    tags: (Object.entries(TAGS) as [Tag, string][]).map(([name, description]) => ({ name, description })),
    paths: documentPaths,
    components: {
      schemas,
      parameters: {
        XRequestId: {
          name: 'X-Request-Id',
          in: 'header',
          required: false,
          ...(typeof requestIdDescription === 'string' && { description: requestIdDescription }),
          schema: requestIdSchema,
        },
      },
      headers: componentHeaders(),
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}

/** The document as committed in docs/openapi.json: two-space JSON with a trailing newline. */
export function serializeOpenApiDocument(document: JsonObject = buildOpenApiDocument()): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
