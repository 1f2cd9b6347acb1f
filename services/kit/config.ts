// Process configuration, validated once from the environment. A bad value stops start-up with a
// message that lists every bad variable, not just the first.
import { z } from 'zod';
import { isLoopbackHost } from './url-host.js';

export const ALL_ROLES = ['gateway', 'mcp', 'identity', 'communities', 'search', 'enrichment', 'billing'] as const;
export type Role = (typeof ALL_ROLES)[number];
export const SERVICE_ROLES = ['identity', 'communities', 'search', 'enrichment', 'billing'] as const;
export type ServiceRole = (typeof SERVICE_ROLES)[number];
/** The roles that serve callers and sign their caller tokens (services/kit/grpc/caller-token.ts). */
export const EDGE_ROLES: readonly Role[] = ['gateway', 'mcp'];

const port = z.coerce.number().int().min(0).max(65535);
const grpcAddress = z.string().regex(/^[^\s:]+:\d{1,5}$/, 'expected host:port');
const onOff = z.enum(['on', 'off']);

const roles = z
  .string()
  .transform((s) => s.split(',').map((r) => r.trim()).filter(Boolean))
  .pipe(z.array(z.enum([...ALL_ROLES, 'all'])).min(1, 'name at least one role'))
  .transform((list): Role[] => (list.includes('all') ? [...ALL_ROLES] : [...new Set(list as Role[])]));

