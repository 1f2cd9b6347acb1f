// The two shapes of a tool result. Success → `structuredContent` = the REST body, plus the same
// JSON as text. Failure → `isError: true` and the REST error envelope `{"error": {"code",
// "message", "request_id", ...}}` as JSON text. The envelope is deliberately not put in
// `structuredContent`: each tool declares the REST body as its output schema, and MCP clients (the
// official SDK's included) validate `structuredContent` against it even on an error result.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ApiError } from '../core/api-error.js';
import { metrics } from '../../services/kit/metrics.js';

/** The REST error envelope of an error. */
export function envelopeOf(error: ApiError, requestId: string): { error: Record<string, unknown> } {
  return { error: { code: error.code, message: error.message, request_id: requestId, ...error.extras } };
}

/** A tool's error result: an envelope (built, or replayed from an idempotency record) as JSON text. */
export function errorResult(envelope: object, meta?: Record<string, unknown>): CallToolResult {
  metrics.apiErrors.inc({ surface: 'mcp', code: String((envelope as { error?: { code?: unknown } }).error?.code ?? 'internal') });
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(envelope) }], ...(meta ? { _meta: meta } : {}) };
}

export function successResult(body: object, meta?: Record<string, unknown>): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(body, null, 2) }],
    structuredContent: body as Record<string, unknown>,
    ...(meta ? { _meta: meta } : {}),
  };
}
