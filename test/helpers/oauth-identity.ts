// The identity service as the edge and the operator reach it for OAuth: the real identity (and
// communities, for the rate tier) service on a real gRPC server over a throwaway store, called
// through the real clients; with the issuer settings and the checks the OAuth suites share.
import { Status } from 'nice-grpc';
import { afterAll, beforeAll, expect } from 'vitest';
import { Plan } from '../../proto/gen/expertnet/common/v1/common.js';
import { createCommunitiesService } from '../../services/communities/communities.service.js';
import { SERVICE_ROLES, type ServiceRole } from '../../services/kit/config.js';
import type { Database } from '../../services/kit/db/database.js';
import { TokenSigner, TokenVerifier } from '../../services/kit/grpc/caller-token.js';
import { callAs, createServiceClients, type ServiceClients } from '../../services/kit/grpc/client.js';
import { readRemoteError, type RemoteError } from '../../services/kit/grpc/errors.js';
import type { Principal } from '../../services/kit/grpc/principal.js';
import { startGrpcServer } from '../../services/kit/grpc/server.js';
import { createLogger } from '../../services/kit/logger.js';
import { generateSecrets } from '../../services/kit/secrets.js';
import type { OAuthOptions } from '../../services/identity/access-token.js';
import { createIdentityService } from '../../services/identity/identity.service.js';
import { openTestDatabase, type StoreName } from './stores.js';
import { inProcessClients } from '../../deploy/launcher/wiring.js';

/** A migrated database of `store` for the enclosing describe, closed after it. */
export function databaseFor(store: StoreName): () => Database {
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  beforeAll(async () => {
    database = await openTestDatabase(store);
  });
  afterAll(async () => database?.close());
  return () => database.db;
}

export const ISSUER = 'https://issuer.test/oauth';
export const AUDIENCE = 'https://api.test/v1';
/** The MCP server's resource URI: the audience of tokens for the MCP surface. */
export const MCP_RESOURCE = 'https://api.test/mcp';
/** The configuration oauthOptionsFrom reads (MCP_RESOURCE_URL set, as behind a proxy). */
export const CONFIG = {
  OAUTH_ISSUER: ISSUER, OAUTH_AUDIENCE: AUDIENCE, OAUTH_JWKS_URL: undefined, MCP_RESOURCE_URL: MCP_RESOURCE, HOST: '127.0.0.1', PORT: 8080, MCP_PORT: 8081,
  SETTINGS_PUBLIC_URL: undefined, SETTINGS_PORT: 8082,
};
const DEADLINE_MS = 10_000;
export const operator: Principal = { kind: 'operator', actor: 'oauth-test' };

export interface IdentityUnderTest {
  clients: ServiceClients;
  as(principal: Principal): ReturnType<typeof callAs>;
  /** Authenticates an access token as the edge does, presented to `resource` ('' or absent: the REST API). */
  authenticate(token: string, resource?: string): ReturnType<ServiceClients['identity']['authenticate']>;
  stop(): Promise<void>;
}

/** Identity (with the given OAuth options) and communities on one gRPC server over `db`. */
export async function startIdentity(db: Database, oauth: OAuthOptions | undefined): Promise<IdentityUnderTest> {
  const secrets = generateSecrets();
  const signer = new TokenSigner(secrets);
  const logger = createLogger('silent');
  let clients: ServiceClients | undefined;
  const lazyClients = new Proxy({} as ServiceClients, {
    get: (_t, name) => (clients as unknown as Record<string | symbol, unknown>)[name],
  });
  const identity = createIdentityService(
    { db, pepper: secrets.apiKeyPepper, clients: lazyClients, signer, deadlineMs: DEADLINE_MS, logger },
    { oauth },
  );
  const communities = createCommunitiesService({ db, pepper: secrets.apiKeyPepper, clients: lazyClients, deadlineMs: DEADLINE_MS, logger });
  const verifier = new TokenVerifier(secrets);
  const server = await startGrpcServer({
    address: '127.0.0.1:0',
    services: [identity.registration, communities.registration],
    verifier,
    logger,
  });
  const addresses = Object.fromEntries(SERVICE_ROLES.map((role) => [role, server.address])) as Record<ServiceRole, string>;
  // The services call each other in process, as roles of one process do (a service's own call over
  // plaintext gRPC would carry nothing to prove it: services/kit/grpc/peer-role.ts); the test calls
  // them over gRPC.
  clients = createServiceClients(addresses, inProcessClients(
    [{ role: 'identity', registration: identity.registration }, { role: 'communities', registration: communities.registration }], verifier, logger,
  ));
  const built = createServiceClients(addresses);
  const as = (principal: Principal) => callAs(signer, principal, 'req-oauth-test', DEADLINE_MS);
  return {
    clients: built,
    as,
    authenticate: async (token, resource = '') => built.identity.authenticate({ accessToken: token, resource }, await as({ kind: 'edge' })),
    async stop() {
      built.close();
      clients?.close();
      await server.shutdown();
      await identity.stop();
    },
  };
}

/** The remote error of a call that must fail. */
export async function failure(call: Promise<unknown>): Promise<RemoteError> {
  try {
    await call;
  } catch (error) {
    const remote = readRemoteError(error);
    if (!remote) throw error;
    return remote;
  }
  throw new Error('expected the call to fail');
}

/** The call must fail as `unauthorized` without echoing the token. */
export async function expectRefused(sys: IdentityUnderTest, token: string, message?: RegExp, resource?: string): Promise<void> {
  const error = await failure(sys.authenticate(token, resource));
  expect(error).toMatchObject({ status: Status.UNAUTHENTICATED, code: 'unauthorized' });
  expect(error.message).not.toContain(token);
  for (const part of token.split('.').filter((p) => p.length > 8)) expect(error.message).not.toContain(part);
  if (message) expect(error.message).toMatch(message);
}

export async function seedUsers(sys: IdentityUnderTest): Promise<void> {
  const options = await sys.as(operator);
  await sys.clients.identity.upsertUser({ user: { id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: Plan.PLAN_PAID } }, options);
  await sys.clients.identity.upsertUser({ user: { id: 'u_bob', email: 'bob@example.org', name: 'Bob', plan: Plan.PLAN_FREE } }, options);
}

export async function createGrant(sys: IdentityUnderTest, userId: string, scopes: string[], clientId = 'mcp-client') {
  const { grant } = await sys.clients.identity.createGrant({ userId, scopes, clientId, requestedRate: 0 }, await sys.as(operator));
  return grant!;
}
