// The MCP transport (the SDK's) refuses some requests itself — an Accept or Content-Type it does
// not serve, a body over 1 MiB, a body that is not JSON or not a JSON-RPC message, an unsupported
// protocol version — answering a 4xx with a JSON-RPC error body. Every non-2xx of this API is the
// error envelope with the request id (docs/API-DECISIONS.md), so such an answer is rewritten on its
// way out: the SDK's status and message, our code and request id. 2xx answers pass untouched.
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { metrics } from '../../services/kit/metrics.js';

const CODE_OF_STATUS: Record<number, string> = {
  400: 'bad_request',
  404: 'not_found',
  405: 'method_not_allowed',
  406: 'not_acceptable',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
};

function messageOf(body: string): string {
  try {
    const message = (JSON.parse(body) as { error?: { message?: unknown } }).error?.message;
    if (typeof message === 'string' && message) return message;
  } catch {
    // not JSON: the status says it
  }
  return 'the MCP transport refused the request';
}

export function envelopeTransportRefusals(res: ServerResponse, requestId: string): void {
  const writeHead = res.writeHead.bind(res) as (status: number, headers?: OutgoingHttpHeaders) => ServerResponse;
  const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
  const end = res.end.bind(res) as (chunk?: unknown, ...rest: unknown[]) => ServerResponse;
  let held: { status: number; headers: OutgoingHttpHeaders } | undefined;
  const chunks: Buffer[] = [];
  const asBuffer = (chunk: unknown) => (typeof chunk === 'string' ? Buffer.from(chunk) : chunk instanceof Uint8Array ? Buffer.from(chunk) : Buffer.alloc(0));

  res.writeHead = ((status: number, ...rest: unknown[]) => {
    if (status < 400) return (writeHead as (...a: unknown[]) => ServerResponse)(status, ...rest);
    const headers = (rest.find((r) => typeof r === 'object' && r !== null) ?? {}) as OutgoingHttpHeaders;
    held = { status, headers };
    return res;
  }) as typeof res.writeHead;
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (!held) return write(chunk, ...rest);
    chunks.push(asBuffer(chunk));
    return true;
  }) as typeof res.write;
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    if (!held) return end(chunk, ...rest);
    if (chunk !== undefined && typeof chunk !== 'function') chunks.push(asBuffer(chunk));
    const { status, headers } = held;
    const code = CODE_OF_STATUS[status] ?? 'bad_request';
    metrics.apiErrors.inc({ surface: 'mcp', code });
    const body = JSON.stringify({
      error: { code, message: messageOf(Buffer.concat(chunks).toString('utf8')), request_id: requestId },
    });
    const kept = Object.fromEntries(Object.entries(headers).filter(([name]) => !/^(content-length|content-type|transfer-encoding)$/i.test(name)));
    writeHead(status, { ...kept, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    return end(body);
  }) as typeof res.end;
}