const schema = z.object({
  PORT: port.default(8080),
  MCP_PORT: port.default(8081),
  // The settings web app (docs/SETTINGS.md), served beside the REST API by the gateway role.
  SETTINGS_PORT: port.default(8082),
  ADMIN_PORT: port.default(9090),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'expected a postgres:// URL').optional(),
  // Named statements on PostgreSQL (services/kit/db/prepared-statements.ts); off behind a pooler
  // in transaction mode (PgBouncer), which cannot keep a session's prepared statements.
  DATABASE_PREPARED_STATEMENTS: onOff.default('on'),
  // Bounds of the store's calls (PostgreSQL; docs/OPERATIONS.md "When Redis or PostgreSQL is down"):
  // the longest wait for a connection, and the longest run of one statement (0: none).
  DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(5000),
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
  DATA_DIR: z.string().min(1).default('./.data'),
  // redis:// or rediss://, or a unix socket as redis+unix:///path/to/redis.sock (or unix://…).
  REDIS_URL: z.string().regex(/^(rediss?:\/\/|(redis\+)?unix:\/\/\/)/, 'expected a redis://, rediss:// or redis+unix:/// URL').optional(),
  // Bounds of Redis: the longest wait for one command's answer and for a connection.
  REDIS_COMMAND_TIMEOUT_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
  REDIS_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
  // The longest /readyz waits for one check; a check past it counts as failing.
  READINESS_TIMEOUT_MS: z.coerce.number().int().min(10).max(60_000).default(2000),
  // How often a dependency that stays down is logged again while calls keep failing.
  DEPENDENCY_LOG_REPEAT_SECONDS: z.coerce.number().int().min(1).max(86_400).default(30),
  // Prefix of every rate-limit key in Redis: deployments (or test runs) sharing one Redis keep
  // their buckets apart by giving each its own.
  RATE_LIMIT_PREFIX: z.string().regex(/^[\w:.-]{1,64}$/, 'expected up to 64 letters, digits, _ : . -').default('rl:'),
  ROLES: z.string().default('all').pipe(roles),
  SEED_FILE: z.string().min(1).optional(),
  CREDIT_ENFORCEMENT: onOff.default('off'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // Where each service listens (its own role) and where the others reach it.
  IDENTITY_GRPC_ADDR: grpcAddress.default('127.0.0.1:50051'),
  COMMUNITIES_GRPC_ADDR: grpcAddress.default('127.0.0.1:50052'),
  SEARCH_GRPC_ADDR: grpcAddress.default('127.0.0.1:50053'),
  ENRICHMENT_GRPC_ADDR: grpcAddress.default('127.0.0.1:50054'),
  BILLING_GRPC_ADDR: grpcAddress.default('127.0.0.1:50055'),
  // Mutual TLS of gRPC (services/kit/tls.ts): the deployment's CA, this process's certificate and
  // its key, PEM files, set together. Unset: plaintext when every gRPC address is on loopback, else
  // a CA and certificates made in DATA_DIR/grpc-tls (deploy/launcher/grpc-tls.ts).
  GRPC_TLS_CA_FILE: z.string().min(1).optional(),
  GRPC_TLS_CERT_FILE: z.string().min(1).optional(),
  GRPC_TLS_KEY_FILE: z.string().min(1).optional(),
  // Deadline of one internal gRPC call, in milliseconds.
  GRPC_DEADLINE_MS: z.coerce.number().int().min(100).max(120_000).default(30_000),
  // Browsers: origins allowed by CORS (comma-separated, exact matches; `*` allows any origin).
  CORS_ALLOWED_ORIGINS: z.string().default('').transform((s) => s.split(',').map((o) => o.trim()).filter(Boolean)),
  CORS_MAX_AGE_SECONDS: z.coerce.number().int().min(0).max(86_400).default(600),
  // Deprecation schedule as JSON (docs/VERSIONING.md): [{ "match": "GET /v1/me" | "/v1", "deprecated_at",
  // "sunset_at"?, "link"? }].
  API_DEPRECATIONS: z.string().optional(),
  // OAuth access tokens (JWT). Without OAUTH_JWKS_URL the settings app serves the authorization
  // server and signs with a local key kept with the server secrets; its issuer is OAUTH_ISSUER, else
  // the settings app's public URL + /oauth (services/kit/public-urls.ts).
  OAUTH_ISSUER: z.string().url('expected the issuer URL').optional(),
  // The REST API's audience; unset: http://HOST:PORT/v1, with the port bound (public-urls.ts).
  OAUTH_AUDIENCE: z.string().min(1).optional(),
  OAUTH_JWKS_URL: z.string().url('expected the JWKS URL').optional(),
  // true where replicas must share the local issuer's key (several identity processes, each with a
  // data folder of its own: deploy/k8s): DATA_DIR/oauth-signing-key.json must be there, not made.
  OAUTH_SIGNING_KEY_REQUIRED: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
  // Local development only: the authorization server may fetch client ID metadata documents (and
  // other URLs a client names) from loopback and private addresses (gateway/settings/guarded-fetch.ts).
  OAUTH_CLIENT_METADATA_ALLOW_PRIVATE_URLS: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
  // Local development only: webhook endpoint URLs may be http and name loopback and private
  // addresses (services/communities/webhook-url.ts); by default https and public addresses only.
  WEBHOOK_ALLOW_PRIVATE_URLS: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
  // Webhook delivery (docs/WEBHOOKS.md "Delivery"): the seconds between a delivery's attempts,
  // comma-separated (unset: the documented schedule of about three days; tests shorten it), and
  // whether this process's communities service delivers at all (off: it records deliveries and
  // another replica sends them).
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .optional()
    .transform((s) => (s === undefined || s.trim() === '' ? undefined : s.split(',').map((n) => n.trim())))
    .pipe(z.array(z.coerce.number<string>().positive('expected seconds above 0').max(604_800, 'expected at most 7 days')).min(1).optional()),
  WEBHOOK_DELIVERY: onOff.default('on'),
  // MCP surface (docs/MCP.md): the Host and Origin values it accepts (DNS-rebinding protection;
  // unset: localhost forms only) and its public resource URL (unset: built from HOST and MCP_PORT).
  MCP_ALLOWED_HOSTS: z.string().default('').transform((s) => s.split(',').map((h) => h.trim()).filter(Boolean)),
  MCP_ALLOWED_ORIGINS: z.string().default('').transform((s) => s.split(',').map((o) => o.trim()).filter(Boolean)),
  MCP_RESOURCE_URL: z.string().url('expected the MCP resource URL').optional(),
  // Settings web app: the URL people open it at (sign-in links are built on it; https makes its
  // cookies Secure; unset: built from HOST and SETTINGS_PORT), and how long a session lives unused
  // (idle) and at most (absolute), in seconds.
  SETTINGS_PUBLIC_URL: z.string().url('expected the URL of the settings web app').optional(),
  SETTINGS_SESSION_IDLE_SECONDS: z.coerce.number().int().min(1).max(86_400).default(1800),
  SETTINGS_SESSION_MAX_SECONDS: z.coerce.number().int().min(1).max(2_592_000).default(43_200),
  // Settings sign-in at an external OpenID Connect provider (docs/SETTINGS.md "Signing in"): its
  // issuer (https; http only on this machine's loopback), this app's client id there, the client
  // secret when the provider holds the app as a confidential client (a secret), and what the
  // sign-in button calls the provider. Unset: one-time sign-in links only.
  SETTINGS_OIDC_ISSUER: z.string().url('expected the issuer URL of the OpenID Connect provider').optional(),
  SETTINGS_OIDC_CLIENT_ID: z.string().min(1).optional(),
  SETTINGS_OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  SETTINGS_OIDC_NAME: z.string().min(1).max(60, 'use at most 60 characters').default('your identity provider'),
  // Enrichment providers (docs/ENRICHMENT-PROVIDERS.md). A provider URL set to `off` disables that provider:
  // its steps are recorded as skipped. The summary step runs only when ENRICHMENT_SUMMARY_URL (an
  // OpenAI-compatible API base URL) is set.
  ORCID_API_URL: z.union([z.literal('off'), z.string().url('expected a URL or off')]).default('https://pub.orcid.org/v3.0'),
  OPENALEX_API_URL: z.union([z.literal('off'), z.string().url('expected a URL or off')]).default('https://api.openalex.org'),
  OPENALEX_MAILTO: z.string().email('expected an e-mail address').optional(),
  // OpenAlex's API key (sent as api_key=); without one its daily allowance is small. A secret.
  OPENALEX_API_KEY: z.string().min(1).optional(),
  // ORCID's public API allows 12 requests a second (burst 40).
  ORCID_RATE_PER_SECOND: z.coerce.number().int().min(1).max(1000).default(12),
  OPENALEX_RATE_PER_SECOND: z.coerce.number().int().min(1).max(1000).default(10),
  ENRICHMENT_HTTP_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
  ENRICHMENT_HTTP_RETRIES: z.coerce.number().int().min(0).max(5).default(2),
  ENRICHMENT_SUMMARY_URL: z.string().url('expected the base URL of an OpenAI-compatible API').optional(),
  ENRICHMENT_SUMMARY_MODEL: z.string().min(1).default('gpt-4o-mini'),
  ENRICHMENT_SUMMARY_API_KEY: z.string().min(1).optional(),
  // Profiles one enrichment run works on at once.
  ENRICHMENT_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(8),
  // How long a run's worker holds it between heartbeats: a run whose process died resumes
  // elsewhere after this long.
  ENRICHMENT_RUN_LEASE_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
  // The same for a search job: a search whose process died is taken over after this long.
  SEARCH_JOB_LEASE_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
  // Server secrets. Unset: generated once and kept in DATA_DIR/secrets.json (see docs/OPERATIONS.md).
  // The caller-token pair: the edge roles sign with the private key; a service role needs only the
  // public key (it forwards the tokens it receives, and is known by its client certificate).
  API_KEY_PEPPER: z.string().min(32, 'use at least 32 characters').optional(),
  CALLER_TOKEN_PRIVATE_KEY: z.string().includes('PRIVATE KEY', { message: 'expected a PKCS#8 PEM' }).optional(),
  CALLER_TOKEN_PUBLIC_KEY: z.string().includes('PUBLIC KEY', { message: 'expected an SPKI PEM' }).optional(),
  // The operator's pair (services/kit/grpc/caller-token.ts): every service verifies operator tokens
  // with the public key; only the admin tooling holds the private key. Unset: DATA_DIR/operator-token-key.json.
  OPERATOR_TOKEN_PRIVATE_KEY: z.string().includes('PRIVATE KEY', { message: 'expected a PKCS#8 PEM' }).optional(),
  OPERATOR_TOKEN_PUBLIC_KEY: z.string().includes('PUBLIC KEY', { message: 'expected an SPKI PEM' }).optional(),
});

