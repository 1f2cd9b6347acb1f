// The wiring every entry point shares, built in one place: the gRPC clients and caller-token signer
// of a process that calls the services (the operator CLI, the MCP stdio entry, the launcher's edge
// roles), and the edge core with its rate limiter that both surfaces (REST, MCP) stand on.
import { createEdge, type Edge } from '../../gateway/core/edge.js';
import type { RateLimiter } from '../../services/kit/rate-limit/limiter.js';
import { MemoryRateLimiter } from '../../services/kit/rate-limit/memory-limiter.js';
import { RedisRateLimiter } from '../../services/kit/rate-limit/redis-limiter.js';
import { grpcAddressesOf, type Config, type ServiceRole } from '../../services/kit/config.js';
import { createServiceClients, type LocalClients, type ServiceClients } from '../../services/kit/grpc/client.js';
import { TokenSigner, type TokenVerifier } from '../../services/kit/grpc/caller-token.js';
import { callMiddleware, type AnyServiceRegistration } from '../../services/kit/grpc/call-middleware.js';
import { inProcessClient } from '../../services/kit/grpc/in-process.js';
import type { Logger } from '../../services/kit/logger.js';
import type { MemoryCredentialStamps } from '../../services/kit/credential-stamps.js';
import type { Redis } from '../../services/kit/redis.js';
import { loadSecrets } from '../../services/kit/secrets.js';

export interface ServiceConnection {
  addresses: Record<ServiceRole, string>;
  clients: ServiceClients;
  /** Signs the caller tokens every service checks (the server secrets of this environment). */
  signer: TokenSigner;
}

/**
 * Clients of a running system's services at the configured addresses (or the ones given: the admin
 * CLI finds them in DATA_DIR), for a process that runs none of them itself; it must run where the
 * system's configuration is (same environment, DATA_DIR).
 */
export function connectToServices(config: Config, addresses: Record<ServiceRole, string> = grpcAddressesOf(config)): ServiceConnection {
  const clients = createServiceClients(addresses);
  const signer = new TokenSigner(loadSecrets(config).callerTokenPrivateKey);
  return { addresses, clients, signer };
}

/** The edge core over the services' clients: credentials, scopes and calls, for both surfaces. */
export function edgeOver(config: Config, clients: ServiceClients, signer: TokenSigner): Edge {
  return createEdge({ clients, signer, deadlineMs: config.GRPC_DEADLINE_MS });
}

/**
 * The edge's rate limiter: shared by every replica through Redis when there is one, else kept in
 * this process (with the credential stamps identity publishes here, when it runs here too).
 */
export function edgeLimiter(config: Config, redis: Redis | undefined, stamps?: MemoryCredentialStamps): RateLimiter {
  return redis ? new RedisRateLimiter(redis, { prefix: config.RATE_LIMIT_PREFIX }) : new MemoryRateLimiter({ ...(stamps && { stamps }) });
}

/**
 * Clients of the services this process runs, called in process through the same middlewares as
 * their gRPC servers (caller token, access list, NUL refusal): co-located roles skip the loopback
 * round trip; a service another process runs is still called over gRPC.
 */
export function inProcessClients(instances: Array<{ role: ServiceRole; registration: AnyServiceRegistration }>, verifier: TokenVerifier, logger: Logger): LocalClients {
  const local: Record<string, unknown> = {};
  for (const { role, registration } of instances) {
    local[role] = inProcessClient(registration, callMiddleware({ services: [registration], verifier, logger }));
  }
  return local as LocalClients;
}
