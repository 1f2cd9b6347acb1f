// A dependency outage crossing a service boundary: a service method failing because its Redis or
// store cannot answer ends the call UNAVAILABLE with the code `unavailable` (not INTERNAL), logs
// nothing at the boundary (the dependency's state logs the outage once), and the edge answers it
// 503 `unavailable` with Retry-After; so does a dependency of the edge's own.
import { Status } from 'nice-grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BillingServiceDefinition } from '../../proto/gen/expertnet/billing/v1/billing_service.js';
import { OwnerType } from '../../proto/gen/expertnet/common/v1/common.js';
import { SERVICE_ROLES, type ServiceRole } from '../../services/kit/config.js';
import { DependencyUnavailable } from '../../services/kit/dependencies/unavailable.js';
import { TokenSigner, TokenVerifier } from '../../services/kit/grpc/caller-token.js';
import { callAs, createServiceClients, type ServiceClients } from '../../services/kit/grpc/client.js';
import { readRemoteError } from '../../services/kit/grpc/errors.js';
import { startGrpcServer, type RunningGrpcServer, type ServiceRegistration } from '../../services/kit/grpc/server.js';
import { createLogger } from '../../services/kit/logger.js';
import { metrics } from '../../services/kit/metrics.js';
import { generateSecrets } from '../../services/kit/secrets.js';
import { fromRemote, isLoggedAsOutage } from './api-error.js';

const owner = { type: OwnerType.OWNER_TYPE_USER, id: 'u_ada' };
const withCode = (code: string, message: string) => Object.assign(new Error(message), { code });

async function failure(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => error,
  );
}

describe('a dependency outage across a service boundary', () => {
  const secrets = generateSecrets();
  const signer = new TokenSigner(secrets);
  const logged: string[] = [];
  /** What the caller logs (client-calls.ts). */
  const callerLogged: string[] = [];
  const callerLogger = createLogger('info', { write: (line: string) => void callerLogged.push(line) });
  let server: RunningGrpcServer;
  let clients: ServiceClients;
  const as = () => callAs(signer, { kind: 'operator', actor: 'test' }, 'req-outage', 10_000);

  const outage: ServiceRegistration<typeof BillingServiceDefinition> = {
    definition: BillingServiceDefinition,
    implementation: {
      async getWallet() {
        throw new DependencyUnavailable('database', withCode('55000', 'database "x" is not currently accepting connections'));
      },
      async creditWallet() {
        throw new Error('Command timed out'); // ioredis, past REDIS_COMMAND_TIMEOUT_MS
      },
      async setWalletBalance() {
        throw withCode('57P01', 'terminating connection due to administrator command');
      },
    },
    access: Object.fromEntries(Object.keys(BillingServiceDefinition.methods).map((m) => [m, ['operator']])) as never,
  };

  beforeAll(async () => {
    server = await startGrpcServer({
      address: '127.0.0.1:0',
      services: [outage],
      verifier: new TokenVerifier(secrets),
      logger: createLogger('info', { write: (line: string) => void logged.push(line) }),
    });
    clients = createServiceClients(Object.fromEntries(SERVICE_ROLES.map((r) => [r, server.address])) as Record<ServiceRole, string>, {}, { logger: callerLogger });
  });
  afterAll(async () => {
    clients?.close();
    await server?.shutdown();
  });

  it.each([
    ['the store refusing connections', (c: ServiceClients, o: Awaited<ReturnType<typeof as>>) => c.billing.getWallet({ owner }, o)],
    ['Redis past its command bound', (c: ServiceClients, o: Awaited<ReturnType<typeof as>>) => c.billing.creditWallet({ owner, amount: 1, reference: 'r' }, o)],
    ['a session ended by the administrator', (c: ServiceClients, o: Awaited<ReturnType<typeof as>>) => c.billing.setWalletBalance({ owner, balance: 1 }, o)],
  ])('%s: UNAVAILABLE with code unavailable, nothing logged at the boundary or by the caller, 503 unavailable with Retry-After at the edge', async (_name, call) => {
    const before = logged.length;
    const callerBefore = callerLogged.length;
    const error = await failure(call(clients, await as()));
    expect(readRemoteError(error)).toMatchObject({ status: Status.UNAVAILABLE, code: 'unavailable' });
    expect(isLoggedAsOutage(error)).toBe(true);
    const answer = fromRemote(error);
    expect({ status: answer.status, code: answer.code, headers: answer.headers }).toEqual({ status: 503, code: 'unavailable', headers: { 'retry-after': '1' } });
    expect(logged.slice(before)).toEqual([]);
    expect(callerLogged.slice(callerBefore)).toEqual([]);
  });

  it('a service that cannot be reached: the caller counts the call by target service, method and code, and warns naming the backend and the method', async () => {
    const unreachable = createServiceClients(Object.fromEntries(SERVICE_ROLES.map((r) => [r, '127.0.0.1:1'])) as Record<ServiceRole, string>, {}, { logger: callerLogger });
    const counted = async () =>
      (await metrics.grpcClientHandled.get()).values.find(
        (v) => v.labels.grpc_target_service === 'billing' && v.labels.grpc_method === 'GetWallet' && v.labels.grpc_code === 'UNAVAILABLE',
      )?.value ?? 0;
    const before = await counted();
    const callerBefore = callerLogged.length;
    try {
      const error = await failure(unreachable.billing.getWallet({ owner }, await as()));
      expect(readRemoteError(error)).toMatchObject({ status: Status.UNAVAILABLE, code: undefined });
    } finally {
      unreachable.close();
    }
    expect((await counted()) - before).toBe(1);
    const lines = callerLogged.slice(callerBefore).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toMatchObject([{ level: 40, msg: 'a backend service is unavailable', backend: 'billing', method: 'GetWallet', grpc_code: 'UNAVAILABLE', requestId: 'req-outage' }]);
  });

  it("the edge's own store or Redis down: 503 unavailable with Retry-After; any other failure stays a bare 500", () => {
    for (const error of [new DependencyUnavailable('redis', new Error('Command timed out')), withCode('ECONNREFUSED', 'connect ECONNREFUSED')]) {
      const answer = fromRemote(error);
      expect({ status: answer.status, code: answer.code, headers: answer.headers }).toEqual({ status: 503, code: 'unavailable', headers: { 'retry-after': '1' } });
    }
    expect(fromRemote(new TypeError('x is undefined'))).toMatchObject({ status: 500, code: 'internal' });
  });
});
