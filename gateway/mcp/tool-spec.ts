// What a tool is: its presentation (name, description, annotations, advertised input, how its result is shown)
// and the endpoint of the table it stands for, whose scope, rate-limit class, request schemas and
// idempotency the call goes through (tool-call.ts). A tool declares none of those itself: it maps
// its arguments onto the endpoint's request (path, query, body) and calls the core.
import type { IncomingMessage } from 'node:http';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { Caller } from '../../proto/gen/expertnet/common/v1/common.js';
import type { Logger } from '../../services/kit/logger.js';
import type { Endpoint } from '../core/contract/schemas.js';
import type { CallerContext, Edge } from '../core/edge.js';
import type { RateLimiter } from '../../services/kit/rate-limit/limiter.js';
import type { RawRequest, RequestParts } from '../core/request-validation.js';
import type { McpIdempotency } from './idempotency.js';
import type { Progress } from './progress.js';

/** What a tool call needs from its transport. */
export interface ToolDeps {
  edge: Edge;
  limiter: RateLimiter;
  /** The request id of a tool call (HTTP: the request's X-Request-Id or a fresh one). */
  requestId(): string;
  /** The caller of a tool call: already authenticated (HTTP) or authenticated now (stdio). May throw ApiError. */
  caller(requestId: string): Promise<Caller>;
  /** Idempotency records for the tools of idempotent endpoints; without them these tools take no idempotency key. */
  idempotency?: McpIdempotency;
  /** HTTP: the request the calls arrived in, whose server span carries the request id and key id too. */
  httpRequest?: IncomingMessage;
  logger?: Logger;
}

/** A tool's arguments as they arrived: validated only through the endpoint's schemas. */
export type ToolArgs = Record<string, unknown>;

export interface ToolSpec<E extends Endpoint = Endpoint> {
  name: string;
  title: string;
  description: string;
  annotations: ToolAnnotations;
  /** The arguments advertised in tools/list, built from the endpoint's schema pieces. */
  input: z.ZodRawShape;
  /** The endpoint this call stands for; for a tool that stands for two, the one its arguments select. */
  endpoint(args: ToolArgs): E;
  /** The arguments as the endpoint's request parts, which its schemas then validate. */
  request(args: ToolArgs): RawRequest;
  /** The core use-case; its answer is the REST body. `progress` reports to a client that asked (progress.ts). */
  run(ctx: CallerContext, input: RequestParts<E>, progress: Progress): Promise<object>;
  /** What the tool shows of the REST body, given the call's arguments (default: the body itself). */
  present?(body: object, args: ToolArgs): object;
}

/** Keeps a spec's endpoint type for its `run` while the list holds plain ToolSpecs. */
export const defineTool = <E extends Endpoint>(spec: ToolSpec<E>): ToolSpec => spec as unknown as ToolSpec;

export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** The argument that carries Idempotency-Key on the tools of idempotent endpoints. */
export const IDEMPOTENCY_ARG = 'idempotency_key';

/**
 * Whether the tool takes an idempotency key: its endpoint honours Idempotency-Key and the tool
 * changes something (a dry run over the same endpoint has nothing to make safe).
 */
export function takesIdempotencyKey(spec: ToolSpec, endpoint: Endpoint, deps: Pick<ToolDeps, 'idempotency'>): boolean {
  return endpoint.idempotent && spec.annotations.readOnlyHint !== true && deps.idempotency !== undefined;
}
