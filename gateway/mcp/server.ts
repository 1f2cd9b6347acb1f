// The MCP surface over Streamable HTTP, STATELESS: every POST /mcp builds its own McpServer and
// transport (no session ids, nothing kept between requests), so any replica serves any request.
// Each request is authenticated like a REST request (`Authorization: Bearer <API key or access
// token>`, resolved by the same edge.authenticate) before the MCP layer sees it.
//
//   Host / Origin    DNS-rebinding protection, before anything else: a Host whose hostname is not
//                    allowed, or an Origin that is not allowed, is 403.
//   /.well-known/oauth-protected-resource[/mcp]
//                    RFC 9728 metadata, no credential needed.
//   /mcp             401 + WWW-Authenticate (RFC 9728 resource_metadata) without a valid
//                    credential; otherwise POST is served, GET and DELETE are 405 (stateless:
//                    no standalone SSE stream, no session to delete).
// Rate limits are counted per tool call (see tools.ts), not per HTTP request.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Caller } from '../../proto/gen/expertnet/common/v1/common.js';
import type { Database } from '../../services/kit/db/database.js';
import type { Logger } from '../../services/kit/logger.js';
import { SCOPES } from '../../services/kit/scopes.js';
import { ApiError, fromRemote } from '../core/api-error.js';
import { presentedCredential, type PresentedCredential } from '../core/credentials.js';
import type { Edge } from '../core/edge.js';
import type { RateLimiter } from '../core/rate-limit/limiter.js';
import { requestIdFrom } from '../core/request-id.js';
import { McpIdempotency } from './idempotency.js';
import { buildMcpServer } from './tools.js';

export const MCP_PATH = '/mcp';
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
  /** OAuth authorization servers for the protected-resource metadata (OAUTH_ISSUER). */
  authorizationServers: string[];
  /**
   * This server's resource URI (RFC 8707/9728), e.g. `https://mcp.example.com/mcp` behind a proxy.
   * Default: `http://<host>:<bound port>/mcp`.
   */
  resourceUrl?: string;
  /** Hostnames (port-agnostic; IPv6 in brackets) accepted in Host. Default: localhost, 127.0.0.1, [::1]. */
  allowedHosts?: string[];
  /**
   * Origins (exact `scheme://host[:port]`, or `*`) accepted when a request carries Origin. Default:
   * any origin whose hostname is an allowed host. Requests without Origin (non-browser clients) pass.
   */
  allowedOrigins?: string[];
  /**
   * When set, an OAuth access token must also carry this audience (RFC 8707), checked here after
   * identity has verified the token (which requires OAUTH_AUDIENCE). Off by default: see docs/MCP.md.
   */
  requiredTokenAudience?: string;
  /** The edge's store: enables idempotency_key on add_community_members. */
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

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The payload of a JWT, read without verification (only after identity verified the token). */
function audiencesOf(token: string): string[] {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { aud?: unknown };
    if (typeof payload.aud === 'string') return [payload.aud];
    return Array.isArray(payload.aud) ? payload.aud.filter((a): a is string => typeof a === 'string') : [];
  } catch {
    return [];
  }
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
  const sendError = (res: ServerResponse, error: ApiError, requestId: string, headers: Record<string, string> = {}) =>
    send(res, error.status, { error: { code: error.code, message: error.message, request_id: requestId, ...error.extras } }, {
      ...error.headers,
      ...headers,
    });

  const challenge = (error: ApiError, credential: PresentedCredential | undefined): string => {
    // RFC 6750 §3: no error code when no credential was sent; invalid_token otherwise.
    const params = [`resource_metadata="${metadataUrl}"`, `scope="${SCOPES.join(' ')}"`];
    if (credential && credential.kind !== 'none') {
      params.unshift(`error="invalid_token"`, `error_description="${error.message.replace(/["\\]/g, '')}"`);
    }
    return `Bearer ${params.join(', ')}`;
  };

  const authenticate = async (req: IncomingMessage, requestId: string): Promise<Caller> => {
    const credential = presentedCredential(req.headers);
    const caller = await options.edge.authenticate(credential, requestId);
    if (options.requiredTokenAudience && credential.kind === 'access_token' && !audiencesOf(credential.value).includes(options.requiredTokenAudience)) {
      throw new ApiError(401, 'unauthorized', `access token audience must include ${options.requiredTokenAudience}`);
    }
    return caller;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const requestId = requestIdFrom(req.headers['x-request-id']);
    res.setHeader('x-request-id', requestId);

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
    if (path !== MCP_PATH) return sendError(res, new ApiError(404, 'not_found', `no route ${req.method} ${path}`), requestId);

    let caller: Caller;
    let credential: PresentedCredential | undefined;
    try {
      try {
        credential = presentedCredential(req.headers);
      } catch {
        credential = undefined;
      }
      caller = await authenticate(req, requestId);
    } catch (error) {
      const apiError = fromRemote(error);
      if (apiError.status === 401) {
        return sendError(res, apiError, requestId, { 'www-authenticate': challenge(apiError, credential ?? { kind: 'api_key', value: '' }) });
      }
      return sendError(res, apiError, requestId);
    }

    if (req.method !== 'POST') {
      // Stateless: no standalone SSE stream (GET) and no session to end (DELETE).
      return sendError(res, new ApiError(405, 'method_not_allowed', 'this MCP server is stateless: only POST is served'), requestId, { allow: 'POST' });
    }

    const server = buildMcpServer({
      edge: options.edge,
      limiter: options.limiter,
      requestId: () => requestId,
      caller: async () => caller,
      ...(idempotency ? { idempotency } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
    });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: MCP_BODY_LIMIT_BYTES,
    });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      options.logger?.error({ err }, 'MCP request failed');
      if (!res.headersSent) send(res, 500, { error: { code: 'internal', message: 'internal error', request_id: String(res.getHeader('x-request-id') ?? '') } });
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, options.host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const { port } = http.address() as AddressInfo;
  const hostPart = options.host.includes(':') ? `[${options.host}]` : options.host;
  const url = `http://${hostPart}:${port}`;
  resourceUrl ||= `${url}${MCP_PATH}`;
  metadataUrl = `${new URL(resourceUrl).origin}${METADATA_PATH}`;
  return {
    url,
    endpoint: `${url}${MCP_PATH}`,
    resourceUrl,
    server: http,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