export type Config = z.infer<typeof schema>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Server secrets that are never taken empty: an empty value is most often a secret store's empty
 * entry, and counting it as unset would have the process make keys of its own that no other
 * process shares (every call between processes refused).
 */
const SECRET_VARIABLES = ['API_KEY_PEPPER', 'CALLER_TOKEN_PRIVATE_KEY', 'CALLER_TOKEN_PUBLIC_KEY', 'OPERATOR_TOKEN_PRIVATE_KEY', 'OPERATOR_TOKEN_PUBLIC_KEY'] as const;

/** Reads the configuration from an environment; empty strings count as unset (server secrets excepted). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const emptySecrets = SECRET_VARIABLES.filter((name) => env[name] !== undefined && env[name]!.trim() === '');
  if (emptySecrets.length > 0) {
    throw new ConfigError(emptySecrets.map((name) => `${name} is set but empty: give it its value, or leave it unset to use the one kept in DATA_DIR`));
  }
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`));
  }
  const config = parsed.data;
  if (config.CALLER_TOKEN_PRIVATE_KEY && !config.CALLER_TOKEN_PUBLIC_KEY) {
    throw new ConfigError(['CALLER_TOKEN_PRIVATE_KEY and CALLER_TOKEN_PUBLIC_KEY must be set together']);
  }
  // The public key alone: a process that verifies caller tokens but signs none (a service role).
  // The edge roles sign them, so they need the private key too.
  const edgeRoles = config.ROLES.filter((r) => EDGE_ROLES.includes(r));
  if (config.CALLER_TOKEN_PUBLIC_KEY && !config.CALLER_TOKEN_PRIVATE_KEY && edgeRoles.length > 0) {
    throw new ConfigError([`CALLER_TOKEN_PRIVATE_KEY: needed by the ${edgeRoles.join(' and ')} role, which signs caller tokens (only CALLER_TOKEN_PUBLIC_KEY is set)`]);
  }
  const tlsSet = [config.GRPC_TLS_CA_FILE, config.GRPC_TLS_CERT_FILE, config.GRPC_TLS_KEY_FILE].filter(Boolean).length;
  if (tlsSet !== 0 && tlsSet !== 3) throw new ConfigError(['GRPC_TLS_CA_FILE, GRPC_TLS_CERT_FILE and GRPC_TLS_KEY_FILE must be set together']);
  const oidcProblems = settingsOidcProblems(config);
  if (oidcProblems.length > 0) throw new ConfigError(oidcProblems);
  return config;
}

/** The settings app's OpenID Connect variables go together, and the issuer is https off this machine. */
function settingsOidcProblems(config: Config): string[] {
  const problems: string[] = [];
  if (Boolean(config.SETTINGS_OIDC_ISSUER) !== Boolean(config.SETTINGS_OIDC_CLIENT_ID)) {
    problems.push('SETTINGS_OIDC_ISSUER and SETTINGS_OIDC_CLIENT_ID must be set together');
  }
  if (config.SETTINGS_OIDC_CLIENT_SECRET && !config.SETTINGS_OIDC_ISSUER) problems.push('SETTINGS_OIDC_CLIENT_SECRET needs SETTINGS_OIDC_ISSUER');
  if (config.SETTINGS_OIDC_ISSUER) {
    const issuer = new URL(config.SETTINGS_OIDC_ISSUER);
    if (issuer.protocol !== 'https:' && !(issuer.protocol === 'http:' && isLoopbackHost(issuer.hostname))) {
      problems.push('SETTINGS_OIDC_ISSUER: expected an https URL (http only for a provider on 127.0.0.1, localhost or [::1])');
    }
  }
  return problems;
}

/** The variable that says where each service listens and is reached. */
export const GRPC_ADDRESS_VARIABLES = {
  identity: 'IDENTITY_GRPC_ADDR',
  communities: 'COMMUNITIES_GRPC_ADDR',
  search: 'SEARCH_GRPC_ADDR',
  enrichment: 'ENRICHMENT_GRPC_ADDR',
  billing: 'BILLING_GRPC_ADDR',
} as const satisfies Record<ServiceRole, keyof Config>;

export function grpcAddressesOf(config: Config): Record<ServiceRole, string> {
  return Object.fromEntries(SERVICE_ROLES.map((s) => [s, config[GRPC_ADDRESS_VARIABLES[s]]])) as Record<ServiceRole, string>;
}
