import type { FastifyInstance } from 'fastify';
import type { Edge } from '../../../core/edge.js';
import { getMe } from '../../../core/me.js';
import { callerContext } from '../../plugins/authentication.js';

export default async function meRoutes(app: FastifyInstance, { edge }: { edge: Edge }) {
  // Any valid scope may read its own identity.
  app.get('/me', async (request) => getMe(edge, callerContext(request)));
}
