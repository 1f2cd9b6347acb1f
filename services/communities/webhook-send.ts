// One HTTP attempt of a webhook delivery (docs/WEBHOOKS.md "Delivery"), bounded in every way a
// receiver could abuse: the address is checked as the connection is made (every address the host
// resolves to must be public — services/kit/public-address.ts — unless private URLs are allowed;
// the check and the connection use the same resolution, so a name re-pointed after the endpoint
// was created, DNS rebinding, gains nothing), the whole exchange has one deadline (15 s), at most
// 64 KiB of the answer is read and its first 1 KiB kept, redirects are not followed, and nothing
// the receiver does throws: every outcome is a result.
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { allowedAddresses, checkedLookup } from '../kit/public-address.js';

export const SEND_TIMEOUT_MS = 15_000;
export const READ_LIMIT_BYTES = 64 * 1024;
export const EXCERPT_BYTES = 1024;

export interface SendRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  allowPrivate: boolean;
  /** The whole exchange's deadline (connection, request, answer); SEND_TIMEOUT_MS unless a suite shortens it. */
  timeoutMs?: number;
}

export interface SendResult {
  /** The answer's status; null when none came in time. */
  statusCode: number | null;
  latencyMs: number;
  /** Why it did not succeed (no answer, or a status that is not 2xx); null on a 2xx. */
  error: string | null;
  /** The first 1 KiB of the answer's body, as UTF-8 (invalid bytes and NULs replaced). */
  excerpt: string;
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

function refusal(url: URL, allowPrivate: boolean): string | undefined {
  const schemes = allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) return 'the URL must be https';
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host) && !allowedAddresses(allowPrivate)(host)) return `${host} is not a public address`;
  return undefined;
}

function errorOf(status: number, response: IncomingMessage): string | null {
  if (status >= 200 && status < 300) return null;
  if (status >= 300 && status < 400) return `answered ${status}; redirects are not followed${response.headers.location ? ` (Location: ${String(response.headers.location).slice(0, 200)})` : ''}`;
  return `answered ${status}`;
}

function tryRequest(make: () => ClientRequest): ClientRequest | undefined {
  try {
    return make();
  } catch {
    return undefined;
  }
}

export function sendWebhook(req: SendRequest): Promise<SendResult> {
  const started = Date.now();
  const done = (statusCode: number | null, error: string | null, chunks: Buffer[] = []): SendResult => ({
    statusCode,
    latencyMs: Date.now() - started,
    error,
    // Stored as text: a NUL, which no PostgreSQL text may hold, is replaced like an invalid byte.
    excerpt: Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8').replaceAll('\0', '\uFFFD'),
  });
  let url: URL;
  try {
    url = new URL(req.url);
  } catch {
    return Promise.resolve(done(null, 'the URL is not valid'));
  }
  const refused = refusal(url, req.allowPrivate);
  if (refused) return Promise.resolve(done(null, refused));
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const chunks: Buffer[] = [];
    let status: number | null = null;
    let response: IncomingMessage | undefined;
    const finish = (error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(done(status, status === null ? error : errorOf(status, response!), chunks));
      request?.destroy();
    };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const request = tryRequest(() => send(url, {
      method: 'POST',
      headers: { ...req.headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(req.body), 'user-agent': 'ExpertNet-Webhooks/1' },
      lookup: checkedLookup(allowedAddresses(req.allowPrivate)),
      agent: false,
    }));
    if (!request) return resolve(done(null, 'the request could not be made'));
    const timeoutMs = req.timeoutMs ?? SEND_TIMEOUT_MS;
    const timer = setTimeout(() => finish(`no answer within ${timeoutMs / 1000} s`), timeoutMs);
    // Whatever happens after the outcome (a reset, a late error) is of no interest, and must not throw.
    request.on('error', (error) => finish(message(error)));
    request.on('response', (answer) => {
      response = answer;
      status = answer.statusCode ?? null;
      let read = 0;
      answer.on('error', () => finish('the answer broke off'));
      answer.on('data', (chunk: Buffer) => {
        if (read < EXCERPT_BYTES) chunks.push(chunk);
        read += chunk.length;
        // Enough read: the rest is not wanted, the connection is dropped.
        if (read >= READ_LIMIT_BYTES) finish(null);
      });
      answer.on('end', () => finish(null));
    });
    request.end(req.body);
  });
}
