// HTTP/1.1 over a plain socket, byte for byte: the fuzz suites send what no well-behaved client
// would (malformed request lines, control characters, duplicate or lying Content-Length, huge
// headers), which fetch and node:http refuse to send. One request per connection.
import { connect } from 'node:net';

export interface RawAnswer {
  status: number;
  /** Header names lower-cased; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: string;
  /** The status line and headers as received, for failure messages. */
  head: string;
}

function parseHead(head: string): { status: number; headers: Record<string, string> } {
  const [statusLine, ...lines] = head.split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1] ?? NaN);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  return { status, headers };
}

/** The body of a chunked message, or undefined while it is incomplete. */
function dechunk(data: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd < 0) return undefined;
    const size = parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (Number.isNaN(size)) return Buffer.concat(parts);
    if (size === 0) return Buffer.concat(parts);
    if (data.length < lineEnd + 2 + size + 2) return undefined;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

/**
 * Sends `request` (the whole message: request line, headers, body) and reads one response. A
 * connection closed without a response is `status: 0`, which the suites treat as a failure.
 */
export function sendRaw(url: string, request: Buffer | string, timeoutMs = 15_000): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port) });
    let data = Buffer.alloc(0);
    let settled = false;
    const finish = (answer: RawAnswer | Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (answer instanceof Error) reject(answer);
      else resolve(answer);
    };
    const tryParse = (closed: boolean) => {
      const headEnd = data.indexOf('\r\n\r\n');
      if (headEnd < 0) {
        if (closed) finish({ status: 0, headers: {}, body: data.toString('utf8'), head: data.toString('latin1') });
        return;
      }
      const head = data.subarray(0, headEnd).toString('latin1');
      const { status, headers } = parseHead(head);
      if (status >= 100 && status < 200 && status !== 101) {
        // An interim answer (100 Continue): the real one follows.
        data = data.subarray(headEnd + 4);
        tryParse(closed);
        return;
      }
      const rest = data.subarray(headEnd + 4);
      let body: Buffer | undefined;
      if (/chunked/i.test(headers['transfer-encoding'] ?? '')) body = dechunk(rest);
      else if (headers['content-length'] !== undefined) {
        const length = Number(headers['content-length']);
        body = rest.length >= length ? rest.subarray(0, length) : undefined;
      } else if (status === 204 || status === 304 || (status >= 100 && status < 200)) body = Buffer.alloc(0);
      else if (closed) body = rest;
      if (body === undefined && closed) body = rest;
      if (body !== undefined) finish({ status, headers, body: body.toString('utf8'), head });
    };
    const timer = setTimeout(() => finish(new Error(`no complete response within ${timeoutMs} ms`)), timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      tryParse(false);
    });
    socket.on('end', () => tryParse(true));
    socket.on('close', () => tryParse(true));
    // The server may answer and close before it has read everything (a refused huge body): what
    // arrived is the answer; a reset before any byte is an empty answer (status 0).
    socket.on('error', () => tryParse(true));
    socket.on('connect', () => {
      socket.write(request, () => undefined);
    });
  });
}

export interface RequestParts {
  method: string;
  /** Sent as is: the caller encodes (or deliberately mis-encodes) it. */
  target: string;
  /** Pairs, in order, sent as is (duplicates allowed). */
  headers: Array<[string, string]>;
  body?: Buffer | string;
}

/** A message from parts: Host and Connection: close added unless given; Content-Length set for a body unless given. */
export function buildRequest(url: string, parts: RequestParts): Buffer {
  const names = new Set(parts.headers.map(([n]) => n.toLowerCase()));
  const headers = [...parts.headers];
  if (!names.has('host')) headers.unshift(['Host', new URL(url).host]);
  if (!names.has('connection')) headers.push(['Connection', 'close']);
  const body = parts.body === undefined ? undefined : Buffer.isBuffer(parts.body) ? parts.body : Buffer.from(parts.body, 'utf8');
  if (body && !names.has('content-length') && !names.has('transfer-encoding')) headers.push(['Content-Length', String(body.length)]);
  const head = `${parts.method} ${parts.target} HTTP/1.1\r\n${headers.map(([n, v]) => `${n}: ${v}\r\n`).join('')}\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), body ?? Buffer.alloc(0)]);
}

/** Encodes a path segment; a string with lone surrogates is sent as the bytes Node would write for it. */
export function encodeSegment(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return [...Buffer.from(value, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  }
}
