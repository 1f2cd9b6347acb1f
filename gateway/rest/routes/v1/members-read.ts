// GET /v1/communities/{id}/members and GET /v1/communities/{id}/members/{profile_id}: validate with
// the contract's schemas (the OpenAPI document is built from them), then the core use-case.
import type { FastifyInstance } from 'fastify';
import type { Edge } from '../../../core/edge.js';
import { getMember, listMembers } from '../../../core/members-read.js';
import { CommunityParams, MemberParams, RosterQuery } from '../../../core/contract/members.js';
import { callerContext } from '../../plugins/authentication.js';
import { validated } from '../../validate.js';

export default async function membersReadRoutes(app: FastifyInstance, { edge }: { edge: Edge }) {
  app.get('/communities/:id/members', { config: { scope: 'profile:read' } }, async (request) => {
    const { id } = validated(CommunityParams, request.params, 'path');
    const query = validated(RosterQuery, request.query, 'query');
    return listMembers(edge, callerContext(request), id, query);
  });

  app.get('/communities/:id/members/:profile_id', { config: { scope: 'profile:read' } }, async (request) => {
    const { id, profile_id } = validated(MemberParams, request.params, 'path');
    return getMember(edge, callerContext(request), id, profile_id);
  });
}
