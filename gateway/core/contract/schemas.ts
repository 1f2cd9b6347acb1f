// The REST contract's shared pieces: identifiers, timestamps, the error envelope, the response
// headers, and the shape of an endpoint description. Routes validate with these zod schemas and
// gateway/rest/openapi builds the published OpenAPI document from the very same objects, so the
// document cannot drift from what is enforced.
import { z } from 'zod';
import { textProblem } from '../../../services/kit/request-text.js';
import { SCOPES, type Scope } from '../../../services/kit/scopes.js';

// ---------------------------------------------------------------------------------------------
// Scalars
// ---------------------------------------------------------------------------------------------

/**
 * The one text rule of every request (services/kit/request-text.ts): no NUL (U+0000), no lone
 * surrogate. Every request string carries it — `text()`, or `.check(storableText)` on a format
 * (email, URL, datetime) — and request-text.test.ts walks each request schema to keep it so.
 */
export { NUL_MESSAGE } from '../../../services/kit/request-text.js';
export const storableText = z.refine((value: unknown) => typeof value !== 'string' || textProblem(value) === undefined, {
  error: (issue) => (typeof issue.input === 'string' && textProblem(issue.input)) || 'must be text the store can keep',
  abort: true,
});

/** A request text field: a string the store can keep. Further rules (trim, length, pattern) chain on. */
export const text = () => z.string().check(storableText);

/** Record ids are opaque strings over [A-Za-z0-9_.:-], 1–128 characters (services/kit/ids.ts). */
export const ID_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;

/** An opaque record id. Each use site attaches its own description. */
export const Id = text().regex(ID_PATTERN);

export const communityId = () => Id.describe('Community id.');
export const profileId = () => Id.describe('Profile id.');

/** An RFC 3339 timestamp with an offset (the API answers in UTC, `Z`). */
export const Timestamp = z.iso.datetime({ offset: true }).check(storableText);

/** Opaque pagination cursor: pass back `next_cursor` unchanged. */
export const Cursor = text().min(1);

export const nullableString = (description: string) => z.string().nullable().describe(description);

export const ScopeName = z.enum(SCOPES);

export const Depth = z
  .enum(['quick', 'standard', 'deep'])
  .describe('Enrichment depth tier. Each enriched profile is charged the flat price of its tier.');

// ---------------------------------------------------------------------------------------------
// Error envelope
// ---------------------------------------------------------------------------------------------

/** Who pays for an operation (named in a 402). */
export const Payer = z
  .object({
    type: z.enum(['user', 'organization']).describe('Kind of billing owner.'),
    id: Id.describe('Billing owner id.'),
    name: z.string().optional().describe('Display name of the billing owner, when known.'),
  })
  .describe('The billing owner that would be charged for the operation.');

/** HTTP statuses an endpoint can fail with. */
export type ErrorStatus = 400 | 401 | 402 | 403 | 404 | 409 | 413 | 422 | 429 | 500 | 502 | 503;

/** The codes each error status carries, as docs/API-DECISIONS.md fixes them. */
export const ERROR_CODES: Record<ErrorStatus, readonly string[]> = {
  400: ['invalid_request', 'bad_request'],
  401: ['unauthorized'],
  402: ['insufficient_credits', 'coverage_required', 'community_over_quota'],
  403: ['forbidden'],
  404: ['not_found'],
  409: ['conflict'],
  413: ['payload_too_large'],
  422: ['unprocessable', 'owner_consent_required'],
  429: ['rate_limited'],
  500: ['internal'],
  502: ['search_unavailable'],
  503: ['unavailable'],
};

/** Every documented error code, once each, in the order of ERROR_CODES. */
export const DOCUMENTED_ERROR_CODES = [...new Set(Object.values(ERROR_CODES).flat())] as [string, ...string[]];

/** A documented code, or one added later within v1: `anyOf` [enum, string] lists the known ones in generated types. */
export const ErrorCode = z
  .union([z.enum(DOCUMENTED_ERROR_CODES), z.string().min(1)])
  .describe('Machine-readable error code. New codes may be added within v1: treat an unknown code by its HTTP status.');

