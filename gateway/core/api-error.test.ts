// fromRemote: how the edge turns a failed internal call into the HTTP error a client sees. First
// through a real gRPC server (the ErrorInfo and its metadata cross the wire), then table-wise from
// client errors built in place for every code the edge knows.
import { ClientError, Status } from 'nice-grpc';
import { ErrorInfo, RichClientError, RichServerError } from 'nice-grpc-error-details';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BillingServiceDefinition } from '../../proto/gen/expertnet/billing/v1/billing_service.js';
import { OwnerType } from '../../proto/gen/expertnet/common/v1/common.js';
import { SERVICE_ROLES, type ServiceRole } from '../../services/kit/config.js';
import { TokenSigner, TokenVerifier } from '../../services/kit/grpc/caller-token.js';
import { callAs, createServiceClients, type ServiceClients } from '../../services/kit/grpc/client.js';
import { domainError, ERROR_DOMAIN } from '../../services/kit/grpc/errors.js';
import type { Principal } from '../../services/kit/grpc/principal.js';
import { startGrpcServer, type RunningGrpcServer, type ServiceRegistration } from '../../services/kit/grpc/server.js';
import { createLogger } from '../../services/kit/logger.js';
import { generateSecrets } from '../../services/kit/secrets.js';
import { ApiError, fromRemote } from './api-error.js';

const PATH = '/expertnet.billing.v1.BillingService/GetWallet';
const owner = { type: OwnerType.OWNER_TYPE_USER, id: 'u_ada' };
const operator: Principal = { kind: 'operator', actor: 'test' };

/** A client-side failure carrying an ErrorInfo, as errorDetailsClientMiddleware produces it. */
function remote(status: Status, reason: string, message = 'the message', metadata: Record<string, string> = {}, domain = ERROR_DOMAIN) {
  return new RichClientError(PATH, status, message, [ErrorInfo.fromPartial({ reason, domain, metadata })]);
}

/** What the caller sees of an ApiError: the envelope fields and headers. */
function seen(error: ApiError) {
  expect(error).toBeInstanceOf(ApiError);
  return { status: error.status, code: error.code, message: error.message, extras: error.extras, headers: error.headers };
}

