// The private admin port: /healthz (the process is alive), /readyz (its stores and the services
// it depends on answer) and /metrics (Prometheus, services/kit/metrics.ts). Never on the public port, which answers 401 to anything unauthenticated.
import { createServer, type Server } from 'node:http';
import { renderMetrics } from '../../services/kit/metrics.js';

export type ReadinessChecks = Record<string, () => Promise<boolean>>;

async function runChecks(checks: ReadinessChecks): Promise<{ ready: boolean; checks: Record<string, 'ok' | 'failing'> }> {
  const entries = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => [name, await check().catch(() => false)] as const),
  );
  return {
    ready: entries.every(([, ok]) => ok),
    checks: Object.fromEntries(entries.map(([name, ok]) => [name, ok ? 'ok' : 'failing'])),
  };
}

export async function startAdminServer(host: string, port: number, checks: ReadinessChecks): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET') return send(405, { error: 'GET only' });
    if (path === '/healthz') return send(200, { status: 'ok' });
    if (path === '/readyz') {
      runChecks(checks).then((r) => send(r.ready ? 200 : 503, { status: r.ready ? 'ready' : 'not ready', checks: r.checks }));
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
