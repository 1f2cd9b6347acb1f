// Tracing, the heavy half: the OpenTelemetry Node SDK with the instrumentations this system needs.
// Loaded by telemetry.ts only when tracing is on. Exporters, sampling and propagation come from
// the standard OTEL_* variables (OTEL_TRACES_EXPORTER, OTEL_EXPORTER_OTLP_ENDPOINT,
// OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_TRACES_SAMPLER, OTEL_BSP_SCHEDULE_DELAY, …); propagation is W3C
// trace context (and baggage), the SDK default.
import { FastifyOtelInstrumentation } from '@fastify/otel';
import { GrpcInstrumentation } from '@opentelemetry/instrumentation-grpc';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { statementSpanName } from './db/statement-span-name.js';
import { rememberRequestSpan } from './http-request-span.js';

/** Paths of the admin port, probed all the time: no spans for them. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

export function instrumentations() {
  return [
    new HttpInstrumentation({
      ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.has((req.url ?? '').split('?')[0]!),
      requestHook: (span, req) => {
        if ('headers' in req && !('setHeader' in req)) rememberRequestSpan(span, req);
      },
    }),
    new FastifyOtelInstrumentation({ registerOnInitialization: true }),
    new GrpcInstrumentation(),
    // Statements are recorded (they are parameterised); parameter values are not. A span is named
    // by its operation and table, not by its prepared statement's name (statement-span-name.ts).
    new PgInstrumentation({ enhancedDatabaseReporting: false, requestHook: (span, info) => span.updateName(statementSpanName(info.query.text)) }),
    new IORedisInstrumentation(),
  ];
}

export function startSdk(options: { serviceName?: string; spanProcessors?: SpanProcessor[] }): NodeSDK {
  // Metrics are Prometheus on the admin port (metrics.ts) and logs are pino lines on stdout: the
  // SDK exports neither unless asked to explicitly (its own default would be OTLP for both).
  process.env.OTEL_METRICS_EXPORTER ??= 'none';
  process.env.OTEL_LOGS_EXPORTER ??= 'none';
  const sdk = new NodeSDK({
    ...(options.serviceName ? { serviceName: options.serviceName } : {}),
    ...(options.spanProcessors ? { spanProcessors: options.spanProcessors } : {}),
    instrumentations: instrumentations(),
  });
  sdk.start();
  return sdk;
}
