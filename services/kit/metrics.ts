// Prometheus metrics, served on the admin port only (/metrics; the public port answers 401): RED
// per HTTP route and per gRPC method (server and client side), error answers by API error code,
// the health of each dependency, rate-limit refusals, and the process's own
// (event loop, heap, GC). One registry per process. A feature adds its metric here, next to the
// code that moves it, and docs/OBSERVABILITY.md says what to alert on. docs/OBSERVABILITY.md.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export const registry = new Registry();
collectDefaultMetrics({ register: registry });

/** Seconds: from 5 ms to 10 s, the range of an API call. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** What expertnet_dependency_up reports: each dependency's probe outcome, read at each scrape. */
let dependencyProbe: (() => Promise<Record<string, boolean>>) | undefined;

/** Sets how this process probes its dependencies (the launcher: deploy/launcher/runtime.ts); undefined clears it. */
export function probeDependenciesWith(probe: (() => Promise<Record<string, boolean>>) | undefined): void {
  dependencyProbe = probe;
}

export const metrics = {
  httpRequests: new Counter({
    name: 'http_server_requests_total',
    help: 'HTTP requests answered by the REST edge, by route template and status class (2xx, 4xx, 5xx…).',
    labelNames: ['method', 'route', 'status_class'] as const,
    registers: [registry],
  }),
  httpDuration: new Histogram({
    name: 'http_server_request_duration_seconds',
    help: 'Time to answer an HTTP request on the REST edge, by route template and status class.',
    labelNames: ['method', 'route', 'status_class'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  }),
  grpcHandled: new Counter({
    name: 'grpc_server_handled_total',
    help: 'gRPC calls served, by service, method and status code name (OK, NOT_FOUND, INTERNAL…).',
    labelNames: ['grpc_service', 'grpc_method', 'grpc_code'] as const,
    registers: [registry],
  }),
  grpcDuration: new Histogram({
    name: 'grpc_server_handling_seconds',
    help: 'Time to serve a gRPC call, by service and method.',
    labelNames: ['grpc_service', 'grpc_method'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  }),
  rateLimitRefusals: new Counter({
    name: 'rate_limit_refusals_total',
    help: 'Requests refused by the edge rate limiter (REST and MCP), by the limit that refused them (burst, daily).',
    labelNames: ['refused_by'] as const,
    registers: [registry],
  }),
  searchesFinished: new Counter({
    name: 'search_jobs_finished_total',
    help: 'Search jobs that reached an end state in this process, by outcome (complete, failed).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  }),
  searchLatency: new Histogram({
    name: 'search_job_duration_seconds',
    help: 'Time from a search job being created to its result being stored (or its failure), by outcome.',
    labelNames: ['outcome'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 25, 60],
    registers: [registry],
  }),
  enrichmentProfiles: new Counter({
    name: 'enrichment_profiles_total',
    help: 'People worked by enrichment runs in this process, by depth and outcome (succeeded, failed, skipped, charged).',
    labelNames: ['depth', 'outcome'] as const,
    registers: [registry],
  }),
  enrichmentRunsFinished: new Counter({
    name: 'enrichment_runs_finished_total',
    help: 'Enrichment runs that reached an end state in this process, by kind (self, community) and outcome.',
    labelNames: ['kind', 'outcome'] as const,
    registers: [registry],
  }),
  creditsCharged: new Counter({
    name: 'credits_charged_total',
    help: 'Credits debited by new ledger entries in this process (retries that found their entry are not counted), by operation.',
    labelNames: ['operation'] as const,
    registers: [registry],
  }),
  requestLogDropped: new Counter({
    name: 'request_log_dropped_total',
    help: 'Answered requests the edge left out of the request log, by reason (full: its buffer was full; unsent: identity did not take the batch).',
    labelNames: ['reason'] as const,
    registers: [registry],
  }),
  grpcClientHandled: new Counter({
    name: 'grpc_client_handled_total',
    help: 'gRPC calls made to another process, by target service (identity, communities, search, enrichment, billing), method and status code name.',
    labelNames: ['grpc_target_service', 'grpc_method', 'grpc_code'] as const,
    registers: [registry],
  }),
  grpcClientDuration: new Histogram({
    name: 'grpc_client_handling_seconds',
    help: 'Time from a gRPC call to another process to its answer or failure, by target service and method.',
    labelNames: ['grpc_target_service', 'grpc_method'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  }),
  apiErrors: new Counter({
    name: 'api_errors_total',
    help: 'Error answers of the API, by surface (rest, mcp, settings) and API error code (unauthorized, forbidden, rate_limited, unavailable…).',
    labelNames: ['surface', 'code'] as const,
    registers: [registry],
  }),
  dependencyUp: new Gauge({
    name: 'expertnet_dependency_up',
    help: 'Whether a dependency of this process answers its probe (1) or not (0), probed when /metrics is scraped: each service it calls over gRPC (its gRPC health), postgres, redis.',
    labelNames: ['dependency'] as const,
    registers: [registry],
    async collect() {
      const outcomes = dependencyProbe ? await dependencyProbe().catch(() => ({})) : {};
      this.reset();
      for (const [dependency, up] of Object.entries(outcomes)) this.set({ dependency }, up ? 1 : 0);
    },
  }),
  rateLimitChecks: new Counter({
    name: 'rate_limit_checks_total',
    help: 'Rate-limit checks made by the edge (REST and MCP); refusals are counted apart.',
    registers: [registry],
  }),
};

/** A gauge whose value is read when /metrics is scraped (queue depths: the store is the truth). */
export function gaugeFromStore(name: string, help: string, read: () => Promise<number>): Gauge {
  const existing = registry.getSingleMetric(name);
  if (existing) registry.removeSingleMetric(name); // a second service instance in one process (tests)
  return new Gauge({
    name,
    help,
    registers: [registry],
    async collect() {
      this.set(await read());
    },
  });
}

/** 200 → "2xx". */
export function statusClass(status: number): string {
  return `${Math.floor(status / 100)}xx`;
}

/** "/expertnet.identity.v1.IdentityService/Authenticate" → ["expertnet.identity.v1.IdentityService", "Authenticate"]. */
export function splitGrpcPath(path: string): [service: string, method: string] {
  const slash = path.lastIndexOf('/');
  return [path.slice(1, slash), path.slice(slash + 1)];
}

/** The Prometheus text exposition of every metric of this process. */
export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}
