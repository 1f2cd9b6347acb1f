// Answers for requests Node's HTTP parser refuses before any framework sees them (a header over
// 16 KB, a control character in a header, two Content-Length headers, a malformed request line…),
// for the REST and MCP servers' `clientError` event. The answer is the error envelope like any other,
// with a generated X-Request-Id and `Connection: close` (the connection cannot be trusted to carry
// another request). No authentication: the request was never read, so whether it carried a
// credential is unknown (docs/API-DECISIONS.md, "Errors"). Nothing of the request is quoted back.
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { requestIdFrom } from './request-id.js';

interface ParserError extends Error {
  code?: string;
}

/** Status, code and message of a parser refusal. */
export function parserRefusal(error: ParserError): { status: number; code: string; message: string } {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, code: 'headers_too_large', message: 'the request line and headers exceed 16 KB' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, code: 'request_timeout', message: 'the request was not received in time' };
    default:
      return { status: 400, code: 'bad_request', message: 'the request is not well-formed HTTP/1.1' };
  }
}

/** The raw HTTP/1.1 response for a parser refusal, envelope included. */
export function clientErrorResponse(error: ParserError, requestId: string = requestIdFrom(undefined)): string {
  const { status, code, message } = parserRefusal(error);
  const body = JSON.stringify({ error: { code, message, request_id: requestId } });
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/** A `clientError` listener: writes the envelope (when the socket can still take it) and closes. */
export function answerClientError(error: ParserError, socket: Duplex): void {
  // A reset connection has nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // A response of an earlier request on this connection is being written: raw bytes would corrupt it.
  const inProgress = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || inProgress?.headersSent) {
    socket.destroy();
    return;
  }
  socket.end(clientErrorResponse(error));
}
