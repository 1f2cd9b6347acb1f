// What lets an operator find one request's spans (docs/OBSERVABILITY.md): its request id and, once
// the caller is known, the credential id (`key_demo`, `grant_…`) — never the secret. Both surfaces
// set them through this one function (REST from its Fastify hooks, MCP per HTTP request and per tool
// call), so the attribute names and values cannot drift apart. A no-op when tracing is off.
import type { IncomingMessage } from 'node:http';
import type { Attributes } from '@opentelemetry/api';
import type { Caller } from '../../proto/gen/expertnet/common/v1/common.js';
import { annotateRequestSpan } from '../../services/kit/http-request-span.js';
import { annotateActiveSpan, ATTR } from '../../services/kit/telemetry.js';

/** The request id, and the caller's credential id when there is a caller. */
export function requestSpanAttributes(requestId: string, caller?: Pick<Caller, 'credentialId'>): Attributes {
  return { [ATTR.requestId]: requestId, ...(caller?.credentialId ? { [ATTR.keyId]: caller.credentialId } : {}) };
}

/**
 * Sets them on the HTTP request's server span (the root of its trace) and on the active span (a
 * Fastify hook's, an MCP tool call's); without an HTTP request (MCP over stdio), on the active span.
 */
export function annotateRequest(http: IncomingMessage | undefined, requestId: string, caller?: Pick<Caller, 'credentialId'>): void {
  const attributes = requestSpanAttributes(requestId, caller);
  if (http) annotateRequestSpan(http, attributes);
  else annotateActiveSpan(attributes);
}