async function failure(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

describe('fromRemote over a real gRPC call', () => {
  const secrets = generateSecrets();
  const signer = new TokenSigner(secrets);
  let server: RunningGrpcServer;
  let clients: ServiceClients;
  let unreachable: ServiceClients;

  const as = (principal: Principal = operator) => callAs(signer, principal, 'req-api-error', 10_000);

  // A billing stand-in whose every method fails in a different way.
  const failing: ServiceRegistration<typeof BillingServiceDefinition> = {
    definition: BillingServiceDefinition,
    implementation: {
      async getWallet() {
        throw domainError('rate_limited', 'too many requests', { available_at: '2030-01-01T00:00:00Z' });
      },
      async creditWallet() {
        throw domainError('insufficient_credits', 'the wallet has 3 credits; the search costs 5', {
          payer: JSON.stringify({ type: 'organization', id: 'o_lab', name: 'Lab' }),
        });
      },
      async setWalletBalance() {
        throw new Error('connection to db at 10.0.0.7 failed, password=hunter2');
      },
      async listLedgerEntries() {
        throw new RichServerError(Status.FAILED_PRECONDITION, 'a code this edge has never heard of', [
          ErrorInfo.fromPartial({ reason: 'brand_new_code', domain: ERROR_DOMAIN }),
        ]);
      },
      async resolvePayer() {
        throw domainError('search_unavailable', 'the search backend is unavailable');
      },
      async charge() {
        throw domainError('internal', 'ledger invariant broken: balance_after=-3');
      },
    },
    access: {
      getWallet: ['operator'],
      listLedgerEntries: ['operator'],
      listSpendableWallets: ['operator'],
      creditWallet: ['operator'],
      setWalletBalance: ['operator'],
      grantSeedBalance: ['operator'],
      charge: ['operator'],
      chargeMany: ['operator'],
      resolvePayer: ['operator'],
      checkFunds: ['operator'],
      meterSelfEnrich: ['operator'],
      listRates: ['operator'],
      setGlobalSearchPreference: ['operator'],
      setOrganizationFunding: ['operator'],
      reconcile: ['operator'],
      getCallerUsage: ['caller'],
    },
  };

  beforeAll(async () => {
    server = await startGrpcServer({
      address: '127.0.0.1:0',
      services: [failing],
      verifier: new TokenVerifier(secrets),
      logger: createLogger('silent'),
    });
    const at = (address: string) => Object.fromEntries(SERVICE_ROLES.map((r) => [r, address])) as Record<ServiceRole, string>;
    clients = createServiceClients(at(server.address));
    // Port 1 on loopback: nothing listens there, so the connection is refused.
    unreachable = createServiceClients(at('127.0.0.1:1'));
  });

  afterAll(async () => {
    clients?.close();
    unreachable?.close();
    await server?.shutdown();
  });

  it('a domain error keeps its code and message; available_at becomes an envelope field', async () => {
    const error = await failure(clients.billing.getWallet({ owner }, await as()));
    expect(seen(fromRemote(error))).toEqual({
      status: 429,
      code: 'rate_limited',
      message: 'too many requests',
      extras: { available_at: '2030-01-01T00:00:00Z' },
      headers: {},
    });
  });

  it('the payer extra arrives as an object', async () => {
    const error = await failure(clients.billing.creditWallet({ owner, amount: 5, reference: 'r' }, await as()));
    expect(seen(fromRemote(error))).toMatchObject({
      status: 402,
      code: 'insufficient_credits',
      message: 'the wallet has 3 credits; the search costs 5',
      extras: { payer: { type: 'organization', id: 'o_lab', name: 'Lab' } },
    });
  });

  it('an unknown code passes through with the status its gRPC status implies', async () => {
    const error = await failure(clients.billing.listLedgerEntries({ owner }, await as()));
    expect(seen(fromRemote(error))).toMatchObject({ status: 422, code: 'brand_new_code', message: 'a code this edge has never heard of' });
  });

  it('search_unavailable is a 502 that keeps its message', async () => {
    const error = await failure(clients.billing.resolvePayer({ operation: 'search', communityId: 'c' }, await as()));
    expect(seen(fromRemote(error))).toMatchObject({ status: 502, code: 'search_unavailable', message: 'the search backend is unavailable' });
  });

  it('a crash in the service is a bare 500 that reveals nothing', async () => {
    const error = await failure(clients.billing.setWalletBalance({ owner, balance: 1 }, await as()));
    const api = fromRemote(error);
    expect(seen(api)).toEqual({ status: 500, code: 'internal', message: 'internal error', extras: {}, headers: {} });
    expect(JSON.stringify(api)).not.toMatch(/hunter2|10\.0\.0\.7/);
  });

  it('a domain error with the internal code hides its message too', async () => {
    const error = await failure(clients.billing.charge({ payer: owner, operation: 's', units: 1, reference: 'r' }, await as()));
    expect(seen(fromRemote(error))).toMatchObject({ status: 500, code: 'internal', message: 'internal error' });
  });

  it('the service refusing the edge itself (no ErrorInfo) is the edge’s fault: 500, not 401 or 403', async () => {
    const noToken = await failure(clients.billing.getWallet({ owner }, { deadline: 10_000 }));
    expect(seen(fromRemote(noToken))).toMatchObject({ status: 500, code: 'internal', message: 'internal error' });
    const wrongKind = await failure(clients.billing.getWallet({ owner }, await as({ kind: 'edge' })));
    expect(seen(fromRemote(wrongKind))).toMatchObject({ status: 500, code: 'internal' });
  });

  it('a service that cannot be reached is a 503 with retry-after', async () => {
    const error = await failure(unreachable.billing.getWallet({ owner }, await as()));
    expect((error as ClientError).code).toBe(Status.UNAVAILABLE);
    expect(seen(fromRemote(error))).toEqual({
      status: 503,
      code: 'unavailable',
      message: 'a backend service is unavailable; retry shortly',
      extras: {},
      headers: { 'retry-after': '1' },
    });
  });
});

describe('fromRemote, code by code', () => {
  it.each([
    ['unauthorized', Status.UNAUTHENTICATED, 401],
    ['forbidden', Status.PERMISSION_DENIED, 403],
    ['not_found', Status.NOT_FOUND, 404],
    ['conflict', Status.ABORTED, 409],
    ['unprocessable', Status.FAILED_PRECONDITION, 422],
    ['owner_consent_required', Status.FAILED_PRECONDITION, 422],
    ['rate_limited', Status.RESOURCE_EXHAUSTED, 429],
    ['insufficient_credits', Status.FAILED_PRECONDITION, 402],
    ['coverage_required', Status.FAILED_PRECONDITION, 402],
    ['community_over_quota', Status.FAILED_PRECONDITION, 402],
    ['bad_request', Status.INVALID_ARGUMENT, 400],
    ['invalid_request', Status.INVALID_ARGUMENT, 400],
    ['search_unavailable', Status.UNAVAILABLE, 502],
  ] as const)('%s (gRPC %s) becomes HTTP %s with its code and message', (code, status, http) => {
    expect(seen(fromRemote(remote(status, code, `why ${code}`)))).toEqual({
      status: http,
      code,
      message: `why ${code}`,
      extras: {},
      headers: {},
    });
  });

  it('the code decides, not the gRPC status, when the code is known', () => {
    // A service that picked an odd status for a known code still yields the code's HTTP status.
    expect(fromRemote(remote(Status.INVALID_ARGUMENT, 'not_found')).status).toBe(404);
  });

  it.each([
    [Status.FAILED_PRECONDITION, 422],
    [Status.INVALID_ARGUMENT, 400],
    [Status.NOT_FOUND, 404],
    [Status.ALREADY_EXISTS, 409],
    [Status.RESOURCE_EXHAUSTED, 429],
  ] as const)('an unknown code with gRPC %s passes through as HTTP %s', (status, http) => {
    expect(seen(fromRemote(remote(status, 'brand_new_code', 'a new rule')))).toMatchObject({
      status: http,
      code: 'brand_new_code',
      message: 'a new rule',
    });
  });

  it('an unknown code with a status the table does not know is a 500 that hides the message', () => {
    expect(seen(fromRemote(remote(Status.DATA_LOSS, 'brand_new_code', 'disk /dev/sda1 lost')))).toMatchObject({
      status: 500,
      message: 'internal error',
    });
  });

  it('passes available_at and payer, and nothing else, from the metadata', () => {
    const error = remote(Status.FAILED_PRECONDITION, 'owner_consent_required', 'ask the owner', {
      available_at: '2030-01-01T00:00:00Z',
      payer: '{"type":"user","id":"u_ada"}',
      internal_host: 'db-7',
    });
    expect(fromRemote(error).extras).toEqual({
      available_at: '2030-01-01T00:00:00Z',
      payer: { type: 'user', id: 'u_ada' },
    });
  });

  it('still answers with the domain error when the payer extra is not JSON', () => {
    const error = remote(Status.FAILED_PRECONDITION, 'insufficient_credits', 'top up', { payer: 'o_lab' });
    const api = fromRemote(error);
    expect(api).toBeInstanceOf(ApiError);
    expect(api).toMatchObject({ status: 402, code: 'insufficient_credits', message: 'top up' });
    expect(api.extras).not.toHaveProperty('payer');
  });

  it('ignores an ErrorInfo from another domain', () => {
    const foreign = remote(Status.NOT_FOUND, 'not_found', 'from a library', {}, 'googleapis.com');
    expect(seen(fromRemote(foreign))).toMatchObject({ status: 500, code: 'internal', message: 'internal error' });
  });

  it('INTERNAL without ErrorInfo is a bare 500', () => {
    const error = new ClientError(PATH, Status.INTERNAL, 'stack trace: at db.query (pg.js:12)');
    expect(seen(fromRemote(error))).toEqual({ status: 500, code: 'internal', message: 'internal error', extras: {}, headers: {} });
  });

  it.each([Status.UNAVAILABLE, Status.DEADLINE_EXCEEDED])('gRPC %s without ErrorInfo is a 503 with retry-after', (status) => {
    const api = fromRemote(new ClientError(PATH, status, 'No connection established'));
    expect(seen(api)).toMatchObject({ status: 503, code: 'unavailable', headers: { 'retry-after': '1' } });
    expect(api.message).not.toContain('connection established');
  });

  it('a plain Error (not a gRPC failure) is a bare 500', () => {
    expect(seen(fromRemote(new Error('db password=hunter2')))).toEqual({
      status: 500,
      code: 'internal',
      message: 'internal error',
      extras: {},
      headers: {},
    });
    expect(fromRemote('a string').status).toBe(500);
    expect(fromRemote(undefined).status).toBe(500);
  });

  it('an ApiError passes through unchanged', () => {
    const original = new ApiError(418, 'teapot', 'short and stout', { x: 1 }, { 'x-h': 'v' });
    expect(fromRemote(original)).toBe(original);
  });
});
