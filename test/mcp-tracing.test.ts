// MCP spans carry what REST spans carry (docs/OBSERVABILITY.md): the real system traced in this
// process with an in-memory exporter, and the MCP server the runtime starts, driven by the SDK's
// client. One tool call must yield an HTTP server span and an `mcp.tool <name>` span in one trace,
// both carrying the request id (the X-Request-Id sent, or the error envelope's request_id) and the
// key id, with the services' spans beneath the tool's; and no span attribute may hold the secret.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { startSdk } from '../services/kit/telemetry-sdk.js';
import { bearer } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import type { TestSystem } from './helpers/test-system.js';

// Tracing starts before the system is loaded: the instrumentations patch modules as they load.
const exporter = new InMemorySpanExporter();
const processor = new SimpleSpanProcessor(exporter);
const sdk = startSdk({ serviceName: 'mcp-tracing-test', spanProcessors: [processor] });
const { startTestSystem } = await import('./helpers/test-system.js');

const SPAN_KIND_SERVER = 1; // @opentelemetry/api SpanKind.SERVER

const secrets = { ada: liveKey(), searcher: liveKey() };
const seed: SeedInput = {
  users: [{ id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' }],
  keys: [
    { id: 'k_ada', secret: secrets.ada, owner: { user: 'u_ada' }, scopes: ['profile:read'], requested_rate: 6000 },
    { id: 'k_searcher', secret: secrets.searcher, owner: { user: 'u_ada' }, scopes: ['search:read'], requested_rate: 6000 },
  ],
};

describe('MCP tool calls are traced with the request id and the key id', () => {
  let sys: TestSystem;
  const clients: Client[] = [];

  beforeAll(async () => {
    sys = await startTestSystem({ seed });
  });
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await sys?.stop();
    await sdk.shutdown();
  });

  async function callTool(secret: string, name: string, headers: Record<string, string> = {}): Promise<CallToolResult> {
    const client = new Client({ name: 'mcp-tracing-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(sys.mcpUrl!), { requestInit: { headers: { ...bearer(secret), ...headers } } }));
    clients.push(client);
    return (await client.callTool({ name, arguments: {} })) as CallToolResult;
  }

  /** The finished spans of a tool call's trace, once its HTTP server span has ended. */
  async function traceOfTool(tool: string, requestId: string): Promise<{ toolSpan: ReadableSpan; spans: ReadableSpan[] }> {
    for (let attempt = 0; attempt < 100; attempt++) {
      await processor.forceFlush();
      const finished = exporter.getFinishedSpans();
      const toolSpan = finished.find((s) => s.name === `mcp.tool ${tool}` && s.attributes['expertnet.request_id'] === requestId);
      const spans = toolSpan ? finished.filter((s) => s.spanContext().traceId === toolSpan.spanContext().traceId) : [];
      if (toolSpan && spans.some((s) => s.kind === SPAN_KIND_SERVER && !s.parentSpanContext)) return { toolSpan, spans };
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`no finished trace for mcp.tool ${tool} with ${requestId}`);
  }

  it('marks the HTTP server span and the tool span with the X-Request-Id sent and the key id', async () => {
    const requestId = `req_mcp_trace_${Date.now()}`;
    const result = await callTool(secrets.ada, 'whoami', { 'x-request-id': requestId });
    expect(result.isError ?? false).toBe(false);

    const { toolSpan, spans } = await traceOfTool('whoami', requestId);
    expect(toolSpan.attributes).toMatchObject({
      'expertnet.request_id': requestId,
      'expertnet.key_id': 'k_ada',
      'gen_ai.tool.name': 'whoami',
      'mcp.method.name': 'tools/call',
    });
    const root = spans.find((s) => s.kind === SPAN_KIND_SERVER && !s.parentSpanContext)!;
    expect(root.attributes).toMatchObject({ 'expertnet.request_id': requestId, 'expertnet.key_id': 'k_ada', 'http.request.method': 'POST' });
    // The tool span sits in the HTTP request's trace, and the services' calls it makes sit under it.
    const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
    const ancestors = (s: ReadableSpan): ReadableSpan[] => {
      const parent = s.parentSpanContext ? byId.get(s.parentSpanContext.spanId) : undefined;
      return parent ? [parent, ...ancestors(parent)] : [];
    };
    expect(ancestors(toolSpan)).toContain(root);
    const grpcUnderTool = spans.filter((s) => s.name.includes('IdentityService/DescribeCredential') && ancestors(s).includes(toolSpan));
    expect(grpcUnderTool.length).toBeGreaterThan(0);
  });

  it('carries the request id of a tool error envelope, and the error code', async () => {
    const result = await callTool(secrets.searcher, 'get_my_profile');
    expect(result.isError).toBe(true);
    const envelope = JSON.parse((result.content[0] as { text: string }).text) as { error: { code: string; request_id: string } };
    expect(envelope.error.code).toBe('forbidden');

    const { toolSpan, spans } = await traceOfTool('get_my_profile', envelope.error.request_id);
    expect(toolSpan.attributes).toMatchObject({ 'expertnet.key_id': 'k_searcher', 'error.type': 'forbidden' });
    const root = spans.find((s) => s.kind === SPAN_KIND_SERVER && !s.parentSpanContext)!;
    expect(root.attributes).toMatchObject({ 'expertnet.request_id': envelope.error.request_id, 'expertnet.key_id': 'k_searcher' });
  });

  it('never puts a secret in a span attribute', async () => {
    await processor.forceFlush();
    const spans = exporter.getFinishedSpans();
    expect(spans.length).toBeGreaterThan(0);
    for (const span of spans) {
      const attributes = JSON.stringify(span.attributes);
      for (const secret of Object.values(secrets)) expect(attributes, span.name).not.toContain(secret);
    }
  });
});
