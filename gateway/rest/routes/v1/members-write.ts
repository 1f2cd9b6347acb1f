// POST /v1/communities/{id}/members (bulk add) and DELETE /v1/communities/{id}/members/{profile_id} (erasure).
import type { FastifyInstance } from 'fastify';
import type { Edge } from '../../../core/edge.js';

export default async function membersWriteRoutes(_app: FastifyInstance, _options: { edge: Edge }) {}
