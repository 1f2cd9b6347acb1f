// The kit's gRPC server as a caller sees it: a real server on a loopback port, the real billing
// service over a throwaway store, and the real clients the edge uses. Covers authentication and the
// access lists, domain errors with their ErrorInfo, the error boundary, UNIMPLEMENTED for methods a
// release does not serve, health and reflection. The caller token itself: caller-token.test.ts.
import { createPrivateKey } from 'node:crypto';
import { createRequire } from 'node:module';
import { SignJWT } from 'jose';
import { ClientError, createChannel, createClient, Metadata, Status } from 'nice-grpc';
import { ServerReflectionService } from 'nice-grpc-server-reflection';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OwnerType } from '../../../proto/gen/expertnet/common/v1/common.js';
import { IdentityServiceDefinition } from '../../../proto/gen/expertnet/identity/v1/identity_service.js';
import { createBillingService } from '../../billing/billing.service.js';
import { SERVICE_ROLES, type ServiceRole } from '../config.js';
import type { Database } from '../db/database.js';
import { openMigratedPglite } from '../../../test/helpers/store-templates.js';
import { createLogger } from '../logger.js';
import { generateSecrets, type ServerSecrets } from '../secrets.js';
import { TokenSigner, TokenVerifier } from './caller-token.js';
import { callAs, createServiceClients, type ServiceClients } from './client.js';
import { readRemoteError } from './errors.js';
import { checkGrpcHealth } from './health.js';
import type { Principal } from './principal.js';
import { startGrpcServer, type RunningGrpcServer, type ServiceRegistration } from './server.js';
import { adaWallet, callerAda, operator } from '../../../test/helpers/grpc-principals.js';

// The reflection messages are google-protobuf classes in a CommonJS file that names its exports
// only at run time, so they are loaded with require rather than a static import.
type ReflectionPb = typeof import('nice-grpc-server-reflection/lib/proto/grpc/reflection/v1/reflection_pb.js');
const reflectionPb = createRequire(import.meta.url)(
  'nice-grpc-server-reflection/lib/proto/grpc/reflection/v1/reflection_pb.js',
) as ReflectionPb;

const BILLING = 'expertnet.billing.v1.BillingService';
const IDENTITY = 'expertnet.identity.v1.IdentityService';
const DEADLINE_MS = 10_000;

/** An identity registration that serves one method, and that method fails like a crashing store. */
function crashingIdentity(): ServiceRegistration<typeof IdentityServiceDefinition> {
  const operatorOnly = ['operator'] as const;
  return {
    definition: IdentityServiceDefinition,
    implementation: {
      async getUser() {
        throw new Error('db password=hunter2');
      },
    },
    access: {
      authenticate: operatorOnly,
      createGrant: operatorOnly,
      issueAccessToken: operatorOnly,
      revokeGrant: operatorOnly,
      listGrants: operatorOnly,
      describeCredential: operatorOnly,
      mintKey: operatorOnly,
      listKeys: operatorOnly,
      revokeKey: operatorOnly,
      rollKey: operatorOnly,
      renameKey: operatorOnly,
      listOrganizationKeys: operatorOnly,
      importLegacyOrganizationKey: operatorOnly,
      upsertUser: operatorOnly,
      getUser: operatorOnly,
      listUsers: operatorOnly,
      listKeysByPrefix: operatorOnly,
      setUserPlan: operatorOnly,
      upsertOrganization: operatorOnly,
      getOrganization: operatorOnly,
      listUserOrganizations: operatorOnly,
      createPlaceholderAccount: operatorOnly,
      deletePlaceholderAccount: operatorOnly,
      getSeedState: operatorOnly,
      recordSeedRecords: operatorOnly,
      createSignInLink: operatorOnly,
      redeemSignInLink: operatorOnly,
      signInWithProvider: operatorOnly,
      resolveSession: operatorOnly,
      endSession: operatorOnly,
      getUsage: operatorOnly,
      setJitConsent: operatorOnly,
      listManagedOrganizations: operatorOnly,
      recordRequests: operatorOnly,
      listRequests: operatorOnly,
      createServiceAccount: operatorOnly,
      listServiceAccounts: operatorOnly,
      revokeServiceAccount: operatorOnly,
      issueServiceAccountToken: operatorOnly,
    },
  };
}

