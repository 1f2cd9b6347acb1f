// Distributed tracing across the multi-process topology: each role in its own process exports its
// spans over OTLP/HTTP (JSON), configured only by the standard OTEL_* variables, to a small OTLP
// receiver in this test. One GET /v1/me (and one POST /v1/search) must make ONE trace spanning the
// gateway, identity / search and billing processes — HTTP, Fastify, gRPC client/server, pg and ioredis spans — linked parent to
// child across the process boundaries, carrying the request id and key id and never the secret.
import { createServer, type Server } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchTopology, type Topology } from '../../deploy/local/launch.js';
import { bearer, request } from '../helpers/http.js';
import { liveKey } from '../helpers/keys.js';
import { redisTestPrefix } from '../helpers/redis-prefix.js';
import { freshPostgresDatabase, type FreshDatabase } from '../helpers/stores.js';

const secret = liveKey();

interface OtlpValue { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number }
interface OtlpAttribute { key: string; value: OtlpValue }
interface OtlpSpan { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes?: OtlpAttribute[] }
interface OtlpExport {
  resourceSpans: Array<{ resource: { attributes: OtlpAttribute[] }; scopeSpans: Array<{ scope: { name: string }; spans: OtlpSpan[] }> }>;
}

/** One received span, flattened with its process (resource) and instrumentation scope. */
interface Received {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  scope: string;
  service: string;
  pid: string;
  attributes: Record<string, string>;
}

const SPAN_KIND = { SERVER: 2, CLIENT: 3 } as const;

function flatten(attributes: OtlpAttribute[] = []): Record<string, string> {
  return Object.fromEntries(attributes.map((a) => [a.key, String(a.value.stringValue ?? a.value.intValue ?? a.value.boolValue ?? a.value.doubleValue ?? '')]));
}

