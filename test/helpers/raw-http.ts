// Raw HTTP/1.1 over a TCP socket, for requests no HTTP client will send (a control character in a
// header, two Content-Length headers, a header over 16 KB, an undecodable path): the bytes go out as
// given and the answer is read back as it arrives, until the server closes or the body is complete.
import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: string;
}

function parse(raw: string): RawResponse | undefined {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine, ...lines] = raw.slice(0, end).split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  const body = raw.slice(end + 4);
  const length = headers['content-length'];
  if (length !== undefined && Buffer.byteLength(body) < Number(length)) return undefined;
  return { status, headers, body };
}

/** Sends `bytes` to the server of `baseUrl` and reads one response. */
export function rawHttp(baseUrl: string, bytes: string | Buffer, timeoutMs = 15_000): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    let raw = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete response within ${timeoutMs} ms: ${JSON.stringify(raw.slice(0, 300))}`));
    }, timeoutMs);
    const finish = () => {
      const parsed = parse(raw);
      if (!parsed) return false;
      clearTimeout(timer);
      socket.destroy();
      resolve(parsed);
      return true;
    };
    socket.on('connect', () => socket.write(bytes));
    socket.on('data', (chunk) => {
      raw += chunk.toString('utf8');
      finish();
    });
    socket.on('close', () => {
      if (!finish()) {
        clearTimeout(timer);
        reject(new Error(`connection closed before a complete response: ${JSON.stringify(raw.slice(0, 300))}`));
      }
    });
    socket.on('error', () => undefined); // a reset after the answer: 'close' reports what arrived
  });
}

/** A request's bytes: request line, headers (Host and Connection: close added), body. */
export function rawRequest(baseUrl: string, method: string, path: string, headers: string[] = [], body = ''): string {
  const { host } = new URL(baseUrl);
  const lines = [`${method} ${path} HTTP/1.1`, `Host: ${host}`, 'Connection: close', ...headers];
  if (body) lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}
