// POST /v1/communities/{id}/members (bulk add) and DELETE /v1/communities/{id}/members/{profile_id}
// (erasure). Thin: the core with the validated input (route.ts), answered 200. Idempotency-Key is
// honoured on the POST only, as the endpoint table declares.
import type { FastifyInstance } from 'fastify';
import type { Edge } from '../../../core/edge.js';
import { addMembers, eraseMember, type AddMembersView, type ErasureView } from '../../../core/members-write.js';
import { addCommunityMembersEndpoint, eraseCommunityMemberEndpoint } from '../../../core/contract/members.js';
import { callerContext } from '../../plugins/authentication.js';
import { route } from './route.js';

export default async function membersWriteRoutes(app: FastifyInstance, { edge }: { edge: Edge }) {
  route(app, addCommunityMembersEndpoint, async ({ params, body }, request): Promise<AddMembersView> =>
    addMembers(edge, callerContext(request), params.id, body),
  );

  route(app, eraseCommunityMemberEndpoint, async ({ params }, request): Promise<ErasureView> =>
    eraseMember(edge, callerContext(request), params.id, params.profile_id),
  );
}
