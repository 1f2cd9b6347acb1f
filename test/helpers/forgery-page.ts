// A hostile page on another port of the same host as the settings app, for cross-site request
// forgery tests in a browser: it plants cookies for the app's host with document.cookie (cookies
// ignore ports, so they reach the app), then auto-posts a form to the app. Served on 127.0.0.1 at a
// port the OS picks.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { escapeHtml } from '../../gateway/settings/html.js';

export interface Forgery {
  /** Where the form posts: a full URL of the app. */
  action: string;
  fields: Record<string, string>;
  /** Cookies planted first, each for `path` (the form's path, so it is sent before the app's own). */
  plant: { name: string; value: string; path: string }[];
}

export interface ForgeryServer {
  /** The URL of a page that carries out `forgery` as soon as it loads. */
  pageFor(forgery: Forgery): string;
  close(): Promise<void>;
}

function pageOf({ action, fields, plant }: Forgery): string {
  const inputs = Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`).join('');
  const cookies = plant.map((c) => `document.cookie = ${JSON.stringify(`${c.name}=${c.value}; path=${c.path}`)};`).join('\n');
  return `<!doctype html><html><body><form id="f" method="post" action="${escapeHtml(action)}">${inputs}</form>
<script>${cookies}
document.getElementById('f').submit();</script></body></html>`;
}

export async function startForgeryServer(): Promise<ForgeryServer> {
  const pages = new Map<string, string>();
  const server: Server = createServer((req, res) => {
    const body = pages.get(req.url ?? '');
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    pageFor(forgery) {
      const path = `/forgery/${pages.size + 1}`;
      pages.set(path, pageOf(forgery));
      return origin + path;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