export const ErrorEnvelope = z
  .object({
    error: z.object({
      code: ErrorCode,
      message: z.string().describe('Human-readable explanation. Do not parse it.'),
      request_id: z.string().min(1).describe('Id of the request; always equal to the `X-Request-Id` response header.'),
      available_at: Timestamp.optional().describe('On a self-enrichment cooldown (429): when the next run becomes possible.'),
      payer: Payer.optional(),
      required_scope: ScopeName.optional().describe('On a 403 for a missing scope: the scope the endpoint needs.'),
    }),
  })
  .describe('Body of every non-2xx response.');

// ---------------------------------------------------------------------------------------------
// Headers
// ---------------------------------------------------------------------------------------------

/** The request id a client may send; a usable value is echoed, anything else is replaced. */
export const RequestIdHeader = z
  .string()
  .regex(/^[\x21-\x7e]{1,128}$/)
  .describe(
    'Optional client-chosen request id (1–128 visible ASCII characters). A valid value is echoed in the `X-Request-Id` response header and in `error.request_id`; any other value is replaced by a generated id.',
  );

/** `Idempotency-Key`: 1–255 printable ASCII characters; anything else is 400 invalid_request. */
export const IdempotencyKey = text()
  .regex(/^[ -~]{1,255}$/)
  .describe(
    'Makes a retry safe: 1–255 printable ASCII characters, unique per intended operation. Repeating the key with the same body within 48 hours replays the stored response (marked `Idempotent-Replayed: true`); the same key with a different body is 422; a repeat while the first call is still running is 409 `conflict`. A 5xx outcome is not stored, so retrying it runs the operation again.',
  );

export type ResponseHeaderName =
  | 'X-Request-Id'
  | 'RateLimit-Limit'
  | 'RateLimit-Remaining'
  | 'RateLimit-Reset'
  | 'RateLimit-Policy'
  | 'RateLimit'
  | 'Retry-After'
  | 'Location'
  | 'Idempotent-Replayed'
  | 'Deprecation'
  | 'Sunset'
  | 'Link';

export interface ResponseHeaderSpec {
  description: string;
  /** Whether the header is always present on the responses that list it. */
  required: boolean;
  schema: z.ZodType;
}

export const RESPONSE_HEADERS: Record<ResponseHeaderName, ResponseHeaderSpec> = {
  'X-Request-Id': {
    description: 'Id of this request, on every response. Quote it when reporting a problem.',
    required: true,
    schema: z.string().min(1).max(128),
  },
  'RateLimit-Limit': {
    description: "Size of the key's request bucket (on authenticated responses).",
    required: false,
    schema: z.number().int().min(0),
  },
  'RateLimit-Remaining': {
    description: 'Whole requests left in the bucket right now. Pace requests off this value rather than a fixed rate.',
    required: false,
    schema: z.number().int().min(0),
  },
  'RateLimit-Reset': {
    description: 'Seconds until the bucket is full again.',
    required: false,
    schema: z.number().int().min(0),
  },
  'RateLimit-Policy': {
    description:
      'The policies limiting the key, as a list in the IETF RateLimit header fields draft syntax (`"name";q=<quota>;w=<window seconds>`).',
    required: false,
    schema: z.string(),
  },
  RateLimit: {
    description:
      'The state of each policy, as a list in the IETF RateLimit header fields draft syntax (`"name";r=<remaining>;t=<seconds to reset>`).',
    required: false,
    schema: z.string(),
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying (429, 409, 503) or before polling (202).',
    required: true,
    schema: z.number().int().min(0),
  },
  Location: {
    description: 'Path of the resource to poll for the outcome of the accepted operation.',
    required: true,
    schema: z.string().min(1),
  },
  'Idempotent-Replayed': {
    description: 'Present (`true`) when this response is a stored response replayed for a repeated `Idempotency-Key`.',
    required: false,
    schema: z.enum(['true']),
  },
  Deprecation: {
    description: 'Present when the endpoint or version is deprecated: the moment of deprecation (RFC 9745, `@` + Unix seconds).',
    required: false,
    schema: z.string(),
  },
  Sunset: {
    description: 'Present when a retirement date is scheduled: the HTTP date after which the endpoint may stop answering (RFC 8594).',
    required: false,
    schema: z.string(),
  },
  Link: {
    description: 'With `Deprecation`/`Sunset`: where the deprecation and its migration path are described.',
    required: false,
    schema: z.string(),
  },
};

