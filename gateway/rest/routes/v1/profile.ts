import type { FastifyInstance } from 'fastify';
import type { Edge } from '../../../core/edge.js';
import { getOwnProfile } from '../../../core/profile.js';
import { getOwnProfileEndpoint } from '../../../core/contract/me.js';
import { callerContext } from '../../plugins/authentication.js';
import { route } from './route.js';

export default async function profileRoutes(app: FastifyInstance, { edge }: { edge: Edge }) {
  route(app, getOwnProfileEndpoint, async (_input, request) => getOwnProfile(edge, callerContext(request)));
}
