// The fetch for URLs a caller chooses: the authorization server's outgoing requests (a client ID
// metadata document named by a client_id, and whatever else a client's metadata may make the
// provider fetch: jwks_uri, sector_identifier_uri). The address is checked before any socket is
// opened — a literal IP in the URL at once, a host name when it is resolved, inside the connection's
// own lookup, so the connection goes to the address that was checked (services/kit/public-address.ts) — and a
// refused address fails in the same instant whether or not anything listens there: no connection,
// no TLS handshake, no timing to learn a port from. Time and size are bounded, redirects are never
// followed (a redirect could name any address), and only http(s) is spoken.
//
// oidc-provider's own guard (its dispatcher) looks at the peer only after connecting, which is why
// the provider is configured with this fetch instead and the dispatcher it passes is ignored.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { AddressRefused, allowedAddresses, checkedLookup } from '../../services/kit/public-address.js';

/** An outgoing request as fetch takes it (the shape oidc-provider's `fetch` option has). */
export type OutgoingFetch = (url: string, init: RequestInit) => Promise<Response>;

export interface GuardedFetchOptions {
  /**
   * Let requests reach loopback and private addresses too. For a document server on this machine
   * (the suite), never the default: set explicitly where it is meant.
   */
  allowPrivateAddresses?: boolean;
  /** The whole exchange, connection to last byte (default 3 s). */
  timeoutMs?: number;
  /** The most a response body may hold (default 128 KiB); more fails the read. */
  maxBytes?: number;
}

const DEFAULT_TIMEOUT_MS = 3000;
const DEFAULT_MAX_BYTES = 128 * 1024;
/** Statuses whose Response may carry no body. */
const NULL_BODY = new Set([204, 205, 304]);

export class ResponseTooLarge extends Error {
  constructor(limit: number) {
    super(`response larger than ${limit} bytes`);
    this.name = 'ResponseTooLarge';
  }
}

function bodyOf(init: RequestInit): string | undefined {
  if (init.body === undefined || init.body === null) return undefined;
  if (typeof init.body === 'string') return init.body;
  if (init.body instanceof URLSearchParams) return init.body.toString();
  throw new TypeError('only string and form bodies are sent');
}

/** The response body as a stream that fails past `maxBytes` or when `signal` aborts. */
function boundedBody(res: IncomingMessage, maxBytes: number, signal: AbortSignal): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      let received = 0;
      let settled = false;
      const fail = (error: unknown) => {
        if (settled) return;
        settled = true;
        res.destroy();
        controller.error(error);
      };
      signal.addEventListener('abort', () => fail(signal.reason), { once: true });
      res.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > maxBytes) return fail(new ResponseTooLarge(maxBytes));
        if (!settled) controller.enqueue(new Uint8Array(chunk));
      });
      res.on('error', fail);
      res.on('aborted', () => fail(new Error('the response was cut short')));
      res.on('end', () => {
        if (settled) return;
        settled = true;
        controller.close();
      });
    },
    cancel() {
      res.destroy();
    },
  });
}

export function guardedFetch(options: GuardedFetchOptions = {}): OutgoingFetch {
  const allowed = allowedAddresses(options.allowPrivateAddresses === true);
  const lookup = checkedLookup(allowed);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;

  return (url, init) => new Promise<Response>((resolve, reject) => {
    const target = new URL(url);
    if (target.protocol !== 'https:' && target.protocol !== 'http:') return reject(new TypeError(`${target.protocol} URLs are not fetched`));
    // A literal address never reaches the lookup: it is checked here.
    const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(host) && !allowed(host)) return reject(new AddressRefused(host));
    const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(init.signal ? [init.signal] : [])]);
    const body = bodyOf(init);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    // agent: false — a connection of its own, never a pooled one opened for another check.
    const req = send(target, { method: init.method ?? 'GET', headers: Object.fromEntries(new Headers(init.headers)), lookup, signal, agent: false });
    req.on('error', reject);
    req.on('response', (res) => {
      const length = Number(res.headers['content-length']);
      if (Number.isFinite(length) && length > maxBytes) {
        res.destroy();
        return reject(new ResponseTooLarge(maxBytes));
      }
      const headers = new Headers();
      for (const [name, value] of Object.entries(res.headers)) {
        for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, one);
      }
      const status = res.statusCode ?? 502;
      if (NULL_BODY.has(status)) res.resume();
      resolve(new Response(NULL_BODY.has(status) ? null : boundedBody(res, maxBytes, signal), { status, statusText: res.statusMessage ?? '', headers }));
    });
    req.end(body);
  });
}
