// The MCP surface over Streamable HTTP, STATELESS: every POST /mcp builds its own McpServer and
// transport (no session ids, nothing kept between requests), so any replica serves any request.
// Each request is authenticated like a REST request (`Authorization: Bearer <API key or access
// token>`, resolved by the same edge.authenticate) before the MCP layer sees it, with one difference:
// an access token must be one minted for this server's resource URI (RFC 8707 audience), which
// identity checks; a token for the REST API is refused here, as an MCP token is refused by REST.
//
//   Host / Origin    DNS-rebinding protection, before anything else: a Host whose hostname is not
//                    allowed, or an Origin that is not allowed, is 403.
//   /.well-known/oauth-protected-resource[/mcp]
//                    RFC 9728 metadata, no credential needed.
//   /mcp             401 + WWW-Authenticate (RFC 9728 resource_metadata) without a valid
//                    credential; otherwise POST is served, GET and DELETE are 405 (stateless:
//                    no standalone SSE stream, no session to delete).
// Rate limits are counted per tool call (see tools.ts), not per HTTP request. Every request's span
// carries its request id and, once authenticated, the key id (gateway/core/request-span.ts).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Caller } from '../../proto/gen/expertnet/common/v1/common.js';
import type { Database } from '../../services/kit/db/database.js';
import type { Logger } from '../../services/kit/logger.js';
import { defaultMcpResourceUrl, MCP_PATH } from '../../services/kit/mcp-resource.js';
import { metrics, statusClass } from '../../services/kit/metrics.js';
import { READ_PRESET, SCOPES } from '../../services/kit/scopes.js';
import { ApiError, fromRemote } from '../core/api-error.js';
import { presentedCredential, type PresentedCredential } from '../core/credentials.js';
import type { Edge } from '../core/edge.js';
import type { RateLimiter } from '../../services/kit/rate-limit/limiter.js';
import { answerClientError } from '../core/client-error.js';
import { takeOver } from '../core/early-server.js';
import { nestsDeeperThan, TOO_DEEP_MESSAGE } from '../core/json-depth.js';
import { utf8BodyText } from '../core/utf8-body.js';
import { logAccess } from '../core/access-log.js';
import { requestIdFrom } from '../core/request-id.js';
import { annotateRequest } from '../core/request-span.js';
import { McpIdempotency } from './idempotency.js';
import { buildMcpServer } from './tools.js';
import { refuseInvalidParams } from './invalid-params.js';
import { asksForProgress } from './progress.js';
import { calledTool } from './called-tool.js';
import { envelopeTransportRefusals } from './transport-refusals.js';

export { MCP_PATH };
export const METADATA_PATH = '/.well-known/oauth-protected-resource';
/** Request bodies are limited to 1 MiB, as on REST. */
export const MCP_BODY_LIMIT_BYTES = 1024 * 1024;
export const DEFAULT_ALLOWED_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

export interface McpHttpServerOptions {
  edge: Edge;
  /** The same limiter as the REST surface (memory in one process, Redis across replicas). */
  limiter: RateLimiter;
  host: string;
  /** 0: the OS picks. */
  port: number;
  /**
   * An HTTP server already listening (answering 503 until this server takes it over: early-server.ts), used instead of binding `port`:
   * for when the resource URL must be known — from the bound port — before this server starts.
   */
  server?: Server;
  /** OAuth authorization servers for the protected-resource metadata (OAUTH_ISSUER). */
  authorizationServers: string[];
  /**
   * This server's resource URI (RFC 8707/9728), e.g. `https://mcp.example.com/mcp` behind a proxy:
   * named in the metadata, and the audience an access token must carry to be accepted here. Identity
   * must know it too (MCP_RESOURCE_URL, services/kit/mcp-resource.ts). Default:
   * `http://<host>:<bound port>/mcp`.
   */
  resourceUrl?: string;
  /** Hostnames (port-agnostic; IPv6 in brackets) accepted in Host. Default: localhost, 127.0.0.1, [::1]. */
  allowedHosts?: string[];
  /**
   * Origins (exact `scheme://host[:port]`, or `*`) accepted when a request carries Origin. Default:
   * any origin whose hostname is an allowed host. Requests without Origin (non-browser clients) pass.
   */
  allowedOrigins?: string[];
  /** The edge's store: enables idempotency_key on add_community_members and start_community_enrichment. */
  db?: Database;
  logger?: Logger;
}

export interface RunningMcpServer {
  /** Base URL, e.g. http://127.0.0.1:8081 */
  url: string;
  /** The MCP endpoint: url + /mcp */
  endpoint: string;
  resourceUrl: string;
  server: Server;
  close(): Promise<void>;
}

function hostnameOf(value: string): string | undefined {
  try {
    return new URL(`http://${value}`).hostname;
  } catch {
    return undefined;
  }
}

