// The wiring every entry point shares, built in one place: the gRPC clients and caller-token signer
// of a process that calls the services (the operator CLI, the MCP stdio entry, the launcher's edge
// roles), the edge core with its rate limiter that both surfaces (REST, MCP) stand on, and how the
// communities service renders a webhook delivery's data: by the edge's own event view.
import { createEdge, type Edge } from '../../gateway/core/edge.js';
import { eventView } from '../../gateway/core/events.js';
import type { WebhookDeliveryOptions } from '../../services/communities/webhook-worker.js';
import type { RateLimiter } from '../../services/kit/rate-limit/limiter.js';
import { MemoryRateLimiter } from '../../services/kit/rate-limit/memory-limiter.js';
import { RedisRateLimiter } from '../../services/kit/rate-limit/redis-limiter.js';
import { grpcAddressesOf, type Config, type ServiceRole } from '../../services/kit/config.js';
import { createServiceClients, type LocalClients, type ServiceClients } from '../../services/kit/grpc/client.js';
import { requireSigner, type TokenSigner, type TokenVerifier } from '../../services/kit/grpc/caller-token.js';
import { callMiddleware, type AnyServiceRegistration } from '../../services/kit/grpc/call-middleware.js';
import type { DirectCallers } from '../../services/kit/grpc/direct-callers.js';
import { inProcessClient } from '../../services/kit/grpc/in-process.js';
import type { Logger } from '../../services/kit/logger.js';
import type { MemoryCredentialStamps } from '../../services/kit/credential-stamps.js';
import type { Redis } from '../../services/kit/redis.js';
import { loadSecrets } from '../../services/kit/secrets.js';
import { grpcTransportOf } from './grpc-tls.js';
import type { GrpcTls } from '../../services/kit/tls.js';

export interface ServiceConnection {
  addresses: Record<ServiceRole, string>;
  clients: ServiceClients;
  /** Signs the caller tokens every service checks (the server secrets of this environment). */
  signer: TokenSigner;
  /** This process's certificate and CA when gRPC is mutual TLS (grpc-tls.ts). */
  tls?: GrpcTls;
}

/**
 * Clients of a running system's services at the configured addresses (or the ones given: the admin
 * CLI finds them in DATA_DIR), for a process that runs none of them itself; it must run where the
 * system's configuration is (same environment, DATA_DIR), which also says how gRPC is carried
 * (grpc-tls.ts; `name`: its certificate's, when one is made in DATA_DIR; `tlsRequired`: the
 * running system said it serves mutual TLS).
 */
export function connectToServices(config: Config, addresses: Record<ServiceRole, string> = grpcAddressesOf(config), name = 'operator', tlsRequired = false): ServiceConnection {
  const { tls } = grpcTransportOf(config, name, tlsRequired);
  const clients = createServiceClients(addresses, {}, { tls });
  const signer = requireSigner(loadSecrets(config));
  return { addresses, clients, signer, ...(tls && { tls }) };
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
 * their gRPC servers (caller token or a direct caller's credential, access list, NUL refusal): co-located roles skip the loopback
 * round trip; a service another process runs is still called over gRPC.
 */
export function inProcessClients(
  instances: Array<{ role: ServiceRole; registration: AnyServiceRegistration }>,
  verifier: TokenVerifier,
  logger: Logger,
  direct?: DirectCallers,
): LocalClients {
  const local: Record<string, unknown> = {};
  for (const { role, registration } of instances) {
    local[role] = inProcessClient(registration, callMiddleware({ services: [registration], verifier, logger, ...(direct && { direct }) }));
  }
  return local as LocalClients;
}

/**
 * The communities service's webhook delivery (docs/WEBHOOKS.md "Delivery"): an event's `data` is
 * what `GET /v1/events` shows for it (gateway/core/events.ts), handed in here because a service
 * never imports the edge. Undefined where WEBHOOK_DELIVERY=off: that process sends nothing.
 * `timeoutMs` replaces an attempt's 15 s for a suite only (SystemHooks).
 */
export function webhookDelivery(config: Config, timeoutMs?: number): WebhookDeliveryOptions | undefined {
  if (config.WEBHOOK_DELIVERY === 'off') return undefined;
  return { render: (event) => eventView(event).data, retrySchedule: config.WEBHOOK_RETRY_SCHEDULE, ...(timeoutMs !== undefined && { timeoutMs }) };
}
