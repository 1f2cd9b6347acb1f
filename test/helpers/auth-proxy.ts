// A test-only HTTP forwarding proxy that adds a credential. The MCP conformance runner
// (@modelcontextprotocol/conformance) connects without any `Authorization` header, and the MCP
// server refuses every unauthenticated request with 401 (it stays fail-closed). The test puts this
// proxy in front of the real endpoint: each request is forwarded unchanged (method, path, query,
// headers, Host and Origin included, body streamed) with `Authorization: Bearer <key>` added when
// the request carries none; the response (status, headers, body) is streamed back as it arrives,
// so SSE responses are not buffered.
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface AuthProxy {
  /** Base URL of the proxy, e.g. http://127.0.0.1:40123 */
  url: string;
  /** Requests forwarded so far. */
  forwarded(): number;
  close(): Promise<void>;
}

/** Starts a proxy on 127.0.0.1 (port picked by the OS) that forwards to `target`'s origin. */
export async function startAuthProxy(target: string, authorization: string): Promise<AuthProxy> {
  const upstream = new URL(target);
  let count = 0;
  const server: Server = createServer((req, res) => {
    count++;
    const headers: IncomingHttpHeaders = { ...req.headers };
    headers.authorization ??= authorization;
    const out = httpRequest(
      { protocol: upstream.protocol, hostname: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.headers);
        res.flushHeaders();
        answer.pipe(res);
        answer.on('error', () => res.destroy());
      },
    );
    out.on('error', (error) => {
      if (res.headersSent) return void res.destroy();
      res.writeHead(502, { 'content-type': 'text/plain' }).end(`auth proxy: ${error.message}`);
    });
    // A client that goes away (an SSE stream it stops reading) ends the upstream request too.
    res.on('close', () => out.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    forwarded: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
