// Roster reads: list members (keyset pages) and read one enriched member.
import type { CommunitiesServiceDefinition } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import type { ServiceRegistration } from '../kit/grpc/server.js';
import type { HandlerContext } from './handler-context.js';

type Handlers = ServiceRegistration<typeof CommunitiesServiceDefinition>['implementation'];

export function createRosterHandlers(_context: HandlerContext): Pick<Handlers, 'listMembers' | 'getMember'> {
  return {};
}