/** The failure of a call, or a test failure when the call succeeded or failed some other way. */
async function failure(call: Promise<unknown>): Promise<ClientError> {
  try {
    await call;
  } catch (error) {
    expect(error).toBeInstanceOf(ClientError);
    return error as ClientError;
  }
  throw new Error('expected the call to fail');
}

/** Lists the services a server's reflection (grpc.reflection.v1) exposes. */
async function reflectedServices(address: string): Promise<string[]> {
  const channel = createChannel(address);
  try {
    const client = createClient(ServerReflectionService, channel);
    async function* requests() {
      yield new reflectionPb.ServerReflectionRequest().setListServices('');
    }
    const names: string[] = [];
    for await (const response of client.serverReflectionInfo(requests(), { signal: AbortSignal.timeout(DEADLINE_MS) })) {
      const list = response.getListServicesResponse();
      if (!list) throw new Error(`reflection answered ${JSON.stringify(response.toObject())}`);
      names.push(...list.getServiceList().map((s) => s.getName()));
    }
    return names;
  } finally {
    channel.close();
  }
}


/** The billing service as the runtime builds it; these tests call no other service through it. */
function billingDepsFor(db: Database, signer: TokenSigner) {
  const clients = createServiceClients(Object.fromEntries(SERVICE_ROLES.map((r) => [r, '127.0.0.1:9'])) as Record<ServiceRole, string>);
  return { db, signer, clients, deadlineMs: DEADLINE_MS, logger: createLogger('silent'), enforcement: false };
}

