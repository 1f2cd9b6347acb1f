// The private admin port: /healthz (the process is alive), /readyz (what it needs to serve at all
// answers: its store and Redis; the services it calls are reported on /metrics instead, see
// dependency-probes.ts) and /metrics (Prometheus, services/kit/metrics.ts). Never on the public
// port, which answers 401 to anything unauthenticated.
//
// /readyz answers within its own bound (READINESS_TIMEOUT_MS): a check that has not answered by
// then — a frozen Redis or store — counts as failing, and the body names it (docs/OPERATIONS.md).
import { createServer, type Server } from 'node:http';
import { renderMetrics } from '../../services/kit/metrics.js';

export type ReadinessChecks = Record<string, () => Promise<boolean>>;

type Outcome = { ok: true } | { ok: false; reason: string };

/** One check, bounded: its answer, its failure, or no answer within `timeoutMs`. */
function bounded(check: () => Promise<boolean>, timeoutMs: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ ok: false, reason: `no answer within ${timeoutMs} ms` }), timeoutMs);
    check().then(
      (ok) => resolve(ok ? { ok: true } : { ok: false, reason: 'answered not ready' }),
      (err: unknown) => resolve({ ok: false, reason: err instanceof Error ? err.message : String(err) }),
    ).finally(() => clearTimeout(timer));
  });
}

export async function runChecks(
  checks: ReadinessChecks,
  timeoutMs: number,
): Promise<{ ready: boolean; checks: Record<string, 'ok' | 'failing'>; failing?: Record<string, string> }> {
  const entries = await Promise.all(Object.entries(checks).map(async ([name, check]) => [name, await bounded(check, timeoutMs)] as const));
  const failing = entries.filter((e): e is readonly [string, { ok: false; reason: string }] => !e[1].ok);
  return {
    ready: failing.length === 0,
    checks: Object.fromEntries(entries.map(([name, outcome]) => [name, outcome.ok ? 'ok' : 'failing'])),
    ...(failing.length > 0 && { failing: Object.fromEntries(failing.map(([name, outcome]) => [name, outcome.reason])) }),
  };
}

export async function startAdminServer(
  host: string,
  port: number,
  checks: ReadinessChecks,
  readinessTimeoutMs = 2000,
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET') return send(405, { error: 'GET only' });
    if (path === '/healthz') return send(200, { status: 'ok' });
    if (path === '/readyz') {
      runChecks(checks, readinessTimeoutMs).then(({ ready, ...rest }) => send(ready ? 200 : 503, { status: ready ? 'ready' : 'not ready', ...rest }));
      return;
    }
    if (path === '/metrics') {
      renderMetrics().then(
        (m) => res.writeHead(200, { 'content-type': m.contentType }).end(m.body),
        () => send(500, { error: 'metrics unavailable' }),
      );
      return;
    }
    send(404, { error: 'not found' });
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, resolve));
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
