// The request log screen's endpoint: GET /requests with its filter in the query string. Every call
// acts as the signed-in user, and identity answers only that user's own credentials' requests (a
// key of someone else's matches nothing). The key choices are the user's credentials that may have
// requests within the retention: their keys live or revoked in that window, their grants used in it.
import type { FastifyInstance } from 'fastify';
import { asUser, type SettingsContext } from './context.js';
import { page } from './html.js';
import { PageError } from './page-error.js';
import { requestsScreen, STATUS_CLASSES, type RequestFilter } from './requests-view.js';
import { requireSession } from './session.js';

/** The request log's retention in days (services/identity/request-log-retention.ts). */
const RETENTION_DAYS = 7;
const PAGE_SIZE = 50;

interface RequestsQuery {
  key?: string;
  status?: string;
  request_id?: string;
  page?: string;
}

function filterOf(query: RequestsQuery): RequestFilter {
  const one = (v: unknown) => (typeof v === 'string' ? v.trim() : '');
  const filter = { key: one(query.key), status: one(query.status), requestId: one(query.request_id) };
  if (filter.status && !(STATUS_CLASSES as readonly string[]).includes(filter.status)) throw new PageError(400, 'Status must be 2xx, 3xx, 4xx or 5xx.');
  if (filter.requestId.length > 128 || filter.key.length > 128) throw new PageError(400, 'A request id or key is at most 128 characters.');
  return filter;
}

export function registerRequestRoutes(app: FastifyInstance, context: SettingsContext): void {
  app.get<{ Querystring: RequestsQuery }>('/requests', { preHandler: requireSession(context) }, async (request, reply) => {
    const filter = filterOf(request.query);
    const options = await asUser(context, request);
    const userId = request.user!.id;
    const [log, usage] = await Promise.all([
      context.clients.identity.listRequests({
        userId, pageSize: PAGE_SIZE, pageToken: typeof request.query.page === 'string' ? request.query.page : '', credentialId: filter.key,
        statusClass: filter.status ? Number(filter.status[0]) : 0, requestId: filter.requestId,
      }, options),
      context.clients.identity.getUsage({ userId, days: RETENTION_DAYS, keyId: '' }, options),
    ]);
    return reply.type('text/html').send(page({
      title: 'Requests', user: request.user!, csrf: reply.generateCsrf(), current: '/requests',
      body: requestsScreen(log.requests, usage.credentials, filter, log.nextPageToken, RETENTION_DAYS),
    }));
  });
}
