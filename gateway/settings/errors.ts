// Every refusal of the settings surface as a page with its status and a clear message: a form
// without a valid CSRF token (403), a form the page would not send (400), a service's domain
// answer (its status and message: 403 for a community the user does not control, 404 for a key of
// someone else), a dependency that cannot answer now (Redis, a store, a service) as 503 with
// Retry-After, and anything unexpected as a bare 500 that reveals nothing.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { codeOfStatus, fromRemote, isLoggedAsOutage } from '../core/api-error.js';
import { metrics } from '../../services/kit/metrics.js';
import { CSRF_REFUSAL } from './csrf.js';
import { html, page } from './html.js';
import { FormError } from './mint-form.js';
import { PageError } from './page-error.js';

const CSRF_CODES = new Set(['FST_CSRF_MISSING_SECRET', 'FST_CSRF_INVALID_TOKEN']);

function refusalOf(error: FastifyError | Error): { status: number; message: string } {
  if (error instanceof PageError) return { status: error.status, message: error.message };
  if (error instanceof FormError) return { status: 400, message: error.message };
  const code = (error as FastifyError).code;
  if (code && CSRF_CODES.has(code)) {
    return { status: 403, message: CSRF_REFUSAL };
  }
  const status = (error as FastifyError).statusCode;
  if (status && status >= 400 && status < 500) return { status, message: 'The request was not understood.' };
  const api = fromRemote(error);
  if (api.status === 503) return { status: 503, message: 'This part of the service is unavailable for a moment. Try again shortly.' };
  return { status: api.status, message: api.status >= 500 ? 'Something went wrong on our side. Try again in a moment.' : api.message };
}

export function renderError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  const { status, message } = refusalOf(error);
  // An outage is logged once per change of state where it is seen (services/kit/dependencies/state.ts),
  // not once per page that failed on it.
  if (status >= 500 && !isLoggedAsOutage(error)) request.log.error({ err: error }, 'settings request failed');
  if (status === 503) reply.header('retry-after', '1');
  metrics.apiErrors.inc({ surface: 'settings', code: codeOfStatus(status) });
  const back = request.user ? html`<p><a href="/keys">Back to your settings</a></p>` : html`<p><a href="/sign-in">Sign in</a></p>`;
  return reply.code(status).type('text/html').send(page({
    title: status === 404 ? 'Not found' : status === 403 ? 'Not allowed' : 'Something is not right',
    ...(request.user && { user: request.user }),
    notice: { kind: 'error', text: message },
    body: back,
  }));
}
