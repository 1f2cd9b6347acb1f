import type { FastifyInstance } from 'fastify';
import type { Edge } from '../../../core/edge.js';
import { getMe } from '../../../core/me.js';
import { getMeEndpoint, type MeResponse } from '../../../core/contract/me.js';
import { callerContext } from '../../plugins/authentication.js';
import { route } from './route.js';

export default async function meRoutes(app: FastifyInstance, { edge }: { edge: Edge }) {
  // Any valid scope may read its own identity. The answer is typed by the contract's MeResponse
  // (the schema docs/openapi.json publishes), so the two cannot drift apart; serialization is
  // Fastify's default, unchanged.
  // `describeCaller`: authentication fetches the credential's description in the same identity call.
  route(app, getMeEndpoint, async (_input, request): Promise<MeResponse> => getMe(edge, callerContext(request)), { describeCaller: true });
}
