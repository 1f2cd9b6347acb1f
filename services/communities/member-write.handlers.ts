// Member writes: bulk add and erasure, behind write gating; the consent queue.
import type { CommunitiesServiceDefinition } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import type { ServiceRegistration } from '../kit/grpc/server.js';
import type { HandlerContext } from './handler-context.js';

type Handlers = ServiceRegistration<typeof CommunitiesServiceDefinition>['implementation'];

export function createMemberWriteHandlers(
  _context: HandlerContext,
): Pick<Handlers, 'addMembers' | 'removeMember' | 'listConsentRequests' | 'resolveConsentRequest'> {
  return {};
}
