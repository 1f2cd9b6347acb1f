// What the authorization server (/oauth, oidc-provider) is handed: every text parameter of every
// request — the query, a form or JSON body, the path, the client credentials of a Basic
// Authorization header — is decoded here first and must be text the store can keep
// (services/kit/request-text.ts: no NUL, no lone surrogate) and percent-encoded UTF-8 where it is
// encoded. A request that fails is refused before the provider sees it, the OAuth way: 400 with
// {"error","error_description"} as JSON (RFC 6749 §5.2; invalid_client_metadata for a registration,
// RFC 7591 §3.2.2), the request id and a log line — never the provider's 500 from a store that
// cannot hold the text. The message names the parameter, never the text itself.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { textProblem } from '../../services/kit/request-text.js';

/** oidc-provider's own limit on a request body. */
const BODY_LIMIT_BYTES = 56 * 1024;
/** A parameter name that may be quoted in a message as it is. */
const QUOTABLE_NAME = /^[A-Za-z0-9_.:-]{1,64}$/;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

class InputRefused extends Error {}

const nameOf = (name: string) => (QUOTABLE_NAME.test(name) ? name : 'a parameter');

function decoded(component: string, plusIsSpace: boolean, what = 'a parameter'): string {
  try {
    return decodeURIComponent(plusIsSpace ? component.replace(/\+/g, ' ') : component);
  } catch {
    throw new InputRefused(`${what} is not percent-encoded UTF-8`);
  }
}

/** Refuses `value` when it is not text the store can keep; `label` says which parameter it is. */
function check(label: string, value: string): void {
  const problem = textProblem(value);
  if (problem) throw new InputRefused(`${label} ${problem}`);
}

/** Each parameter of an application/x-www-form-urlencoded string (a query or a form body). */
function checkForm(encoded: string): void {
  for (const pair of encoded.split('&')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    const name = decoded(eq === -1 ? pair : pair.slice(0, eq), true);
    check('a parameter name', name);
    check(nameOf(name), eq === -1 ? '' : decoded(pair.slice(eq + 1), true));
  }
}

/** Every member name and string of a JSON document, without recursion (a deep document is no risk). */
function checkJson(document: unknown): void {
  const pending: Array<[string, unknown]> = [['the body', document]];
  while (pending.length > 0) {
    const [name, value] = pending.pop()!;
    if (typeof value === 'string') check(nameOf(name), value);
    else if (Array.isArray(value)) for (const item of value) pending.push([name, item]);
    else if (value !== null && typeof value === 'object') {
      for (const [key, member] of Object.entries(value)) {
        check('a member name', key);
        // A member is named by its top-level field (redirect_uris), the one a client knows.
        pending.push([name === 'the body' ? key : name, member]);
      }
    }
  }
}

function checkBody(request: FastifyRequest, body: Buffer): void {
  const type = String(request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json' && type !== 'application/x-www-form-urlencoded') return; // the provider refuses other types unread
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw new InputRefused('the body is not valid UTF-8');
  }
  if (type === 'application/x-www-form-urlencoded') return checkForm(text);
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw new InputRefused('the body is not JSON');
  }
  checkJson(document);
}

function checkBasicCredentials(authorization: string | undefined): void {
  const basic = /^basic\s+(.*)$/i.exec(authorization ?? '');
  if (!basic) return;
  let credentials: string;
  try {
    credentials = utf8.decode(Buffer.from(basic[1]!, 'base64'));
  } catch {
    throw new InputRefused('the Basic credentials are not UTF-8');
  }
  // RFC 6749 §2.3.1: the client id and secret are form-encoded before they are joined.
  const colon = credentials.indexOf(':');
  check('client_id', decoded(colon === -1 ? credentials : credentials.slice(0, colon), true));
  if (colon !== -1) check('client_secret', decoded(credentials.slice(colon + 1), true));
}

/** An OAuth error for input the provider may not be handed. */
export interface InputRefusal {
  error: 'invalid_request' | 'invalid_client_metadata';
  description: string;
}

/** Why the request may not reach the provider, or undefined when it may. */
export function oauthInputProblem(request: FastifyRequest): InputRefusal | undefined {
  const url = request.raw.url ?? '/';
  const q = url.indexOf('?');
  try {
    for (const segment of (q === -1 ? url : url.slice(0, q)).split('/')) check('the path', decoded(segment, false, 'the path'));
    if (q !== -1) checkForm(url.slice(q + 1));
    checkBasicCredentials(request.headers.authorization);
  } catch (error) {
    if (error instanceof InputRefused) return { error: 'invalid_request', description: error.message };
    throw error;
  }
  try {
    if (Buffer.isBuffer(request.body)) checkBody(request, request.body);
    return undefined;
  } catch (error) {
    if (!(error instanceof InputRefused)) throw error;
    // A registration's body is its client metadata (RFC 7591 §3.2.2).
    const registration = /^\/oauth\/reg(\/|\?|$)/.test(url);
    return { error: registration ? 'invalid_client_metadata' : 'invalid_request', description: error.message };
  }
}

function refuse(request: FastifyRequest, reply: FastifyReply, status: number, error: string, description: string) {
  request.log.info({ status, error, reason: description, method: request.method, path: request.routeOptions.url }, 'oauth request refused');
  return reply.code(status).header('cache-control', 'no-store').type('application/json').send({ error, error_description: description });
}

/**
 * Puts the check in front of the provider mounted in `scope`: bodies are read here (up to the
 * provider's limit) and handed on once checked — oidc-provider takes an already read body from
 * `req.body` (it says so once in its log, "already parsed request body detected").
 */
export function guardOAuthInput(scope: FastifyInstance): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT_BYTES }, (_request, body, done) => done(null, body));
  scope.addHook('preHandler', async (request, reply) => {
    const problem = oauthInputProblem(request);
    if (problem) return refuse(request, reply, 400, problem.error, problem.description);
    if (Buffer.isBuffer(request.body)) (request.raw as typeof request.raw & { body?: Buffer }).body = request.body;
    return undefined;
  });
  // What Fastify refuses before the check (a body too large, a broken content type) is an OAuth
  // answer too.
  scope.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status >= 500) {
      request.log.error({ err: error }, 'oauth request failed');
      return reply.code(500).type('application/json').send({ error: 'server_error', error_description: 'the request could not be handled' });
    }
    return refuse(request, reply, status, 'invalid_request', status === 413 ? 'the body is too large' : 'the request could not be read');
  });
}
