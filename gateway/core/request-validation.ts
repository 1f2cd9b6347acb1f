// The one validation of a request, for both surfaces: its parts (path parameters, query, body) are
// parsed with the endpoint's own zod schemas — the ones the OpenAPI document is built from — in
// that order. A violation is 400 invalid_request with a precise message (part, field path and
// reason), nothing changed. REST hands over the parts as they arrived; an MCP tool maps its
// arguments onto them first, so a rule refuses the same request with the same message on both.
import type { z } from 'zod';
import { ApiError } from './api-error.js';
import type { BodySpec, Endpoint } from './contract/schemas.js';

export type RequestPart = 'body' | 'query' | 'path';

export function validated<S extends z.ZodType>(schema: S, value: unknown, part: RequestPart): z.output<S> {
  const parsed = schema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${[part, ...i.path].join('.')}: ${i.message}`);
  throw new ApiError(400, 'invalid_request', problems.join('; '));
}

/** A request's parts as they arrived, before validation. */
export interface RawRequest {
  params?: unknown;
  query?: unknown;
  body?: unknown;
}

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

/** A request's parts after validation, typed by the endpoint's schemas (undefined for a part it has no schema for). */
export interface RequestParts<E extends Endpoint> {
  params: Parsed<E['params']>;
  query: Parsed<E['query']>;
  body: E['body'] extends BodySpec<infer S> ? z.output<S> : undefined;
}

/** Validates every part the endpoint declares; a part it does not declare is not read. */
export function validateRequest<E extends Endpoint>(endpoint: E, raw: RawRequest): RequestParts<E> {
  return {
    params: endpoint.params ? validated(endpoint.params, raw.params, 'path') : undefined,
    query: endpoint.query ? validated(endpoint.query, raw.query, 'query') : undefined,
    body: endpoint.body ? validated(endpoint.body.schema, raw.body, 'body') : undefined,
  } as RequestParts<E>;
}