const RATE_LIMIT_HEADERS: ResponseHeaderName[] = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy', 'RateLimit'];
const LIFECYCLE_HEADERS: ResponseHeaderName[] = ['Deprecation', 'Sunset', 'Link'];

// ---------------------------------------------------------------------------------------------
// Endpoint descriptions
// ---------------------------------------------------------------------------------------------

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface ResponseSpec {
  description: string;
  /** The body schema (output side). Error responses use ErrorEnvelope. */
  body: z.ZodType;
  /** Error codes this status carries on this endpoint (non-2xx only). */
  codes: readonly string[];
  headers: readonly ResponseHeaderName[];
}

export interface BodySpec<S extends z.ZodType = z.ZodType> {
  schema: S;
  /** False when an absent body means "all defaults". */
  required: boolean;
}

export type Tag = 'Identity' | 'Communities' | 'Search' | 'Members' | 'Enrichment' | 'Events' | 'Meta';

export interface Endpoint {
  method: Method;
  /** OpenAPI style, with the /v1 prefix: /v1/communities/{id}/members. */
  path: string;
  operationId: string;
  tag: Tag;
  summary: string;
  description: string;
  /** The scope the credential must hold; null: any valid credential. */
  scope: Scope | null;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: BodySpec;
  /** Validated request headers, keyed by lower-case name as Node delivers them. */
  headers?: z.ZodObject;
  /** Honors Idempotency-Key (replays carry Idempotent-Replayed). */
  idempotent: boolean;
  rateLimit: RateLimitClass;
  /** The MCP tools that call this endpoint's operation (none: REST only). */
  mcpTools: readonly string[];
  responses: Readonly<Record<number, ResponseSpec>>;
}

/**
 * How a call counts against rate limits. `credential`: once against the calling credential's
 * bucket, whatever the outcome (the one class today; REST counts every authenticated request so,
 * MCP every tool call).
 */
export type RateLimitClass = 'credential';

export interface EndpointInput {
  method: Method;
  path: string;
  operationId: string;
  tag: Tag;
  summary: string;
  description: string;
  scope: Scope | null;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: BodySpec;
  headers?: z.ZodObject;
  idempotent?: boolean;
  /** Default `credential`. */
  rateLimit?: RateLimitClass;
  mcpTools?: readonly string[];
  success: Record<number, { description: string; body: z.ZodType; headers?: ResponseHeaderName[] }>;
  /**
   * Error statuses beyond the ones every endpoint has (400, 401, 429, 500, 503, which may be
   * overridden here). `codes` defaults to every code of the status.
   */
  errors: Partial<Record<ErrorStatus, { description: string; codes?: readonly string[] }>>;
}

const COMMON_ERRORS: Partial<Record<ErrorStatus, { description: string; codes?: readonly string[] }>> = {
  400: {
    description: 'The request breaks a rule (an invalid parameter, or `Authorization` and `X-API-Key` carrying two different keys). Nothing changed.',
    codes: ['invalid_request'],
  },
  401: { description: 'Credentials are missing, malformed, unknown or revoked.' },
  429: { description: "The key's rate limit is exhausted; wait `Retry-After` seconds." },
  500: { description: 'Unexpected server error. The message is generic; the details are logged under the request id.' },
  503: { description: 'A backend service could not be reached in time. Retrying after `Retry-After` is safe for reads.' },
};

/** Status order of a response list: ascending. */
const byStatus = (a: number, b: number) => a - b;

/**
 * Completes an endpoint description: adds the errors every endpoint can answer and the response
 * headers each status carries (request id everywhere; rate-limit state once authenticated;
 * Retry-After on 202/409/429/503; Location on 202; lifecycle headers on success; the replay
 * marker on the outcomes an idempotent operation stores).
 */
