// An HTTP request's server span, remembered on the request by the HTTP instrumentation
// (telemetry-sdk.ts) so that the edge can set attributes on the root of the request's trace from
// deeper spans (Fastify hooks, MCP tool calls). A module of its own: the SDK half and the light half
// of tracing (telemetry.ts) both stand on it without importing each other.
import type { IncomingMessage } from 'node:http';
import { trace, type Attributes, type Span } from '@opentelemetry/api';

const REQUEST_SPAN = Symbol.for('expertnet.requestSpan');
type WithSpan = IncomingMessage & { [REQUEST_SPAN]?: Span };

/** Called by the HTTP instrumentation: remembers a request's server span on the request. */
export function rememberRequestSpan(span: Span, request: IncomingMessage): void {
  (request as WithSpan)[REQUEST_SPAN] = span;
}

/** Sets attributes on an HTTP request's server span (the root of its trace) and on the active span. */
export function annotateRequestSpan(request: IncomingMessage, attributes: Attributes): void {
  const root = (request as WithSpan)[REQUEST_SPAN];
  root?.setAttributes(attributes);
  const active = trace.getActiveSpan();
  if (active && active !== root) active.setAttributes(attributes);
}
