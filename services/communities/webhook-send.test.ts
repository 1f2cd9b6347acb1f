// One delivery attempt against real HTTP receivers (webhook-send.ts): what each kind of receiver
// makes of it — a 2xx, a slow one past the deadline, a redirect (not followed), a huge answer (read
// up to its bound, a 1 KiB excerpt kept), bytes that are not UTF-8, a closed port — and the address
// check made as the connection is: a name resolving to loopback, and a loopback literal, refused
// unless private addresses are allowed.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXCERPT_BYTES, sendWebhook } from './webhook-send.js';

let server: Server;
let port: number;
let redirectTargetHits = 0;
const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  '/ok': (_req, res) => res.writeHead(204).end(),
  '/slow': () => undefined,
  '/redirect': (_req, res) => res.writeHead(302, { location: '/target' }).end(),
  '/target': (_req, res) => {
    redirectTargetHits++;
    res.writeHead(200).end('reached');
  },
  '/huge': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    const block = Buffer.alloc(64 * 1024, 'x');
    let sent = 0;
    const more = () => {
      while (sent < 8 * 1024 * 1024) {
        sent += block.length;
        if (!res.write(block)) return void res.once('drain', more);
      }
      res.end();
    };
    res.on('error', () => undefined);
    more();
  },
  '/latin1': (_req, res) => res.writeHead(500).end(Buffer.from([0x6f, 0x6b, 0xff, 0xfe, 0x21])),
};

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    (routes[req.url ?? ''] ?? ((_q, r) => r.writeHead(404).end()))(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const send = (path: string, options: { host?: string; allowPrivate?: boolean; timeoutMs?: number } = {}) =>
  sendWebhook({ url: `http://${options.host ?? '127.0.0.1'}:${port}${path}`, headers: { 'webhook-id': 'evt_1' }, body: '{}', allowPrivate: options.allowPrivate ?? true, ...(options.timeoutMs && { timeoutMs: options.timeoutMs }) });

describe('a webhook delivery attempt', () => {
  it('succeeds on a 2xx, with its status and latency', async () => {
    const result = await send('/ok');
    expect(result).toMatchObject({ statusCode: 204, error: null, excerpt: '' });
    expect(result.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('gives up on a receiver that does not answer by the deadline, without a status', async () => {
    const result = await send('/slow', { timeoutMs: 300 });
    expect(result.statusCode).toBeNull();
    expect(result.error).toBe('no answer within 0.3 s');
  });

  it('does not follow a redirect: the 3xx is the failed answer, and the target is never asked', async () => {
    const result = await send('/redirect');
    expect(result.statusCode).toBe(302);
    expect(result.error).toBe('answered 302; redirects are not followed (Location: /target)');
    expect(redirectTargetHits).toBe(0);
  });

  it('reads a huge answer only up to its bound and keeps the first 1 KiB', async () => {
    const result = await send('/huge');
    expect(result).toMatchObject({ statusCode: 200, error: null });
    expect(result.excerpt).toBe('x'.repeat(EXCERPT_BYTES));
  });

  it('keeps an answer that is not UTF-8 with the bad bytes replaced', async () => {
    const result = await send('/latin1');
    expect(result).toMatchObject({ statusCode: 500, error: 'answered 500', excerpt: 'ok\uFFFD\uFFFD!' });
  });

  it('reports a connection refused as an error, without a status', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const result = await sendWebhook({ url: `http://127.0.0.1:${closedPort}/`, headers: {}, body: '{}', allowPrivate: true });
    expect(result.statusCode).toBeNull();
    expect(result.error).toMatch(/ECONNREFUSED/);
  });

  it('refuses, as it connects, a name that resolves to a private address, and a private literal, unless private URLs are allowed', async () => {
    expect(await send('/ok', { host: 'localhost', allowPrivate: false })).toMatchObject({ statusCode: null, error: 'the URL must be https' });
    const byName = await sendWebhook({ url: `https://localhost:${port}/ok`, headers: {}, body: '{}', allowPrivate: false });
    expect(byName).toMatchObject({ statusCode: null, error: 'localhost is not a public address' });
    const literal = await sendWebhook({ url: `https://127.0.0.1:${port}/ok`, headers: {}, body: '{}', allowPrivate: false });
    expect(literal).toMatchObject({ statusCode: null, error: '127.0.0.1 is not a public address' });
    expect(await send('/ok', { host: 'localhost', allowPrivate: true })).toMatchObject({ statusCode: 204, error: null });
  });
});
