// What a process reports as expertnet_dependency_up (services/kit/metrics.ts) at each scrape: its
// store (postgres) and Redis — the same probes as its readiness — and, for an edge process, each
// service it calls over gRPC (its gRPC health, on a channel of its own). A service down is not a
// readiness failure of the edge: only the routes that call it answer 503 `unavailable`, so the
// edge stays in its load balancer for everything else (docs/OPERATIONS.md "Readiness").
import type { ServiceRole } from '../../services/kit/config.js';
import { checkGrpcHealth } from '../../services/kit/grpc/health.js';
import type { GrpcTls } from '../../services/kit/tls.js';
import { runChecks, type ReadinessChecks } from './admin-server.js';

/** Readiness check names → dependency labels. */
const LABEL_OF_CHECK: Record<string, string> = { database: 'postgres', redis: 'redis' };

export function dependencyProbe(
  readiness: ReadinessChecks,
  services: { roles: ServiceRole[]; addresses: Record<ServiceRole, string>; tls?: GrpcTls | undefined },
  timeoutMs: number,
): () => Promise<Record<string, boolean>> {
  const probes: ReadinessChecks = {};
  for (const [name, label] of Object.entries(LABEL_OF_CHECK)) if (readiness[name]) probes[label] = readiness[name];
  for (const role of services.roles) probes[role] = () => checkGrpcHealth(services.addresses[role], '', timeoutMs, services.tls);
  return async () => {
    const outcome = await runChecks(probes, timeoutMs);
    return Object.fromEntries(Object.entries(outcome.checks).map(([name, state]) => [name, state === 'ok']));
  };
}
