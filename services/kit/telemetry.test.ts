// Tracing switches and log correlation: tracing is off unless an exporter is asked for, and a log
// line written inside a span carries that span's trace_id and span_id.
import { Writable } from 'node:stream';
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';
import { startSdk } from './telemetry-sdk.js';
import { defaultServiceName, tracingRequested } from './telemetry.js';

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  return { stream, lines };
}

describe('tracingRequested', () => {
  it('is off when no OTEL_* exporter variable is set, or when the SDK is disabled', () => {
    expect(tracingRequested({})).toBe(false);
    expect(tracingRequested({ OTEL_SERVICE_NAME: 'x' })).toBe(false);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
  });

  it('is on for an OTLP endpoint or a named exporter', () => {
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'console' })).toBe(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'otlp' })).toBe(true);
  });

  it('names each role its own service by default', () => {
    expect(defaultServiceName('identity')).toBe('expertnet-identity');
    expect(defaultServiceName(undefined)).toBe('expert-network-api');
    expect(defaultServiceName('gateway,mcp')).toBe('expert-network-api');
  });
});

describe('log correlation', () => {
  const exporter = new InMemorySpanExporter();
  const processor = new SimpleSpanProcessor(exporter);
  const sdk = startSdk({ serviceName: 'telemetry-test', spanProcessors: [processor] });
  afterAll(() => sdk.shutdown());

  it('puts the active span’s trace_id and span_id on log lines, and nothing outside a span', async () => {
    const { stream, lines } = capture();
    const log = createLogger('info', stream);
    const tracer = trace.getTracer('telemetry-test');
    log.info('outside');
    await tracer.startActiveSpan('handle', async (span) => {
      await new Promise((r) => setTimeout(r, 5)); // across an await, as in a real handler
      log.info({ requestId: 'r-1' }, 'inside');
      span.end();
    });
    await processor.forceFlush(); // the processor exports asynchronously
    const [outside, inside] = lines;
    expect(outside).not.toHaveProperty('trace_id');
    const [finished] = exporter.getFinishedSpans();
    expect(finished!.name).toBe('handle');
    expect(inside).toMatchObject({
      msg: 'inside',
      requestId: 'r-1',
      trace_id: finished!.spanContext().traceId,
      span_id: finished!.spanContext().spanId,
    });
  });
});
