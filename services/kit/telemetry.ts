// Tracing, the light half: whether tracing is on, starting it before anything else is loaded, and
// what every process needs at run time (the log mixin, the request context, span attributes).
// The OpenTelemetry SDK and its instrumentations (telemetry-sdk.ts) are loaded only when tracing
// is on: with no OTEL_* exporter variables set nothing is patched or exported, and the cost is one
// getActiveSpan() per log line. docs/OBSERVABILITY.md.
import { register } from 'node:module';
import { trace, type Attributes, type Span } from '@opentelemetry/api';

/** Packages the ESM loader hook (import-in-the-middle) intercepts: those imported from our ESM code. */
export const HOOKED_MODULES = ['pg', 'pg-pool', 'ioredis', '@grpc/grpc-js', 'fastify'];

/**
 * Tracing is on when an exporter is asked for: OTEL_TRACES_EXPORTER names one other than `none`,
 * or an OTLP endpoint is set. OTEL_SDK_DISABLED=true turns it off whatever else is set.
 */
export function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((e) => e.trim()).filter(Boolean);
  if (exporters.length > 0) return exporters.some((e) => e !== 'none');
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/** service.name when OTEL_SERVICE_NAME is unset: one per role, so a multi-process trace names each hop. */
export function defaultServiceName(roles: string | undefined): string {
  const list = (roles ?? '').split(',').map((r) => r.trim()).filter(Boolean);
  return list.length === 1 ? `expertnet-${list[0]}` : 'expert-network-api';
}

export interface Telemetry {
  tracing: boolean;
  /** Flushes and stops exporting (a no-op when tracing is off). */
  shutdown(): Promise<void>;
}

/**
 * Starts tracing when requested. Call it before importing anything that loads pg, ioredis,
 * @grpc/grpc-js, http or fastify (deploy/launcher/main.ts imports the runtime only afterwards): the ESM
 * loader hook is registered here and only patches modules loaded after it.
 */
export async function startTelemetry(env: NodeJS.ProcessEnv = process.env): Promise<Telemetry> {
  if (!tracingRequested(env)) return { tracing: false, shutdown: async () => {} };
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, { data: { include: HOOKED_MODULES } });
  const { startSdk } = await import('./telemetry-sdk.js');
  const sdk = startSdk({ serviceName: env.OTEL_SERVICE_NAME ? undefined : defaultServiceName(env.ROLES) });
  return { tracing: true, shutdown: () => sdk.shutdown().catch(() => {}) };
}

/**
 * The pino mixin: the active span's trace_id and span_id. The request id is a binding of the
 * lines that carry it: the edge's request loggers, and what a service logs for a call (it names the
 * call's `requestId`). No AsyncLocalStorage keeps it: with one in use, Node runs a hook on every
 * promise of the process, which cost the edge about a seventh of its throughput (`npm run bench`).
 */
export function logContext(): Record<string, string> {
  const out: Record<string, string> = {};
  const span = trace.getActiveSpan();
  if (span) {
    const { traceId, spanId, traceFlags } = span.spanContext();
    out.trace_id = traceId;
    out.span_id = spanId;
    out.trace_flags = traceFlags.toString(16).padStart(2, '0');
  }
  return out;
}

// --- span attributes (an HTTP request's server span: http-request-span.ts) ------------------------

/** Sets attributes on the active span, if any (a gRPC server span inside a handler). */
export function annotateActiveSpan(attributes: Attributes): void {
  trace.getActiveSpan()?.setAttributes(attributes);
}

const stepTracer = trace.getTracer('expertnet');

/**
 * Runs one step of a pipeline (search: retrieve, fuse, embed, rerank) in its own span, a child of
 * the active span (a no-op span when tracing is off). A failure is recorded on the span and rethrown.
 */
export async function inStep<T>(name: string, attributes: Attributes, fn: (span: Span) => Promise<T>): Promise<T> {
  return stepTracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: 2 }); // ERROR
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Span attribute names this project sets. */
export const ATTR = {
  requestId: 'expertnet.request_id',
  keyId: 'expertnet.key_id',
  ownerId: 'expertnet.owner_id',
} as const;