/** A minimal OTLP/HTTP receiver (JSON encoding): POST /v1/traces. */
async function startReceiver(): Promise<{ url: string; spans: Received[]; raw: string[]; close(): Promise<void> }> {
  const spans: Received[] = [];
  const raw: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') {
        raw.push(body);
        const doc = JSON.parse(body) as OtlpExport;
        for (const rs of doc.resourceSpans ?? []) {
          const resource = flatten(rs.resource.attributes);
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              spans.push({
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId ?? '',
                name: s.name,
                kind: s.kind,
                scope: ss.scope.name,
                service: resource['service.name'] ?? '',
                pid: resource['process.pid'] ?? '',
                attributes: flatten(s.attributes),
              });
            }
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}`, spans, raw, close: () => new Promise((r) => server.close(() => r())) };
}

describe('distributed tracing across processes', () => {
  // Rate-limit keys under a prefix of this run's own, deleted afterwards.
  const redisPrefix = redisTestPrefix();
  let db: FreshDatabase;
  let topology: Topology;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    receiver = await startReceiver();
    db = await freshPostgresDatabase({ migrated: true });
    const seedFile = join(mkdtempSync(join(tmpdir(), 'en-trace-')), 'seed.json');
    writeFileSync(seedFile, JSON.stringify({
      users: [{ id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' }],
      profiles: [
        { id: 'p_ada', user: 'u_ada', public: true, name: 'Ada Lovelace', headline: 'Protein design and enzyme engineering',
          bio: 'Designs enzymes with computational protein models.', organization: 'Lab', location: 'Oslo' },
      ],
      wallets: [{ owner: { user: 'u_ada' }, balance: 42 }],
      keys: [{ id: 'k_ada', secret, owner: { user: 'u_ada' }, scopes: ['search:read'] }],
    }));
    topology = await launchTopology({
      DATABASE_URL: db.url,
      REDIS_URL: process.env.REDIS_URL!, ...redisPrefix.env,
      SEED_FILE: seedFile,
      LOG_LEVEL: 'warn',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    }, { readyTimeoutMs: 90_000 });
  }, 180_000);
  afterAll(async () => {
    await topology?.stop();
    await db?.drop();
    await redisPrefix.cleanup();
    await receiver?.close();
  });

  it('makes one GET /v1/me one trace across the gateway, identity and billing processes', async () => {
    const requestId = `req_trace_${Date.now()}`;
    const res = await request(topology.restUrl, 'GET', '/v1/me', { headers: { ...bearer(secret), 'x-request-id': requestId } });
    expect(res.status).toBe(200);

    // The edge's HTTP server span is the root: it carries the request id and the key id.
    const byPid = new Map(topology.processes.map((p) => [String(p.child.pid), p.role]));
    const wanted = ['gateway', 'identity', 'billing'];
    let trace: Received[] = [];
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      const root = receiver.spans.find((s) => s.attributes['expertnet.request_id'] === requestId && s.kind === SPAN_KIND.SERVER && !s.parentSpanId);
      trace = root ? receiver.spans.filter((s) => s.traceId === root.traceId) : [];
      const pg = new Set(trace.filter((s) => s.scope.includes('instrumentation-pg')).map((s) => byPid.get(s.pid)));
      if (pg.has('identity') && pg.has('billing') && wanted.every((r) => trace.some((s) => byPid.get(s.pid) === r))) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const root = trace.find((s) => !s.parentSpanId);
    expect(root, 'no root span with the request id').toBeDefined();
    expect(root!.service).toBe('expertnet-gateway');
    expect(root!.attributes).toMatchObject({ 'expertnet.request_id': requestId, 'expertnet.key_id': 'k_ada', 'http.route': '/v1/me' });

    // Every span the request made is in that one trace, and every parent is in it too.
    const tagged = receiver.spans.filter((s) => s.attributes['expertnet.request_id'] === requestId);
    expect(new Set(tagged.map((s) => s.traceId))).toEqual(new Set([root!.traceId]));
    const ids = new Map(trace.map((s) => [s.spanId, s]));
    expect(trace.filter((s) => s !== root && !ids.has(s.parentSpanId)).map((s) => s.name)).toEqual([]);

    // Spans from the three processes, with the instrumentations each should have produced.
    const roleOf = (s: Received) => byPid.get(s.pid);
    expect(new Set(trace.map(roleOf))).toEqual(new Set(wanted));
    const scopesOf = (role: string) => new Set(trace.filter((s) => roleOf(s) === role).map((s) => s.scope));
    expect([...scopesOf('gateway')]).toEqual(expect.arrayContaining(['@opentelemetry/instrumentation-http', '@fastify/otel', '@opentelemetry/instrumentation-grpc', '@opentelemetry/instrumentation-ioredis']));
    expect([...scopesOf('identity')]).toEqual(expect.arrayContaining(['@opentelemetry/instrumentation-grpc', '@opentelemetry/instrumentation-pg']));
    expect([...scopesOf('billing')]).toEqual(expect.arrayContaining(['@opentelemetry/instrumentation-grpc', '@opentelemetry/instrumentation-pg']));

    // Parent/child across processes: each service's gRPC server span is the child of a gateway client span.
    for (const role of ['identity', 'billing']) {
      const servers = trace.filter((s) => roleOf(s) === role && s.kind === SPAN_KIND.SERVER && s.scope.includes('grpc'));
      expect(servers.length, `${role} server spans`).toBeGreaterThan(0);
      for (const server of servers) {
        const parent = ids.get(server.parentSpanId)!;
        expect(parent.kind).toBe(SPAN_KIND.CLIENT);
        expect(roleOf(parent)).toBe('gateway');
        expect(server.attributes['expertnet.request_id']).toBe(requestId);
      }
      // …and the service's pg spans descend from its server span.
      const pg = trace.filter((s) => roleOf(s) === role && s.scope.includes('instrumentation-pg'));
      expect(pg.length, `${role} pg spans`).toBeGreaterThan(0);
      const underServer = (s: Received): boolean => !!s.parentSpanId && (servers.some((x) => x.spanId === s.parentSpanId) || underServer(ids.get(s.parentSpanId)!));
      expect(pg.every(underServer)).toBe(true);
      // Each named by its operation and table (SELECT identity.api_keys), not its prepared statement's hash.
      const queries = pg.filter((s) => s.attributes['db.statement'] ?? s.attributes['db.query.text']);
      expect(queries.length, `${role} query spans`).toBeGreaterThan(0);
      for (const s of queries) expect(s.name, `${role} pg span`).toMatch(/^(SELECT|INSERT|UPDATE|DELETE)( [a-z_]+\.[a-z_]+)?$|^[A-Z]+$/);
      expect(queries.some((s) => new RegExp(`^(SELECT|INSERT|UPDATE|DELETE) ${role}\\.[a-z_]+$`).test(s.name)), `${role}: a span naming a table of its schema`).toBe(true);
      expect(pg.map((s) => s.name).join(' ')).not.toMatch(/en_[0-9a-f]{24}/);
    }

    // The secret is nowhere in anything exported — not in this trace, not in any span of any process.
    expect(receiver.raw.join('\n')).not.toContain(secret);
    expect(receiver.raw.join('\n')).not.toContain(secret.slice(-20));
  });

  it('makes one POST /v1/search one trace across the gateway, search and billing processes, down to PostgreSQL', async () => {
    const requestId = `req_search_${Date.now()}`;
    const res = await request(topology.restUrl, 'POST', '/v1/search', {
      headers: { ...bearer(secret), 'x-request-id': requestId },
      body: { query: 'protein design', scope: 'public', wait_seconds: 20 },
    });
    expect(res.status).toBe(200);
    expect(res.body.matches.map((m: { profile_id: string }) => m.profile_id)).toContain('p_ada');

    const byPid = new Map(topology.processes.map((p) => [String(p.child.pid), p.role]));
    const roleOf = (s: Received) => byPid.get(s.pid);
    let trace: Received[] = [];
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      const root = receiver.spans.find((s) => s.attributes['expertnet.request_id'] === requestId && s.kind === SPAN_KIND.SERVER && !s.parentSpanId);
      trace = root ? receiver.spans.filter((s) => s.traceId === root.traceId) : [];
      const pg = new Set(trace.filter((s) => s.scope.includes('instrumentation-pg')).map(roleOf));
      if (pg.has('search') && pg.has('billing')) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const root = trace.find((s) => !s.parentSpanId);
    expect(root, 'no root span with the request id').toBeDefined();
    expect(root!.attributes).toMatchObject({ 'expertnet.request_id': requestId, 'expertnet.key_id': 'k_ada', 'http.route': '/v1/search' });
    const roles = new Set(trace.map(roleOf));
    for (const role of ['gateway', 'search', 'billing']) expect(roles.has(role), role).toBe(true);
    const ids = new Map(trace.map((s) => [s.spanId, s]));
    expect(trace.filter((s) => s !== root && !ids.has(s.parentSpanId)).map((s) => s.name)).toEqual([]);
    for (const role of ['search', 'billing']) {
      expect(trace.some((s) => roleOf(s) === role && s.scope.includes('instrumentation-pg')), `${role} pg spans`).toBe(true);
    }
    // The pipeline's own steps, in the search process.
    for (const step of ['search.retrieve', 'search.embed']) {
      expect(trace.some((s) => s.name === step && roleOf(s) === 'search'), step).toBe(true);
    }
    expect(receiver.raw.join('\n')).not.toContain(secret);
  });
});
