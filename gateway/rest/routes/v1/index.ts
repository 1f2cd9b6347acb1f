// Every route of the v1 major version, mounted under /v1. A /v2 gets its own folder and index,
// served side by side.
import type { FastifyInstance } from 'fastify';
import type { Edge } from '../../../core/edge.js';
import discoveryRoutes from './discovery.js';
import enrichmentRoutes from './enrichment.js';
import eventRoutes from './events.js';
import webhookDeliveryRoutes from './webhook-deliveries.js';
import webhookEndpointRoutes from './webhook-endpoints.js';
import meRoutes from './me.js';
import membersReadRoutes from './members-read.js';
import membersWriteRoutes from './members-write.js';
import openapiRoutes from './openapi.js';
import profileRoutes from './profile.js';
import searchRoutes from './search.js';

export default async function v1Routes(app: FastifyInstance, { edge }: { edge: Edge }) {
  await app.register(meRoutes, { edge });
  await app.register(profileRoutes, { edge });
  await app.register(membersReadRoutes, { edge });
  await app.register(membersWriteRoutes, { edge });
  await app.register(searchRoutes, { edge });
  await app.register(enrichmentRoutes, { edge });
  await app.register(discoveryRoutes, { edge });
  await app.register(eventRoutes, { edge });
  await app.register(webhookEndpointRoutes, { edge });
  await app.register(webhookDeliveryRoutes, { edge });
  await app.register(openapiRoutes);
}
