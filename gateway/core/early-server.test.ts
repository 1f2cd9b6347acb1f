// A port bound before its surface is built answers at once while the system starts — 503 in the
// envelope, Retry-After 1 — and serves the surface's routes once it has taken the port over (the
// search-quality runner and readiness probes poll from the moment a port accepts connections).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { answerWhileStarting, earlyServerFactory, takeOver } from './early-server.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

async function boundEarly(): Promise<{ server: Server; url: string }> {
  const server = answerWhileStarting(createServer());
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const get = async (url: string, headers: Record<string, string> = {}) => {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(5000) });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> };
};

describe('a server bound before its surface', () => {
  it('answers 503 unavailable with Retry-After and the request id while starting', async () => {
    const { url } = await boundEarly();
    const answer = await get(`${url}/v1/me`, { 'x-request-id': 'req-probe-1' });
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(answer.headers.get('x-request-id')).toBe('req-probe-1');
    expect(answer.body).toEqual({ error: { code: 'unavailable', message: 'the server is starting; retry shortly', request_id: 'req-probe-1' } });
  });

  it('hands every request to the surface once taken over, and the start-up answer stops', async () => {
    const { server, url } = await boundEarly();
    takeOver(server, (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
    expect(await get(url)).toMatchObject({ status: 200, body: { ok: true } });
    expect(server.listenerCount('request')).toBe(1);
  });

  it('gives a Fastify app the port only when it is ready: 503 before, its routes after', async () => {
    const { server, url } = await boundEarly();
    const early = earlyServerFactory(server);
    const app = Fastify({ serverFactory: early.serverFactory });
    app.addHook('onReady', async () => early.serveWhenReady());
    app.get('/v1/me', async () => ({ id: 'me' }));
    expect((await get(`${url}/v1/me`)).status).toBe(503);
    await app.ready();
    expect(await get(`${url}/v1/me`)).toMatchObject({ status: 200, body: { id: 'me' } });
  });
});
