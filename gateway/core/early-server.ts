// A listener bound before its surface is built (deploy/launcher/runtime.ts binds the REST, MCP and
// settings ports first, so the URLs that name them are known when the services start). Until the
// surface takes it over, every request is answered at once — 503 `unavailable` in the error
// envelope, `Retry-After: 1` — instead of being held open with no answer: a readiness probe or a
// client polling during start-up gets a reply it can retry on, never a hung connection.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { requestIdFrom } from './request-id.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const starting = new WeakMap<Server, Handler>();

function answerStarting(req: IncomingMessage, res: ServerResponse): void {
  const requestId = requestIdFrom(req.headers['x-request-id']);
  const body = JSON.stringify({ error: { code: 'unavailable', message: 'the server is starting; retry shortly', request_id: requestId } });
  res.writeHead(503, { 'content-type': 'application/json; charset=utf-8', 'retry-after': '1', 'x-request-id': requestId }).end(body);
}

/** Makes a freshly bound server answer 503 until `takeOver` hands it to its surface. */
export function answerWhileStarting(server: Server): Server {
  starting.set(server, answerStarting);
  return server.on('request', answerStarting);
}

/** Hands the server's requests to `handler` from now on (the start-up answer, if any, stops). */
export function takeOver(server: Server, handler: Handler): Server {
  const before = starting.get(server);
  if (before) server.off('request', before);
  starting.delete(server);
  return server.on('request', handler);
}

/**
 * Fastify's `serverFactory` for a server bound early, and the step that hands it over: call
 * `serveWhenReady` from the app's onReady hook, so no request reaches a half-registered app.
 */
export function earlyServerFactory(server: Server): { serverFactory: (handler: Handler) => Server; serveWhenReady: () => void } {
  let appHandler: Handler | undefined;
  return {
    serverFactory: (handler) => {
      appHandler = handler;
      return server;
    },
    serveWhenReady: () => {
      if (appHandler) takeOver(server, appHandler);
    },
  };
}
