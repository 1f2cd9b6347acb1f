// GET /v1/communities/{id}/members and GET /v1/communities/{id}/members/{profile_id}: the core
// use-case with the input validated by the endpoint table's schemas (route.ts).
import type { FastifyInstance } from 'fastify';
import type { Edge } from '../../../core/edge.js';
import { getMember, listMembers } from '../../../core/members-read.js';
import { getCommunityMemberEndpoint, listCommunityMembersEndpoint } from '../../../core/contract/members.js';
import { callerContext } from '../../plugins/authentication.js';
import { route } from './route.js';

export default async function membersReadRoutes(app: FastifyInstance, { edge }: { edge: Edge }) {
  route(app, listCommunityMembersEndpoint, async ({ params, query }, request) => listMembers(edge, callerContext(request), params.id, query));

  route(app, getCommunityMemberEndpoint, async ({ params }, request) => getMember(edge, callerContext(request), params.id, params.profile_id));
}
