// The delivery log routes of a webhook endpoint: the core with the validated input (route.ts). A
// resend and a test answer 202 with the delivery queued, and its Location to read it again.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Edge } from '../../../core/edge.js';
import * as core from '../../../core/webhook-deliveries.js';
import * as contract from '../../../core/contract/webhook-deliveries.js';
import { callerContext } from '../../plugins/authentication.js';
import { route } from './route.js';

function queued(reply: FastifyReply, endpointId: string, delivery: { id: string }) {
  reply.code(202).header('location', `/v1/webhook_endpoints/${encodeURIComponent(endpointId)}/deliveries/${encodeURIComponent(delivery.id)}`);
  return delivery;
}

export default async function webhookDeliveryRoutes(app: FastifyInstance, { edge }: { edge: Edge }) {
  route(app, contract.listWebhookDeliveriesEndpoint, async ({ params, query }, request) =>
    core.listWebhookDeliveries(edge, callerContext(request), params.endpoint_id, query),
  );
  route(app, contract.getWebhookDeliveryEndpoint, async ({ params }, request) =>
    core.getWebhookDelivery(edge, callerContext(request), params.endpoint_id, params.delivery_id),
  );
  route(app, contract.resendWebhookDeliveryEndpoint, async ({ params }, request, reply) => {
    return queued(reply, params.endpoint_id, await core.resendWebhookDelivery(edge, callerContext(request), params.endpoint_id, params.delivery_id));
  });
  route(app, contract.sendTestWebhookEndpoint, async ({ params }, request, reply) => {
    return queued(reply, params.endpoint_id, await core.sendTestWebhook(edge, callerContext(request), params.endpoint_id));
  });
}
