// One tool call, through the checks of its endpoint in REST's order: credential → rate limit (the
// endpoint's class) → scope → request validation (path, query, body with the endpoint's schemas)
// → idempotency → the core. Every refusal is the REST error envelope with REST's code and
// message, an argument named as the tool names it (test/surfaces-agree.test.ts walks the rules of
// the endpoint table to keep them equal).
// The one difference in order: REST claims an Idempotency-Key before validating the body, a tool
// validates its arguments first (a key is part of its arguments, not a header).
//
// Tracing: every call runs in its own span `mcp.tool <name>` (a child of the HTTP request's span),
// carrying the tool name, the request id and the caller's key id, as REST's spans do
// (gateway/core/request-span.ts).
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { SpanStatusCode } from '@opentelemetry/api';
import type { Caller } from '../../proto/gen/expertnet/common/v1/common.js';
import type { Logger } from '../../services/kit/logger.js';
import { inStep } from '../../services/kit/telemetry.js';
import { ApiError, fromRemote, isLoggedAsOutage } from '../core/api-error.js';
import type { RateLimitClass } from '../core/contract/schemas.js';
import type { RateLimiter } from '../../services/kit/rate-limit/limiter.js';
import { refusalMessage } from '../../services/kit/rate-limit/refusal.js';
import { annotateRequest, requestSpanAttributes } from '../core/request-span.js';
import { validateRequest } from '../core/request-validation.js';
import { requireScope } from '../core/scope-check.js';
import { inToolArguments } from './argument-errors.js';
import { NO_PROGRESS, withProgress, type Progress } from './progress.js';
import { envelopeOf, errorResult, successResult } from './tool-results.js';
import { IDEMPOTENCY_ARG, takesIdempotencyKey, type ToolArgs, type ToolDeps, type ToolSpec } from './tool-spec.js';

/** Span attributes of a tool call (OpenTelemetry's MCP semantic conventions). */
const TOOL_ATTR = { method: 'mcp.method.name', tool: 'gen_ai.tool.name', errorType: 'error.type' } as const;

/**
 * The edge's rate limit for the endpoint's class. `credential`, the one class today: one check per
 * tool call against the calling credential's bucket, in the limiter REST uses.
 */
async function checkRateLimit(limiter: RateLimiter, caller: Caller, _rateLimit: RateLimitClass, logger: Logger | undefined): Promise<void> {
  let decision;
  try {
    decision = await limiter.check({ credentialId: caller.credentialId, rateTier: caller.rateTier, requestedRate: caller.requestedRate });
  } catch (err) {
    // Redis's outage is logged once by its state (services/kit/redis.ts); anything else here.
    if (!isLoggedAsOutage(err)) logger?.error({ err }, 'rate limiter unavailable');
    throw new ApiError(503, 'unavailable', 'rate limiting is unavailable; retry shortly');
  }
  if (!decision.allowed) {
    // No headers on a tool result: Retry-After travels in the envelope.
    throw new ApiError(429, 'rate_limited', refusalMessage(decision), { retry_after_seconds: decision.retryAfterSeconds ?? 1 });
  }
}

async function runChecked(deps: ToolDeps, spec: ToolSpec, args: ToolArgs, requestId: string, progress: Progress): Promise<CallToolResult> {
  const caller = await deps.caller(requestId);
  // The HTTP request's span and this call's (the active one), as REST marks its spans.
  annotateRequest(deps.httpRequest, requestId, caller);
  const endpoint = spec.endpoint(args);
  await checkRateLimit(deps.limiter, caller, endpoint.rateLimit, deps.logger);
  requireScope(caller, endpoint.scope);
  // The key is REST's Idempotency-Key header, never part of the request's body.
  const { [IDEMPOTENCY_ARG]: key, ...requestArgs } = args;
  // A refusal names the tool's arguments (`scope`, `community_id`), not REST's parts (argument-errors.ts).
  const input = inToolArguments(() => validateRequest(endpoint, spec.request(requestArgs)));
  const ctx = { caller, requestId };
  const operation = async () => {
    const body = await withProgress(progress, spec.name, () => spec.run(ctx, input, progress));
    return spec.present ? spec.present(body, requestArgs) : body;
  };
  if (!takesIdempotencyKey(spec, endpoint, deps) || key === undefined) return successResult(await operation());
  if (typeof key !== 'string') throw new ApiError(400, 'invalid_request', 'Idempotency-Key must be a string');
  // The record is scoped to what the call acts on, as REST scopes it to the concrete path.
  const target = Object.values((input.params ?? {}) as Record<string, unknown>).map(String).join('/');
  return deps.idempotency!.run(ctx, { tool: spec.name, target, key, args: input.body }, operation);
}

export async function callTool(deps: ToolDeps, spec: ToolSpec, args: ToolArgs, progress: Progress = NO_PROGRESS): Promise<CallToolResult> {
  const requestId = deps.requestId();
  const attributes = { [TOOL_ATTR.method]: 'tools/call', [TOOL_ATTR.tool]: spec.name, ...requestSpanAttributes(requestId) };
  return inStep(`mcp.tool ${spec.name}`, attributes, async (span) => {
    try {
      return await runChecked(deps, spec, args, requestId, progress);
    } catch (error) {
      const apiError = fromRemote(error);
      if (apiError.status >= 500 && !(error instanceof ApiError) && !isLoggedAsOutage(error)) deps.logger?.error({ err: error, tool: spec.name }, 'tool failed');
      // A tool error is a result, not a throw: the span says which one, and fails only on a 5xx.
      span.setAttribute(TOOL_ATTR.errorType, apiError.code);
      if (apiError.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: apiError.message });
      return errorResult(envelopeOf(apiError, requestId));
    }
  });
}
