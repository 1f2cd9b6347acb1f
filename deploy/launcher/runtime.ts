// The one place that knows every role. It starts the roles a process runs (ROLES): each service
// on its own gRPC server with its own schema and migrations, and the edge calling services through
// their generated gRPC interfaces — in process for the services this process runs (the same
// middlewares and checks, no loopback HTTP/2), over gRPC for the others (deploy/k8s, deploy/local).
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { parseDeprecations } from '../../gateway/core/deprecations.js';
import { answerWhileStarting } from '../../gateway/core/early-server.js';
import type { RateLimitDecision, RateLimiter } from '../../services/kit/rate-limit/limiter.js';
import { startMcpHttpServer } from '../../gateway/mcp/server.js';
import type { OutgoingFetch } from '../../gateway/settings/authorization-server.js';
import { buildRestApp } from '../../gateway/rest/app.js';
import { applySeed } from '../admin/apply-seed.js';
import { demoSeed } from '../admin/demo-data.js';
import { createBillingService } from '../../services/billing/billing.service.js';
import { createCommunitiesService } from '../../services/communities/communities.service.js';
import { createEnrichmentService } from '../../services/enrichment/enrichment.service.js';
import { oauthOptionsFrom } from '../../services/identity/access-token.js';
import { createIdentityService } from '../../services/identity/identity.service.js';
import { createSearchService } from '../../services/search/search.service.js';
import { startAdminServer, type ReadinessChecks } from './admin-server.js';
import { dependencyProbe } from './dependency-probes.js';
import { EDGE_ROLES, grpcAddressesOf, SERVICE_ROLES, type Config, type ServiceRole } from '../../services/kit/config.js';
import type { Database } from '../../services/kit/db/database.js';
import { migrateAll } from '../../services/kit/db/migrations.js';
import { openDatabase } from '../../services/kit/db/open-database.js';
import { callAs, createServiceClients, type ServiceClients } from '../../services/kit/grpc/client.js';
import { requireSigner, TokenVerifier, type TokenSigner } from '../../services/kit/grpc/caller-token.js';
import { createDirectCallers } from '../../services/kit/grpc/direct-callers.js';
import { checkGrpcHealth } from '../../services/kit/grpc/health.js';
import { startGrpcServer, type AnyServiceRegistration, type RunningGrpcServer } from '../../services/kit/grpc/server.js';
import type { Logger } from '../../services/kit/logger.js';
import { metrics, probeDependenciesWith } from '../../services/kit/metrics.js';
import { MemoryCredentialStamps, RedisCredentialStamps } from '../../services/kit/credential-stamps.js';
import { connectRedis, redisBoundsOf, type Redis } from '../../services/kit/redis.js';
import { DependencyState } from '../../services/kit/dependencies/state.js';
import { loadSecrets, type ServerSecrets } from '../../services/kit/secrets.js';
import type { ServiceDeps } from '../../services/kit/service-deps.js';
import { startSettingsSurface } from './settings-surface.js';
import { oauthIssuerOf } from '../../services/kit/public-urls.js';
import { urlHost } from '../../services/kit/url-host.js';
import { mintSignInLink, type SignInLink } from './sign-in-link.js';
import { edgeLimiter, edgeOver, inProcessClients, webhookDelivery } from './wiring.js';
import { grpcTransportOf } from './grpc-tls.js';
import type { GrpcTls } from '../../services/kit/tls.js';

/** The demo data set's key and user (deploy/admin/demo-data.ts). */
const DEMO_KEY_ID = 'key_demo';
const DEMO_USER_ID = 'u_demo';

interface ServiceInstance {
  registration: AnyServiceRegistration;
  stop(): Promise<void>;
}

