// Services know each other by their client certificates: over mutual TLS, a call without a token
// from a certificate naming service roles is that service's own; any other certificate (an edge
// role's, an internal team's) proves the connection only, and a name sent in metadata proves
// nothing. A token on the call wins over the certificate: a service forwarding a caller's token
// acts as that caller, not as itself. Real gRPC servers and clients over a CA made here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Metadata, Status } from 'nice-grpc';
import { OwnerType } from '../../../proto/gen/expertnet/common/v1/common.js';
import { createBillingService } from '../../billing/billing.service.js';
import { callerAda } from '../../../test/helpers/grpc-principals.js';
import { SERVICE_ROLES, type ServiceRole } from '../config.js';
import { openPglite } from '../db/pglite-database.js';
import type { Database } from '../db/database.js';
import { migrateAll } from '../db/migrations.js';
import { createLogger } from '../logger.js';
import { generateSecrets } from '../secrets.js';
import { createCertificateAuthority, issueCertificate } from '../tls-certificates.js';
import type { GrpcTls } from '../tls.js';
import { TokenSigner, TokenVerifier } from './caller-token.js';
import { callAs, createServiceClients, type ServiceClients } from './client.js';
import { readRemoteError } from './errors.js';
import { startGrpcServer, type RunningGrpcServer } from './server.js';
import { serviceOfCertificateName } from './peer-role.js';

const DEADLINE_MS = 5_000;
const wallet = { type: OwnerType.OWNER_TYPE_USER, id: 'u_peer' };
const ca = createCertificateAuthority('peer-role test CA');
const tlsAs = (name: string, hosts?: string[]): GrpcTls => {
  const issued = issueCertificate(ca, { name, ...(hosts && { hosts }) });
  return { ca: Buffer.from(ca.cert), cert: Buffer.from(issued.cert), key: Buffer.from(issued.key) };
};

async function failure(promise: Promise<unknown>): Promise<{ code: Status; details: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { code: Status; details: string };
  }
  throw new Error('expected the call to fail');
}

describe('the door of a service over mutual TLS', () => {
  const secrets = generateSecrets();
  const signer = new TokenSigner(secrets);
  let db: Database;
  let tlsServer: RunningGrpcServer;
  let plainServer: RunningGrpcServer;
  const open: ServiceClients[] = [];

  /** Clients of the billing server at `address`, connecting with the certificate `tls` (none: plaintext). */
  const clientsOf = (address: string, tls?: GrpcTls) => {
    const clients = createServiceClients(Object.fromEntries(SERVICE_ROLES.map((r) => [r, address])) as Record<ServiceRole, string>, {}, tls ? { tls } : {});
    open.push(clients);
    return clients;
  };
  const bare = (extra: Record<string, string> = {}) => ({ metadata: Metadata(extra), deadline: DEADLINE_MS });

  beforeAll(async () => {
    db = await openPglite('memory://');
    await migrateAll(db, ['billing']);
    const idle = createServiceClients(Object.fromEntries(SERVICE_ROLES.map((r) => [r, '127.0.0.1:9'])) as Record<ServiceRole, string>);
    open.push(idle);
    const billing = createBillingService({ db, clients: idle, deadlineMs: DEADLINE_MS, logger: createLogger('silent'), enforcement: false });
    const common = { address: '127.0.0.1:0', services: [billing.registration], verifier: new TokenVerifier(secrets), logger: createLogger('silent') };
    tlsServer = await startGrpcServer({ ...common, tls: tlsAs('billing', ['localhost', '127.0.0.1']) });
    plainServer = await startGrpcServer(common);
  });

  afterAll(async () => {
    for (const clients of open) clients.close();
    await tlsServer?.shutdown();
    await plainServer?.shutdown();
    await db?.close();
  });

  it("serves a call without a token from a service role's certificate as that service", async () => {
    const { wallet: found } = await clientsOf(tlsServer.address, tlsAs('search')).billing.getWallet({ owner: wallet }, bare());
    expect(found?.owner).toEqual(wallet);
  });

  it('a service is held to its access list: a method for the operator only is PERMISSION_DENIED', async () => {
    const error = await failure(clientsOf(tlsServer.address, tlsAs('enrichment')).billing.creditWallet({ owner: wallet, amount: 5, reference: 'r' }, bare()));
    expect(error.code).toBe(Status.PERMISSION_DENIED);
    expect(readRemoteError(error)?.message).toBe('service may not call CreditWallet');
  });

  it("refuses a call without a token from an edge role's or an internal team's certificate: UNAUTHENTICATED", async () => {
    for (const name of ['gateway', 'mcp', 'gateway+mcp', 'operator', 'team-analytics', 'search+team-analytics']) {
      const error = await failure(clientsOf(tlsServer.address, tlsAs(name)).billing.getWallet({ owner: wallet }, bare()));
      expect(error.code, name).toBe(Status.UNAUTHENTICATED);
    }
  });

  it('a certificate name sent in metadata proves nothing, over TLS or plaintext', async () => {
    const forged = { 'x-expertnet-peer-certificate-name': 'billing' };
    const overTls = await failure(clientsOf(tlsServer.address, tlsAs('team-analytics')).billing.getWallet({ owner: wallet }, bare(forged)));
    expect(overTls.code).toBe(Status.UNAUTHENTICATED);
    const plain = await failure(clientsOf(plainServer.address).billing.getWallet({ owner: wallet }, bare(forged)));
    expect(plain.code).toBe(Status.UNAUTHENTICATED);
  });

  it("a caller's token forwarded by a service is that caller, not the service: a method callers may not call is refused", async () => {
    const clients = clientsOf(tlsServer.address, tlsAs('search'));
    const error = await failure(clients.billing.getWallet({ owner: wallet }, await callAs(signer, callerAda, 'req-fwd', DEADLINE_MS)));
    expect(error.code).toBe(Status.PERMISSION_DENIED);
    expect(readRemoteError(error)?.message).toBe('caller may not call GetWallet');
    const { rates } = await clients.billing.listRates({}, await callAs(signer, callerAda, 'req-fwd', DEADLINE_MS));
    expect(Array.isArray(rates)).toBe(true);
  });

  it('without a certificate a call is refused at the handshake', async () => {
    const error = await failure(clientsOf(tlsServer.address).billing.getWallet({ owner: wallet }, bare()));
    expect(error.code).toBe(Status.UNAVAILABLE);
  });
});

describe('which certificate names a service', () => {
  it('names of roles only, one or several joined by +, some of them services: those services', () => {
    expect(serviceOfCertificateName('search')).toBe('search');
    expect(serviceOfCertificateName('identity+billing')).toBe('identity+billing');
    expect(serviceOfCertificateName('gateway+mcp+identity+billing')).toBe('identity+billing');
    for (const name of ['gateway', 'mcp', 'gateway+mcp', 'operator', 'identity+team', 'Search', '', undefined]) expect(serviceOfCertificateName(name), String(name)).toBeUndefined();
  });
});
