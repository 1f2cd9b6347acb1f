// The webhook endpoint routes: the core with the validated input (route.ts). A creation answers 201.
import type { FastifyInstance } from 'fastify';
import type { Edge } from '../../../core/edge.js';
import * as core from '../../../core/webhook-endpoints.js';
import * as contract from '../../../core/contract/webhook-endpoints.js';
import { callerContext } from '../../plugins/authentication.js';
import { route } from './route.js';

export default async function webhookEndpointRoutes(app: FastifyInstance, { edge }: { edge: Edge }) {
  route(app, contract.createWebhookEndpointEndpoint, async ({ body }, request, reply) => {
    const created = await core.createWebhookEndpoint(edge, callerContext(request), body);
    reply.code(201);
    return created;
  });
  route(app, contract.listWebhookEndpointsEndpoint, async (_input, request) => core.listWebhookEndpoints(edge, callerContext(request)));
  route(app, contract.getWebhookEndpointEndpoint, async ({ params }, request) => core.getWebhookEndpoint(edge, callerContext(request), params.endpoint_id));
  route(app, contract.updateWebhookEndpointEndpoint, async ({ params, body }, request) =>
    core.updateWebhookEndpoint(edge, callerContext(request), params.endpoint_id, body),
  );
  route(app, contract.deleteWebhookEndpointEndpoint, async ({ params }, request) => core.deleteWebhookEndpoint(edge, callerContext(request), params.endpoint_id));
  route(app, contract.rotateWebhookSecretEndpoint, async ({ params }, request) => core.rotateWebhookSecret(edge, callerContext(request), params.endpoint_id));
}
