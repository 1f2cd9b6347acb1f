// One of the signed-in user's own webhook endpoints, as the webhooks screen's pages read it: the
// communities service answers another owner's (or none) not_found, so the page is a 404.
import type { FastifyRequest } from 'fastify';
import type { WebhookEndpoint } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { asUser, type SettingsContext } from './context.js';

export async function ownEndpoint(context: SettingsContext, request: FastifyRequest, id: string): Promise<WebhookEndpoint> {
  return (await context.clients.communities.getWebhookEndpoint({ endpointId: id }, await asUser(context, request))).endpoint!;
}
