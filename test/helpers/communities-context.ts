// A communities-service handler context over a test database, for suites that drive the service's
// own modules (its durable tasks and sweeper) with the other services' clients given by the test.
import type { HandlerContext } from '../../services/communities/handler-context.js';
import { createCommunityRepository } from '../../services/communities/community.repository.js';
import type { Database } from '../../services/kit/db/database.js';
import type { TokenSigner } from '../../services/kit/grpc/caller-token.js';
import type { ServiceClients } from '../../services/kit/grpc/client.js';
import { createLogger } from '../../services/kit/logger.js';

export function communitiesContext(db: Database, clients: Partial<ServiceClients>): HandlerContext {
  const deps = {
    db,
    clients: clients as ServiceClients,
    signer: { sign: async () => 'token' } as unknown as TokenSigner,
    deadlineMs: 1000,
    logger: createLogger('silent'),
    pepper: 'x'.repeat(32),
  };
  return { deps, repo: createCommunityRepository(db), reachDeps: { db, clients: deps.clients, signer: deps.signer, deadlineMs: 1000 } };
}
