// POST /v1/communities/{id}/members (bulk add) and DELETE /v1/communities/{id}/members/{profile_id} (erasure).
// Thin: validate with the contract's schemas, call the core, answer 200. Idempotency-Key is
// honoured on the POST only (the idempotency plugin reads `idempotent`); the DELETE ignores it.
import type { FastifyInstance } from 'fastify';
import type { Edge } from '../../../core/edge.js';
import { addMembers, eraseMember, type AddMembersView, type ErasureView } from '../../../core/members-write.js';
import { AddMembersRequest, CommunityParams, MemberParams } from '../../../core/contract/members.js';
import { callerContext } from '../../plugins/authentication.js';
import { validated } from '../../validate.js';

export default async function membersWriteRoutes(app: FastifyInstance, { edge }: { edge: Edge }) {
  app.post('/communities/:id/members', { config: { scope: 'member:write', idempotent: true } }, async (request): Promise<AddMembersView> => {
    const { id } = validated(CommunityParams, request.params, 'path');
    const body = validated(AddMembersRequest, request.body, 'body');
    return addMembers(edge, callerContext(request), id, body);
  });

  app.delete('/communities/:id/members/:profile_id', { config: { scope: 'member:write' } }, async (request): Promise<ErasureView> => {
    const { id, profile_id } = validated(MemberParams, request.params, 'path');
    return eraseMember(edge, callerContext(request), id, profile_id);
  });
}