describe('startGrpcServer', () => {
  let secrets: Required<ServerSecrets>;
  let signer: TokenSigner;
  let db: Database;
  let server: RunningGrpcServer;
  let clients: ServiceClients;

  const as = (principal: Principal) => callAs(signer, principal, 'req-test', DEADLINE_MS);

  beforeAll(async () => {
    secrets = generateSecrets();
    signer = new TokenSigner(secrets);
    db = await openMigratedPglite();
    const billing = createBillingService(billingDepsFor(db, signer));
    server = await startGrpcServer({
      address: '127.0.0.1:0',
      services: [billing.registration, crashingIdentity()],
      verifier: new TokenVerifier(secrets),
      logger: createLogger('silent'),
    });
    clients = createServiceClients(
      Object.fromEntries(SERVICE_ROLES.map((role) => [role, server.address])) as Record<ServiceRole, string>,
    );
  });

  afterAll(async () => {
    clients?.close();
    await server?.shutdown();
    await db?.close();
  });

  it('listens on the port the OS picked and reports the address to dial', () => {
    expect(server.port).toBeGreaterThan(0);
    expect(server.address).toBe(`127.0.0.1:${server.port}`);
  });

  describe('authentication', () => {
    it('refuses a call without a caller token: UNAUTHENTICATED, with ErrorInfo unauthorized', async () => {
      const error = await failure(clients.billing.getWallet({ owner: adaWallet }, { deadline: DEADLINE_MS }));
      expect(error.code).toBe(Status.UNAUTHENTICATED);
      expect(readRemoteError(error)).toMatchObject({ status: Status.UNAUTHENTICATED, code: 'unauthorized' });
    });

    it('refuses an authorization header that is not a bearer token: UNAUTHENTICATED', async () => {
      const token = await signer.sign(operator);
      const error = await failure(
        clients.billing.getWallet({ owner: adaWallet }, { metadata: Metadata({ authorization: token }), deadline: DEADLINE_MS }),
      );
      expect(error.code).toBe(Status.UNAUTHENTICATED);
    });

    it('refuses a token signed by another key pair: UNAUTHENTICATED', async () => {
      const stranger = new TokenSigner(generateSecrets());
      const error = await failure(
        clients.billing.getWallet({ owner: adaWallet }, await callAs(stranger, operator, 'req-x', DEADLINE_MS)),
      );
      expect(error.code).toBe(Status.UNAUTHENTICATED);
    });

    it("refuses an operator principal signed with the edge's key: UNAUTHENTICATED; signed with the operator's key it is served", async () => {
      const now = Math.floor(Date.now() / 1000);
      const claimOperator = (issuer: string) =>
        new SignJWT({ pk: 'operator', actor: 'mallory' })
          .setProtectedHeader({ alg: 'EdDSA' })
          .setIssuer(issuer)
          .setAudience('expertnet-internal')
          .setIssuedAt(now)
          .setExpirationTime(now + 60)
          .sign(createPrivateKey(secrets.callerTokenPrivateKey));
      // Under the edge's own issuer, and under the operator's.
      for (const token of [await claimOperator('expertnet-edge'), await claimOperator('expertnet-operator')]) {
        const metadata = Metadata({ authorization: `Bearer ${token}` });
        const error = await failure(clients.billing.getWallet({ owner: adaWallet }, { metadata, deadline: DEADLINE_MS }));
        expect(error.code).toBe(Status.UNAUTHENTICATED);
      }
      const { wallet } = await clients.billing.getWallet({ owner: adaWallet }, await as(operator));
      expect(wallet?.owner).toEqual(adaWallet);
    });

    it('refuses a principal kind the method does not list: PERMISSION_DENIED', async () => {
      const error = await failure(
        clients.billing.creditWallet({ owner: adaWallet, amount: 10, reference: 'denied' }, await as(callerAda)),
      );
      expect(error.code).toBe(Status.PERMISSION_DENIED);
      // The message names the kind, never the credential.
      expect(error.details).toContain('caller');
      expect(error.details).not.toContain('k_ada');

      const edge = await failure(clients.billing.getWallet({ owner: adaWallet }, await as({ kind: 'edge' })));
      expect(edge.code).toBe(Status.PERMISSION_DENIED);
    });

    it('refuses before the method runs: a denied credit leaves the wallet untouched', async () => {
      const owner = { type: OwnerType.OWNER_TYPE_USER, id: 'u_denied' };
      await failure(clients.billing.creditWallet({ owner, amount: 10, reference: 'r-denied' }, await as(callerAda)));
      const { wallet } = await clients.billing.getWallet({ owner }, await as(operator));
      expect(wallet?.balance).toBe(0);
    });
  });

  describe('the billing service behind it', () => {
    it('lets an operator credit a wallet; getWallet shows the balance', async () => {
      const credited = await clients.billing.creditWallet(
        { owner: adaWallet, amount: 250, reference: 'topup-1', note: 'welcome' },
        await as(operator),
      );
      expect(credited.created).toBe(true);
      expect(credited.wallet?.balance).toBe(250);
      expect(credited.entry).toMatchObject({ amount: 250, balanceAfter: 250, operation: 'credit' });

      const { wallet } = await clients.billing.getWallet({ owner: adaWallet }, await as(operator));
      expect(wallet).toMatchObject({ owner: adaWallet, balance: 250 });
    });

    it('a credit repeated with the same reference changes nothing (created=false)', async () => {
      const again = await clients.billing.creditWallet(
        { owner: adaWallet, amount: 250, reference: 'topup-1' },
        await as(operator),
      );
      expect(again.created).toBe(false);
      expect(again.wallet?.balance).toBe(250);
      const { wallet } = await clients.billing.getWallet({ owner: adaWallet }, await as(operator));
      expect(wallet?.balance).toBe(250);
    });

    it('a reused reference with another amount is a conflict, and the balance stays', async () => {
      const error = await failure(
        clients.billing.creditWallet({ owner: adaWallet, amount: 999, reference: 'topup-1' }, await as(operator)),
      );
      expect(readRemoteError(error)).toMatchObject({ status: Status.ABORTED, code: 'conflict' });
      const { wallet } = await clients.billing.getWallet({ owner: adaWallet }, await as(operator));
      expect(wallet?.balance).toBe(250);
    });

    it('a domain error arrives with its API code in ErrorInfo', async () => {
      const error = await failure(
        clients.billing.creditWallet({ owner: adaWallet, amount: 0, reference: 'zero' }, await as(operator)),
      );
      const remote = readRemoteError(error);
      expect(remote).toEqual({
        status: Status.INVALID_ARGUMENT,
        code: 'invalid_request',
        message: 'amount must be a positive whole number of credits',
        metadata: {},
      });
    });

    it('a method of the definition this release does not serve answers UNIMPLEMENTED', async () => {
      // The test's identity registration serves only getUser.
      const error = await failure(clients.identity.revokeKey({ keyId: 'k_1' }, await as(operator)));
      expect(error.code).toBe(Status.UNIMPLEMENTED);
      const other = await failure(clients.identity.listKeys({ userId: 'u_1', pageSize: 1, pageToken: '' }, await as(operator)));
      expect(other.code).toBe(Status.UNIMPLEMENTED);
    });

    it('checks access before UNIMPLEMENTED: an unserved method still refuses the wrong principal', async () => {
      const error = await failure(clients.identity.revokeKey({ keyId: 'k_2' }, await as(callerAda)));
      expect(error.code).toBe(Status.PERMISSION_DENIED);
    });
  });

  describe('the error boundary', () => {
    it('turns a crash into INTERNAL "internal error" without leaking its message', async () => {
      const error = await failure(clients.identity.getUser({ userId: 'u_ada' }, await as(operator)));
      expect(error.code).toBe(Status.INTERNAL);
      expect(error.details).toBe('internal error');
      expect(error.message).not.toContain('hunter2');
      expect(JSON.stringify(readRemoteError(error))).not.toContain('hunter2');
      expect(readRemoteError(error)?.code).toBeUndefined();
    });

    it('keeps serving after a crash', async () => {
      await failure(clients.identity.getUser({ userId: 'u_ada' }, await as(operator)));
      const { wallet } = await clients.billing.getWallet({ owner: adaWallet }, await as(operator));
      expect(wallet?.balance).toBe(250);
    });

    it('serves several services side by side: identity methods this release does not serve answer UNIMPLEMENTED', async () => {
      const error = await failure(clients.identity.getOrganization({ organizationId: 'o_lab' }, await as(operator)));
      expect(error.code).toBe(Status.UNIMPLEMENTED);
    });
  });

  describe('health and reflection (no token needed)', () => {
    it('answers SERVING for the server and for each registered service', async () => {
      expect(await checkGrpcHealth(server.address)).toBe(true);
      expect(await checkGrpcHealth(server.address, BILLING)).toBe(true);
      expect(await checkGrpcHealth(server.address, IDENTITY)).toBe(true);
    });

    it('does not claim a service it does not serve', async () => {
      expect(await checkGrpcHealth(server.address, 'expertnet.search.v1.SearchService')).toBe(false);
    });

    it('lists the registered services through server reflection', async () => {
      const names = await reflectedServices(server.address);
      expect(names).toEqual(expect.arrayContaining([BILLING, IDENTITY]));
      expect(names).not.toContain('expertnet.search.v1.SearchService');
    });
  });
});

describe('a server that shuts down', () => {
  it('stops answering health checks', async () => {
    const secrets = generateSecrets();
    const db = await openMigratedPglite();
    try {
      const server = await startGrpcServer({
        address: '127.0.0.1:0',
        services: [createBillingService(billingDepsFor(db, new TokenSigner(secrets))).registration],
        verifier: new TokenVerifier(secrets),
        logger: createLogger('silent'),
      });
      expect(await checkGrpcHealth(server.address, BILLING)).toBe(true);
      await server.shutdown();
      expect(await checkGrpcHealth(server.address)).toBe(false);
      expect(await checkGrpcHealth(server.address, BILLING)).toBe(false);
    } finally {
      await db.close();
    }
  });
});
