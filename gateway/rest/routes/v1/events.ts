// GET /v1/events and GET /v1/events/{id}: the core with the validated input (route.ts).
import type { FastifyInstance } from 'fastify';
import type { Edge } from '../../../core/edge.js';
import { getEvent, listEvents } from '../../../core/events.js';
import { getEventEndpoint, listEventsEndpoint } from '../../../core/contract/events.js';
import { callerContext } from '../../plugins/authentication.js';
import { route } from './route.js';

export default async function eventRoutes(app: FastifyInstance, { edge }: { edge: Edge }) {
  route(app, listEventsEndpoint, async ({ query }, request) => listEvents(edge, callerContext(request), query));

  route(app, getEventEndpoint, async ({ params }, request) => getEvent(edge, callerContext(request), params.event_id));
}