/** The edge's limiter, counting its checks and refusals (both surfaces, REST and MCP). */
function counted(limiter: RateLimiter): RateLimiter {
  const count = (decision: RateLimitDecision) => {
    metrics.rateLimitChecks.inc();
    if (!decision.allowed) metrics.rateLimitRefusals.inc({ refused_by: decision.refusedBy ?? 'unknown' });
    return decision;
  };
  return {
    async check(key, nowMs) {
      return count(await limiter.check(key, nowMs));
    },
    // A stale stamp counted nothing: the request is checked again once read live.
    async checkStamped(key, stamp, nowMs) {
      const decision = await limiter.checkStamped(key, stamp, nowMs);
      return decision === 'stale' ? decision : count(decision);
    },
  };
}

/** Every service: how to build it. Its schema is named after it; its migrations sit in its folder. */
const SERVICE_FACTORIES: Record<ServiceRole, (deps: ServiceDeps, config: Config, secrets: ServerSecrets, hooks: SystemHooks) => ServiceInstance> = {
  identity: (d, config, secrets) => createIdentityService(d, { oauth: oauthOptionsFrom(config, secrets) }),
  communities: (d, config, _s, hooks) =>
    createCommunitiesService(d, { webhookAllowPrivateUrls: config.WEBHOOK_ALLOW_PRIVATE_URLS, webhooks: webhookDelivery(config, hooks.webhookTimeoutMs) }),
  search: (d, config) => createSearchService(d, { worker: { leaseMs: config.SEARCH_JOB_LEASE_MS } }),
  enrichment: (d, config) => createEnrichmentService({ ...d, config }),
  billing: (d, config) => createBillingService({ ...d, enforcement: config.CREDIT_ENFORCEMENT === 'on' }),
};

export interface RunningSystem {
  restUrl?: string;
  /** The MCP endpoint (streamable HTTP), when this process runs the mcp role. */
  mcpUrl?: string;
  /** The settings web app, served beside the REST API (gateway role). */
  settingsUrl?: string;
  /** One-time sign-in links minted at this start (the demo user's on a first start), by user id. */
  signInLinks: Record<string, SignInLink>;
  adminUrl?: string;
  grpcAddresses: Record<ServiceRole, string>;
  /** How gRPC is carried (mutual TLS or plaintext, and why), said in one start-up line (grpc-tls.ts). */
  grpcTransport: string;
  /** This process's gRPC is mutual TLS. */
  grpcTls: boolean;
  /** Secrets of keys minted while seeding at this start (the demo key on a first start). */
  mintedKeys: Record<string, string>;
  clients: ServiceClients;
  /** The edge's signer, in a process that runs an edge role (a process of services only signs nothing). */
  signer?: TokenSigner;
  /** This process's store, when it runs a service or an edge surface (suites compare stored state). */
  db?: Database;
  stop(): Promise<void>;
}

async function waitForServices(
  addresses: Record<ServiceRole, string>,
  logger: Logger,
  tls: GrpcTls | undefined,
  services: readonly ServiceRole[] = SERVICE_ROLES,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const service of services) {
    while (!(await checkGrpcHealth(addresses[service], '', 2000, tls))) {
      if (Date.now() > deadline) throw new Error(`${service} at ${addresses[service]} did not become healthy`);
      logger.info({ service }, 'waiting for service');
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/**
 * Seeds SEED_FILE when set; otherwise the demo data set, once, on the first start of an empty
 * store. A store seeded before (from a file, or the demo set) just starts; so does a store that
 * holds users but was seeded before the seed ledger recorded it (it is marked seeded now).
 */
async function seedAtStart(config: Config, clients: ServiceClients, signer: TokenSigner, everyServiceReady: () => Promise<void>): Promise<Record<string, string>> {
  if (config.SEED_FILE) {
    const doc = JSON.parse(readFileSync(config.SEED_FILE, 'utf8')) as unknown;
    await everyServiceReady();
    return (await applySeed(clients, signer, doc, { actor: 'seed-file', deadlineMs: config.GRPC_DEADLINE_MS })).keys;
  }
  // Asked as the edge: a serving process holds no operator key (the seeding below, of an empty
  // store only, acts as the operator: in process, or with a local data folder's operator key).
  const state = await clients.identity.getSeedState({}, await callAs(signer, { kind: 'edge' }, undefined, config.GRPC_DEADLINE_MS));
  if (state.seededBy) return {};
  if (!state.storeEmpty) {
    const operator = await callAs(signer, { kind: 'operator', actor: 'demo-seed' }, undefined, config.GRPC_DEADLINE_MS);
    await clients.identity.recordSeedRecords({ records: [], seededBy: 'before-seed-ledger' }, operator);
    return {};
  }
  await everyServiceReady();
  return (await applySeed(clients, signer, demoSeed(), { actor: 'demo-seed', deadlineMs: config.GRPC_DEADLINE_MS })).keys;
}

/** Fastify's own keep-alive for the servers it creates: longer than a proxy's idle timeout (Envoy, load balancers). */
const KEEP_ALIVE_MS = 72_000;

/** An HTTP server bound to host:port (0: the OS picks) that answers 503 until its surface takes it over (the REST, MCP and settings ports). */
async function bindHttp(host: string, port: number): Promise<Server> {
  // A request without Host reaches the surfaces, which refuse it in their own envelope.
  const server = answerWhileStarting(createServer({ requireHostHeader: false }));
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, () => resolve()));
  return server;
}