/** An endpoint with the types of its own request schemas kept, so handlers get typed input. */
export type DefinedEndpoint<I extends EndpointInput> = Omit<Endpoint, 'params' | 'query' | 'body'> & {
  params: I extends { params: infer P extends z.ZodObject } ? P : undefined;
  query: I extends { query: infer Q extends z.ZodObject } ? Q : undefined;
  body: I extends { body: infer B extends BodySpec } ? B : undefined;
};

export function defineEndpoint<I extends EndpointInput>(input: I): DefinedEndpoint<I> {
  const idempotent = input.idempotent ?? false;
  const responses: Record<number, ResponseSpec> = {};
  const headersFor = (status: number, extra: readonly ResponseHeaderName[] = []): ResponseHeaderName[] => {
    const names: ResponseHeaderName[] = ['X-Request-Id'];
    if (status !== 401) names.push(...RATE_LIMIT_HEADERS);
    if (status === 202 || status === 409 || status === 429 || status === 503) names.push('Retry-After');
    if (status === 202) names.push('Location');
    if (idempotent && (status < 300 || [402, 403, 404, 422].includes(status))) names.push('Idempotent-Replayed');
    if (status < 300) names.push(...LIFECYCLE_HEADERS);
    for (const name of extra) if (!names.includes(name)) names.push(name);
    return names;
  };
  for (const [status, success] of Object.entries(input.success)) {
    const code = Number(status);
    responses[code] = { description: success.description, body: success.body, codes: [], headers: headersFor(code, success.headers) };
  }
  const errors = { ...COMMON_ERRORS, ...input.errors };
  for (const status of (Object.keys(errors).map(Number) as ErrorStatus[]).sort(byStatus)) {
    const error = errors[status]!;
    responses[status] = {
      description: error.description,
      body: ErrorEnvelope,
      codes: error.codes ?? ERROR_CODES[status],
      headers: headersFor(status),
    };
  }
  return {
    method: input.method,
    path: input.path,
    operationId: input.operationId,
    tag: input.tag,
    summary: input.summary,
    description: input.description,
    scope: input.scope,
    ...(input.params && { params: input.params }),
    ...(input.query && { query: input.query }),
    ...(input.body && { body: input.body }),
    ...(input.headers && { headers: input.headers }),
    idempotent,
    rateLimit: input.rateLimit ?? 'credential',
    mcpTools: input.mcpTools ?? [],
    responses,
  } as DefinedEndpoint<I>;
}

// ---------------------------------------------------------------------------------------------
// Shared response shapes
// ---------------------------------------------------------------------------------------------

/** Community-scoped enrichment data of one person. */
export const MemberEnrichment = z
  .object({
    depth: Depth,
    enriched_at: Timestamp.describe('When the data was produced.'),
    data: z.record(z.string(), z.unknown()).describe('The enrichment document. Its fields may grow within v1.'),
  })
  .describe('Enrichment data gathered for the person.');

/** The profile fields shared by the own-profile read, the roster and the member read. */
export const profileFields = {
  profile_id: Id.describe('Profile id.'),
  user_id: Id.nullable().describe('Id of the user who claimed the profile; null for an unclaimed placeholder.'),
  name: z.string().describe('Display name.'),
  headline: nullableString('Short professional headline.'),
  bio: nullableString('Free-text biography.'),
  organization: nullableString('Current organization.'),
  location: nullableString('Location as entered.'),
  avatar_url: nullableString('URL of the avatar image.'),
  linkedin_url: nullableString('LinkedIn profile URL.'),
  orcid: nullableString('ORCID iD.'),
  claimed: z.boolean().describe('Whether a user has claimed this profile.'),
};

export const MembershipRole = z.enum(['member', 'admin', 'owner']).describe("The person's role in the community.");

/** The document served at GET /v1/openapi.json (described loosely; it is this very document). */
export const OpenApiDocument = z
  .looseObject({
    openapi: z.string().describe('OpenAPI version of the document.'),
    info: z.looseObject({ title: z.string(), version: z.string() }),
    paths: z.record(z.string(), z.looseObject({})),
  })
  .describe('An OpenAPI 3.1 document.');
