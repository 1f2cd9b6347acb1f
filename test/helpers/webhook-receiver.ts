// A real HTTP webhook receiver for the delivery suites (node:http on port 0): it keeps every request
// (path, headers, raw body) and answers by the path's behaviour — `/ok…` 200, `/flaky…` 500 to the
// first three requests of each webhook-id then 200, `/gone…` 410, `/redirect…` 302 to `/ok`,
// `/huge…` 200 with megabytes, `/binary…` 200 with NUL and invalid UTF-8 bytes, `/hold…` never
// (until `answerHeld`).
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url(path: string): string;
  received: Received[];
  /** Requests to this path prefix, in arrival order. */
  at(prefix: string): Received[];
  /** From now on `/hold…` answers 200, and the requests held so far are answered 200. */
  answerHeld(): void;
  close(): Promise<void>;
}

export const HUGE_BYTES = 4 * 1024 * 1024;

function huge(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.on('error', () => undefined);
  const block = Buffer.alloc(64 * 1024, 'y');
  let sent = 0;
  const more = () => {
    while (sent < HUGE_BYTES) {
      sent += block.length;
      if (!res.write(block)) return void res.once('drain', more);
    }
    res.end();
  };
  more();
}

export async function startWebhookReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const held: ServerResponse[] = [];
  let holding = true;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const entry = { path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(entry);
      const id = String(req.headers['webhook-id']);
      if (path.startsWith('/flaky')) {
        const seen = received.filter((r) => r.path === path && r.headers['webhook-id'] === id).length;
        res.writeHead(seen <= 3 ? 500 : 200).end(seen <= 3 ? 'not yet' : 'ok');
      } else if (path.startsWith('/gone')) res.writeHead(410).end('gone');
      else if (path.startsWith('/redirect')) res.writeHead(302, { location: '/ok/redirected' }).end();
      else if (path.startsWith('/huge')) huge(res);
      else if (path.startsWith('/binary')) res.writeHead(200).end(Buffer.from([0x6f, 0x00, 0x6b, 0xff, 0xd8, 0x00]));
      else if (path.startsWith('/hold') && holding) held.push(res);
      else res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received,
    at: (prefix) => received.filter((r) => r.path.startsWith(prefix)),
    answerHeld() {
      holding = false;
      for (const res of held.splice(0)) if (!res.destroyed) res.writeHead(200).end('ok');
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
