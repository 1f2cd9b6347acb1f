// GET /v1/communities/{id}/members and GET /v1/communities/{id}/members/{profile_id}.
import type { FastifyInstance } from 'fastify';
import type { Edge } from '../../../core/edge.js';

export default async function membersReadRoutes(_app: FastifyInstance, _options: { edge: Edge }) {}