/** What an embedding program (the suite) may hand the system beside its configuration. */
export interface SystemHooks {
  /** How the authorization server fetches client ID metadata documents (authorization-server.ts). */
  clientMetadataFetch?: OutgoingFetch;
  /** Opens this process's store in place of DATABASE_URL or DATA_DIR (a suite hands a copy of a store migrated once). */
  openDatabase?: () => Promise<Database>;
  /** One webhook delivery attempt's deadline in place of 15 s (a suite's slow receiver; never an operator's setting). */
  webhookTimeoutMs?: number;
}

export async function startSystem(configured: Config, logger: Logger, hooks: SystemHooks = {}): Promise<RunningSystem> {
  let config = configured;
  const roles = new Set(config.ROLES);
  const deprecations = parseDeprecations(config.API_DEPRECATIONS);
  const localServices = SERVICE_ROLES.filter((s) => roles.has(s));
  const secrets = loadSecrets(config);
  const edgeHere = EDGE_ROLES.some((role) => roles.has(role));
  // The edge roles sign caller tokens; services sign nothing: they forward the token of the call
  // they serve, and their client certificates name them (services/kit/grpc/acting.ts, peer-role.ts).
  const signer = edgeHere ? requireSigner(secrets) : undefined;
  const verifier = new TokenVerifier(secrets);
  const transport = grpcTransportOf(config);
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch((err) => logger.error({ err }, 'shutdown step failed'));
  };

  try {
    // The REST audience names the REST port, the MCP resource URL the MCP port, and the OAuth issuer
    // the settings app's port (public-urls.ts, mcp-resource.ts); identity must know them all when it
    // starts. A port given by number is known already and opens when its surface starts, after the
    // seed is applied. A port of 0 is bound first — only the bound socket can tell which port the
    // OS picked — and answers 503 until its surface is ready (early-server.ts).
    const bindPublic = async (port: number): Promise<Server> => {
      const listener = await bindHttp(config.HOST, port);
      stops.push(() => new Promise<void>((resolve) => listener.close(() => resolve())));
      return listener;
    };
    const bindIfAny = (wanted: boolean, port: number) => (wanted && port === 0 ? bindPublic(0) : undefined);
    const restListener = await bindIfAny(roles.has('gateway'), config.PORT);
    const mcpListener = await bindIfAny(roles.has('mcp'), config.MCP_PORT);
    const settingsListener = await bindIfAny(roles.has('gateway'), config.SETTINGS_PORT);
    config = {
      ...config,
      ...(restListener && { PORT: (restListener.address() as AddressInfo).port }),
      ...(mcpListener && { MCP_PORT: (mcpListener.address() as AddressInfo).port }),
      ...(settingsListener && { SETTINGS_PORT: (settingsListener.address() as AddressInfo).port }),
    };
    const checks: ReadinessChecks = {};
    // Redis and the store log their outages here, once per change (services/kit/dependencies/state.ts).
    const stateOf = (dependency: 'redis' | 'database') => new DependencyState(dependency, { logger, repeatMs: config.DEPENDENCY_LOG_REPEAT_SECONDS * 1000 });
    let db: Database | undefined;
    // Services keep their schemas here; the gateway keeps its idempotency records.
    // An edge surface (REST or MCP) keeps idempotency records in the edge schema.
    if (localServices.length > 0 || edgeHere) {
      db = await (hooks.openDatabase ? hooks.openDatabase() : openDatabase(config, stateOf('database')));
      const opened = db;
      stops.push(() => opened.close());
      const applied = await migrateAll(db, edgeHere ? [...localServices, 'edge'] : localServices);
      if (applied.length > 0) logger.info({ applied }, 'migrations applied');
      checks.database = async () => (await opened.query('SELECT 1 AS ok')).length === 1;
      if (db.engine === 'pglite') logger.info({ dataDir: config.DATA_DIR }, 'using the embedded store (PGlite)');
    }

    // Clients are built once every local server is listening (ports may be chosen by the OS).
    const addresses = grpcAddressesOf(config);
    let clients: ServiceClients | undefined;
    const lazyClients = new Proxy({} as ServiceClients, {
      get: (_t, name) => (clients as unknown as Record<string | symbol, unknown>)[name],
    });
    let redis: Redis | undefined;
    // Every service takes internal teams' own credentials too, and spends their buckets in the same
    // limiter as the edge (direct-callers.ts): shared through Redis when there is one.
    if (config.REDIS_URL && (edgeHere || localServices.length > 0)) {
      redis = await connectRedis(config.REDIS_URL, { bounds: redisBoundsOf(config), state: stateOf('redis') });
      const connected = redis;
      stops.push(async () => void connected.disconnect());
      checks.redis = async () => (await connected.ping()) === 'PONG';
    } else if (edgeHere || localServices.length > 0) {
      logger.info('no REDIS_URL: rate limits are kept in this process (correct for one process only)');
    }
    // Identity caches API keys' callers only where the edge's limiter checks their stamps: in Redis,
    // or in this process when it runs both (docs/CREDENTIAL-CACHE.md).
    const memoryStamps = !redis && edgeHere && roles.has('identity') ? new MemoryCredentialStamps() : undefined;
    const credentialStamps = redis ? new RedisCredentialStamps(redis, config.RATE_LIMIT_PREFIX) : memoryStamps;

    // Both surfaces and the services' direct door stand on one limiter: the same buckets.
    const limiter = counted(edgeLimiter(config, redis, memoryStamps));
    const direct = createDirectCallers({ clients: lazyClients, service: localServices.join('+'), limiter, deadlineMs: config.GRPC_DEADLINE_MS });
    const servers: RunningGrpcServer[] = [];
    const instances: ServiceInstance[] = [];
    for (const service of localServices) {
      const instance = SERVICE_FACTORIES[service]({
        db: db!, pepper: secrets.apiKeyPepper, clients: lazyClients, ...(signer && { signer }), deadlineMs: config.GRPC_DEADLINE_MS, logger,
        ...(credentialStamps && { credentialStamps }),
      }, config, secrets, hooks);
      const server = await startGrpcServer({
        address: addresses[service], services: [instance.registration], verifier, logger, tls: transport.tls, direct,
      });
      servers.push(server);
      addresses[service] = server.address;
      instances.push(instance);
      stops.push(() => server.shutdown());
      logger.info({ service, address: server.address }, 'gRPC service listening');
    }
    // The services running here are called in process (same interfaces and checks, no loopback
    // HTTP/2); their gRPC servers still serve the other processes of a topology and the tools.
    clients = createServiceClients(addresses, inProcessClients(localServices.map((role, i) => ({ role, registration: instances[i]!.registration })), verifier, logger, direct), { logger, tls: transport.tls });
    const builtClients = clients;
    stops.push(async () => builtClients.close());
    // The request log of direct callers is sent before the clients close (stops run in reverse).
    stops.push(() => direct.stop());
    // Stopped before the clients close (shutdown runs in reverse): background workers finish or
    // pause their work while they can still call the other services.
    stops.push(async () => void (await Promise.all(instances.map((i) => i.stop()))));

    const result: RunningSystem = {
      grpcAddresses: addresses, grpcTransport: transport.said, grpcTls: transport.tls !== undefined, mintedKeys: {}, signInLinks: {}, clients,
      ...(signer && { signer }), ...(db && { db }), stop: stopAll,
    };
    // Both surfaces stand on one edge core: the same credentials and scopes.
    const edge = signer && edgeOver(config, clients, signer);
    // What waits for the request log is sent before the clients close (stops run in reverse).
    if (edge) stops.push(() => edge.requestLog.stop());
    if (edgeHere) {
      // Identity answers every request's credential; the others are waited for only by a seed that
      // writes to them: an edge starting while billing is down serves what does not need billing.
      await waitForServices(addresses, logger, transport.tls, ['identity']);
    }
    // Readiness stays what this process needs to serve at all (its store, Redis, itself); the
    // services it calls are reported as metrics, and a route fails only when one it needs is down.
    const remote = edgeHere ? SERVICE_ROLES.filter((s) => builtClients.transport[s] === 'grpc') : [];
    probeDependenciesWith(dependencyProbe(checks, { roles: remote, addresses, tls: transport.tls }, config.READINESS_TIMEOUT_MS));
    stops.push(async () => probeDependenciesWith(undefined));
    if (roles.has('gateway') && edge && signer) {
      result.mintedKeys = await seedAtStart(config, clients, signer, () => waitForServices(addresses, logger, transport.tls));
      const app: FastifyInstance = buildRestApp({
        edge,
        logger,
        cors: { allowedOrigins: config.CORS_ALLOWED_ORIGINS, maxAgeSeconds: config.CORS_MAX_AGE_SECONDS },
        deprecations,
        limiter,
        db: db!,
        server: restListener ?? (await bindPublic(config.PORT)),
      });
      await app.ready();
      stops.push(() => app.close());
      result.restUrl = `http://${urlHost(config.HOST)}:${config.PORT}`;
      const settings = await startSettingsSurface(
        config, clients, signer, secrets, logger, db!, settingsListener ?? (await bindPublic(config.SETTINGS_PORT)), hooks.clientMetadataFetch,
      );
      stops.push(() => settings.close());
      result.settingsUrl = settings.url;
      // The demo data set was just seeded: its user gets a link to the settings app, shown once.
      if (result.mintedKeys[DEMO_KEY_ID]) {
        const deps = { clients, signer, deadlineMs: config.GRPC_DEADLINE_MS };
        result.signInLinks[DEMO_USER_ID] = await mintSignInLink(deps, settings.publicUrl, DEMO_USER_ID, 'demo-seed');
      }
    }
    if (roles.has('mcp') && edge) {
      const mcp = await startMcpHttpServer({
        edge,
        limiter,
        host: config.HOST,
        port: config.MCP_PORT,
        server: mcpListener ?? (await bindPublic(config.MCP_PORT)),
        authorizationServers: [oauthIssuerOf(config)],
        resourceUrl: config.MCP_RESOURCE_URL,
        allowedHosts: config.MCP_ALLOWED_HOSTS.length > 0 ? config.MCP_ALLOWED_HOSTS : undefined,
        allowedOrigins: config.MCP_ALLOWED_ORIGINS.length > 0 ? config.MCP_ALLOWED_ORIGINS : undefined,
        db,
        logger,
      });
      stops.push(() => mcp.close());
      result.mcpUrl = mcp.endpoint;
    }
    const admin = await startAdminServer(config.HOST, config.ADMIN_PORT, checks, config.READINESS_TIMEOUT_MS);
    stops.push(() => admin.close());
    result.adminUrl = admin.url;
    return result;
  } catch (error) {
    await stopAll();
    throw error;
  }
}
