// The delivery log of the webhooks screen's endpoint page (webhook-deliveries-view.ts), a
// delivery's page with every attempt, a test event and a resend. As the signed-in user: the
// communities service shows and sends only for that user's own endpoints (another owner's endpoint or delivery is not found: a 404 page) and refuses
// to send to a disabled endpoint (409). Both forms are post/redirect/get back to the endpoint page,
// whose log shows the delivery; CSRF-protected (csrf.ts).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebhookEndpoint } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { asUser, type SettingsContext } from './context.js';
import { page, type Markup } from './html.js';
import { ownEndpoint } from './own-webhook-endpoint.js';
import { requireSession } from './session.js';
import { deliveryDetails, deliveryLog } from './webhook-deliveries-view.js';

const LOG_PAGE_SIZE = 20;

/** One page of the endpoint's delivery log, from `after` (a previous page's token) or the newest. */
export async function deliveryLogOf(context: SettingsContext, request: FastifyRequest, endpoint: WebhookEndpoint, csrf: string, after: unknown): Promise<Markup> {
  const page = await context.clients.communities.listWebhookDeliveries(
    { endpointId: endpoint.id, pageSize: LOG_PAGE_SIZE, pageToken: typeof after === 'string' ? after : '' }, await asUser(context, request));
  return deliveryLog(endpoint, page.deliveries, csrf, page.nextPageToken);
}

export function registerWebhookDeliveryRoutes(app: FastifyInstance, context: SettingsContext): void {
  const protectedForm = { preHandler: [requireSession(context), app.csrfProtection] };

  app.get<{ Params: { id: string; deliveryId: string } }>('/webhooks/:id/deliveries/:deliveryId', { preHandler: requireSession(context) }, async (request, reply) => {
    const endpoint = await ownEndpoint(context, request, request.params.id);
    const { delivery } = await context.clients.communities.getWebhookDelivery(
      { endpointId: endpoint.id, deliveryId: request.params.deliveryId }, await asUser(context, request));
    const csrf = reply.generateCsrf();
    return reply.type('text/html').send(page({ title: 'Webhook delivery', user: request.user!, csrf, current: '/webhooks', body: deliveryDetails(endpoint, delivery!, csrf) }));
  });
  const back = (endpointId: string, done: string) => `/webhooks/${encodeURIComponent(endpointId)}?done=${done}#deliveries`;

  app.post<{ Params: { id: string } }>('/webhooks/:id/test', protectedForm, async (request, reply) => {
    await context.clients.communities.sendTestWebhook({ endpointId: request.params.id }, await asUser(context, request));
    return reply.redirect(back(request.params.id, 'test'), 303);
  });

  app.post<{ Params: { id: string; deliveryId: string } }>('/webhooks/:id/deliveries/:deliveryId/resend', protectedForm, async (request, reply) => {
    await context.clients.communities.resendWebhookDelivery(
      { endpointId: request.params.id, deliveryId: request.params.deliveryId }, await asUser(context, request));
    return reply.redirect(back(request.params.id, 'resent'), 303);
  });
}
