// A communities-service context over a test database, for suites that drive the service's own
// modules (its durable tasks and sweeper) with the other services' clients given by the test.
import { createCommunitiesContext, type CommunitiesContext } from '../../services/communities/communities-context.js';
import type { Database } from '../../services/kit/db/database.js';
import type { TokenSigner } from '../../services/kit/grpc/caller-token.js';
import type { ServiceClients } from '../../services/kit/grpc/client.js';
import { createLogger } from '../../services/kit/logger.js';

export function communitiesContext(db: Database, clients: Partial<ServiceClients>): CommunitiesContext {
  return createCommunitiesContext({
    db,
    clients: clients as ServiceClients,
    signer: { sign: async () => 'token' } as unknown as TokenSigner,
    deadlineMs: 1000,
    logger: createLogger('silent'),
    pepper: 'x'.repeat(32),
  });
}
