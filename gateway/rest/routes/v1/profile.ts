import type { FastifyInstance } from 'fastify';
import type { Edge } from '../../../core/edge.js';
import { getOwnProfile } from '../../../core/profile.js';
import { callerContext } from '../../plugins/authentication.js';

export default async function profileRoutes(app: FastifyInstance, { edge }: { edge: Edge }) {
  app.get('/me/profile', { config: { scope: 'profile:read' } }, async (request) => getOwnProfile(edge, callerContext(request)));
}