/**
 * The body as text, or undefined when it is longer than `limit` bytes (the rest is not read);
 * ApiError 400 bad_request when its bytes are not UTF-8 (gateway/core/utf8-body.ts).
 */
async function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  if (Number(req.headers['content-length']) > limit) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return undefined;
    chunks.push(chunk);
  }
  return utf8BodyText(Buffer.concat(chunks));
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The MCP port's HTTP server, not yet listening. Without Host, Node would answer a bare 400 of its
 * own; with `requireHostHeader` off the request reaches the handler, which answers in the envelope
 * (after the credential check, like every refusal; the allowed-hosts check then refuses it).
 */
export function createMcpHttpServer(): Server {
  return createServer({ requireHostHeader: false });
}

export async function startMcpHttpServer(options: McpHttpServerOptions): Promise<RunningMcpServer> {
  const allowedHosts = options.allowedHosts ?? DEFAULT_ALLOWED_HOSTS;
  const idempotency = options.db ? new McpIdempotency(options.db, options.logger) : undefined;
  let resourceUrl = options.resourceUrl ?? '';
  let metadataUrl = '';

  const originAllowed = (origin: string): boolean => {
    if (options.allowedOrigins) return options.allowedOrigins.includes('*') || options.allowedOrigins.includes(origin);
    try {
      const url = new URL(origin);
      return (url.protocol === 'http:' || url.protocol === 'https:') && allowedHosts.includes(url.hostname);
    } catch {
      return false;
    }
  };

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers }).end(JSON.stringify(body));
  };
  const sendError = (res: ServerResponse, error: ApiError, requestId: string, headers: Record<string, string> = {}) => {
    metrics.apiErrors.inc({ surface: 'mcp', code: error.code });
    send(res, error.status, { error: { code: error.code, message: error.message, request_id: requestId, ...error.extras } }, {
      ...error.headers,
      ...headers,
    });
  };

  const challenge = (error: ApiError, credential: PresentedCredential | undefined): string => {
    // RFC 6750 §3: no error code when no credential was sent; invalid_token otherwise.
    // The scope asked for is the one-click Read preset: a client that follows the challenge (the
    // MCP SDK does) asks for no write or billable scope the person would have to untick; the
    // metadata's scopes_supported still lists every scope, which the consent page offers as choices.
    const params = [`resource_metadata="${metadataUrl}"`, `scope="${READ_PRESET.join(' ')}"`];
    if (credential && credential.kind !== 'none') {
      params.unshift(`error="invalid_token"`, `error_description="${error.message.replace(/["\\]/g, '')}"`);
    }
    return `Bearer ${params.join(', ')}`;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const requestId = requestIdFrom(req.headers['x-request-id']);
    res.setHeader('x-request-id', requestId);
    annotateRequest(req, requestId);
    // The access log's line (gateway/core/access-log.ts), written once the answer has left.
    const started = performance.now();
    let known: Caller | undefined;
    let tool = '';
    res.once('finish', () => {
      const durationMs = performance.now() - started;
      // The caller's own request log (services/kit/request-log.ts): only once a credential was recognised.
      if (known) {
        options.edge.requestLog.record({
          caller: known, surface: 'mcp', method: req.method ?? '', url: req.url ?? '', tool, status: res.statusCode, durationMs, requestId,
        });
      }
      const route = (req.url ?? '').split('?')[0] === MCP_PATH ? MCP_PATH : 'unmatched';
      // The REST edge's RED metrics, under route /mcp: the MCP SLO alerts read them (deploy/monitoring/alerts.yaml).
      const labels = { method: req.method ?? '', route, status_class: statusClass(res.statusCode) };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, durationMs / 1000);
      if (!options.logger) return;
      logAccess(options.logger, {
        surface: 'mcp', method: req.method ?? '', route, status: res.statusCode, durationMs, requestId, caller: known,
      });
    });

    // DNS rebinding: Host first, then Origin (browsers only).
    const hostname = hostnameOf(single(req.headers.host) ?? '');
    if (!hostname || !allowedHosts.includes(hostname)) {
      return sendError(res, new ApiError(403, 'forbidden', 'Host is not allowed'), requestId);
    }
    const origin = single(req.headers.origin);
    if (origin !== undefined) {
      if (!originAllowed(origin)) return sendError(res, new ApiError(403, 'forbidden', 'Origin is not allowed'), requestId);
      res.setHeader('access-control-allow-origin', origin);
      res.setHeader('vary', 'Origin');
      res.setHeader('access-control-expose-headers', 'www-authenticate, x-request-id, mcp-protocol-version');
      if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
        res.writeHead(204, {
          'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
          'access-control-allow-headers': 'authorization, content-type, accept, mcp-protocol-version, mcp-session-id, last-event-id, x-request-id',
          'access-control-max-age': '600',
        });
        return void res.end();
      }
    }

    const path = (req.url ?? '/').split('?')[0]!;
    if (path === METADATA_PATH || path === `${METADATA_PATH}${MCP_PATH}`) {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        return sendError(res, new ApiError(405, 'method_not_allowed', 'use GET'), requestId, { allow: 'GET' });
      }
      return send(res, 200, {
        resource: resourceUrl,
        authorization_servers: options.authorizationServers,
        scopes_supported: [...SCOPES],
        bearer_methods_supported: ['header'],
        resource_name: 'Expert Network API (MCP)',
      }, { 'cache-control': 'public, max-age=3600' });
    }
    // The path is never quoted back.
    if (path !== MCP_PATH) return sendError(res, new ApiError(404, 'not_found', `no such path: the MCP endpoint is ${MCP_PATH}`), requestId);

    let caller: Caller;
    let credential: PresentedCredential | undefined;
    try {
      // An access token is checked against this server's resource (its audience), never REST's.
      credential = presentedCredential(req.headers, resourceUrl);
      caller = await options.edge.authenticate(credential, requestId);
    } catch (error) {
      const apiError = fromRemote(error);
      if (apiError.status === 401) {
        return sendError(res, apiError, requestId, { 'www-authenticate': challenge(apiError, credential ?? { kind: 'api_key', value: '' }) });
      }
      return sendError(res, apiError, requestId);
    }
    annotateRequest(req, requestId, caller);
    known = caller;

    if (req.method !== 'POST') {
      // Stateless: no standalone SSE stream (GET) and no session to end (DELETE).
      return sendError(res, new ApiError(405, 'method_not_allowed', 'this MCP server is stateless: only POST is served'), requestId, { allow: 'POST' });
    }

    const server = buildMcpServer({
      edge: options.edge,
      limiter: options.limiter,
      requestId: () => requestId,
      caller: async () => caller,
      httpRequest: req,
      ...(idempotency ? { idempotency } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
    });
    // A JSON body is read here, so the edge's JSON rules hold on this port too: over 1 MiB is 413,
    // bytes that are not UTF-8 and nesting deeper than 64 levels are 400 (gateway/core/utf8-body.ts,
    // json-depth.ts), all in the envelope.
    let parsedBody: unknown;
    if (/^application\/json\b/i.test(single(req.headers['content-type']) ?? '')) {
      let text: string | undefined;
      try {
        text = await readBody(req, MCP_BODY_LIMIT_BYTES);
      } catch (error) {
        if (error instanceof ApiError) return sendError(res, error, requestId);
        throw error;
      }
      if (text === undefined) return sendError(res, new ApiError(413, 'payload_too_large', 'request body is larger than 1 MiB'), requestId);
      if (nestsDeeperThan(text)) return sendError(res, new ApiError(400, 'bad_request', TOO_DEEP_MESSAGE), requestId);
      try {
        parsedBody = JSON.parse(text);
      } catch {
        // Like every refusal of the transport's own (transport-refusals.ts): the envelope.
        return sendError(res, new ApiError(400, 'bad_request', 'the body is not valid JSON'), requestId);
      }
    }
    tool = calledTool(parsedBody);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      // Plain JSON, unless a tool call asks for progress: notifications reach the client only on
      // an SSE reply, which then carries them and the result (progress.ts).
      enableJsonResponse: !asksForProgress(parsedBody),
      maxRequestBodySize: MCP_BODY_LIMIT_BYTES,
    });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    refuseInvalidParams(transport);
    // The transport's own refusals (Accept, Content-Type, size, JSON, JSON-RPC) leave in the envelope.
    envelopeTransportRefusals(res, requestId);
    await transport.handleRequest(req, res, parsedBody);
  };

  const http = options.server ?? createMcpHttpServer();
  takeOver(http, (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((err: unknown) => {
      options.logger?.error({ err }, 'MCP request failed');
      if (!res.headersSent) send(res, 500, { error: { code: 'internal', message: 'internal error', request_id: String(res.getHeader('x-request-id') ?? '') } });
      else res.end();
    });
  });
  // Requests Node's parser refuses (oversized or malformed headers) get the envelope too.
  http.on('clientError', answerClientError);
  if (!options.server) {
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(options.port, options.host, () => {
        http.off('error', reject);
        resolve();
      });
    });
  }
  const { port } = http.address() as AddressInfo;
  const endpoint = defaultMcpResourceUrl(options.host, port);
  const url = endpoint.slice(0, -MCP_PATH.length);
  resourceUrl ||= endpoint;
  metadataUrl = `${new URL(resourceUrl).origin}${METADATA_PATH}`;
  return {
    url,
    endpoint,
    resourceUrl,
    server: http,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
