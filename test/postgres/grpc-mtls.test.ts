// Mutual TLS between the processes of the multi-process topology (deploy/launcher/grpc-tls.ts):
// the launcher makes a CA and a certificate per role in the data folder on first start, every
// gRPC listener requires a client certificate from that CA, and `grpc client-cert` hands an
// internal team one. A connection without a valid certificate is refused at the handshake: the
// call fails UNAVAILABLE and the service never runs it.
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChannelCredentials, ClientError, createChannel, createClient, Metadata, Status } from 'nice-grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectToServices, type ServiceConnection } from '../../deploy/launcher/wiring.js';
import { launchTopology, type Topology } from '../../deploy/local/launch.js';
import { IdentityServiceDefinition } from '../../proto/gen/expertnet/identity/v1/identity_service.js';
import { loadConfig, SERVICE_ROLES } from '../../services/kit/config.js';
import { callAs } from '../../services/kit/grpc/client.js';
import { checkGrpcHealth } from '../../services/kit/grpc/health.js';
import { repoRoot } from '../../services/kit/paths.js';
import { createCertificateAuthority, issueCertificate } from '../../services/kit/tls-certificates.js';
import { runAdminCli } from '../helpers/admin-cli.js';
import { bearer, request } from '../helpers/http.js';
import { liveKey } from '../helpers/keys.js';
import { redisTestPrefix } from '../helpers/redis-prefix.js';
import { freshPostgresDatabase, type FreshDatabase } from '../helpers/stores.js';

const secret = liveKey();
/** The TLS alert a server sends a client that shows no certificate (RFC 8446 certificate_required). */
const CERTIFICATE_REQUIRED = /alert certificate required/;

describe('gRPC mutual TLS between the processes of the topology', () => {
  const redisPrefix = redisTestPrefix();
  const dataDir = mkdtempSync(join(tmpdir(), 'en-mtls-'));
  const tlsFolder = join(dataDir, 'grpc-tls');
  let db: FreshDatabase;
  let topology: Topology;
  let operator: ServiceConnection;
  beforeAll(async () => {
    db = await freshPostgresDatabase({ migrated: true });
    const seedFile = join(dataDir, 'seed.json');
    writeFileSync(seedFile, JSON.stringify({
      users: [{ id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' }],
      communities: [{ id: 'c_bio', name: 'Biology', owner: { user: 'u_ada' } }],
      profiles: [{ id: 'p_ada', user: 'u_ada', name: 'Ada Lovelace', email: 'ada@example.org' }, { id: 'p_eco', name: 'Elin Ecologist' }],
      memberships: [{ community: 'c_bio', profile: 'p_ada', role: 'owner' }, { community: 'c_bio', profile: 'p_eco' }],
      keys: [{ id: 'k_ada', secret, owner: { user: 'u_ada' }, scopes: ['search:read', 'profile:read'] }],
    }));
    const env = { DATABASE_URL: db.url, REDIS_URL: process.env.REDIS_URL!, ...redisPrefix.env, SEED_FILE: seedFile, DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
    topology = await launchTopology(env, { readyTimeoutMs: 90_000 });
    operator = connectToServices(loadConfig(topology.env));
  }, 180_000);
  afterAll(async () => {
    operator?.clients.close();
    await topology?.stop();
    await db?.drop();
    await redisPrefix.cleanup();
  });

  /** Calls identity.UpsertUser as the operator over the given credentials; the error it fails with. */
  async function upsertUserOver(credentials: ChannelCredentials, userId: string): Promise<ClientError> {
    const channel = createChannel(topology.grpcAddresses.identity, credentials);
    try {
      const identity = createClient(IdentityServiceDefinition, channel);
      const metadata = Metadata({ authorization: `Bearer ${await operator.signer.sign({ kind: 'operator', actor: 'test' })}` });
      await identity.upsertUser({ user: { id: userId, email: `${userId}@example.org`, name: userId } }, { metadata, signal: AbortSignal.timeout(10_000) });
    } catch (error) {
      if (error instanceof ClientError) return error;
      throw error;
    } finally {
      channel.close();
    }
    throw new Error('the call went through');
  }

  async function userExists(userId: string): Promise<boolean> {
    try {
      await operator.clients.identity.getUser({ userId }, await callAs(operator.signer, { kind: 'operator', actor: 'test' }, undefined, 10_000));
      return true;
    } catch (error) {
      if (error instanceof ClientError && error.code === Status.NOT_FOUND) return false;
      throw error;
    }
  }

  it('makes a CA and a certificate per role signed by it in the data folder on first start, and every process says mutual TLS at start-up', () => {
    const ca = new X509Certificate(readFileSync(join(tlsFolder, 'ca', 'ca.pem')));
    expect(ca.ca).toBe(true);
    for (const role of [...SERVICE_ROLES, 'gateway']) {
      const cert = new X509Certificate(readFileSync(join(tlsFolder, role, 'cert.pem')));
      expect(cert.subject, role).toBe(`CN=${role}`);
      expect(cert.checkIssued(ca), role).toBe(true);
      expect(cert.verify(ca.publicKey), role).toBe(true);
    }
    for (const p of topology.processes) expect(p.output(), p.role).toContain('gRPC:      mutual TLS');
  });

  it('answers GET /v1/me through the gateway, whose calls to identity and billing go over mutual TLS', async () => {
    const res = await request(topology.restUrl, 'GET', '/v1/me', { headers: bearer(secret) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ key: { id: 'k_ada' }, owner: { id: 'u_ada' } });
  });

  it("every service answers its health to the operator's certificate and to nothing in plaintext", async () => {
    for (const role of SERVICE_ROLES) {
      expect(await checkGrpcHealth(topology.grpcAddresses[role], '', 5000, operator.tls), role).toBe(true);
      expect(await checkGrpcHealth(topology.grpcAddresses[role], '', 5000), role).toBe(false);
    }
  });

  it('refuses at the handshake a client that shows no certificate: UNAVAILABLE, and the call never runs', async () => {
    const ca = readFileSync(join(tlsFolder, 'ca', 'ca.pem'));
    const error = await upsertUserOver(ChannelCredentials.createSsl(ca), 'u_no_cert');
    expect(error.code).toBe(Status.UNAVAILABLE);
    expect(error.details).toMatch(CERTIFICATE_REQUIRED);
    expect(await userExists('u_no_cert')).toBe(false);
    // The same call with the operator's certificate goes through: the refusal was the certificate's.
    const { ca: caPem, cert, key } = operator.tls!;
    await expect(upsertUserOver(ChannelCredentials.createSsl(caPem, key, cert), 'u_with_cert')).rejects.toThrow('the call went through');
    expect(await userExists('u_with_cert')).toBe(true);
  });

  it('refuses at the handshake a client certificate signed by another CA, and the call never runs', async () => {
    const other = createCertificateAuthority('another CA');
    const stranger = issueCertificate(other, { name: 'stranger' });
    const ca = readFileSync(join(tlsFolder, 'ca', 'ca.pem'));
    const error = await upsertUserOver(ChannelCredentials.createSsl(ca, Buffer.from(stranger.key), Buffer.from(stranger.cert)), 'u_other_ca');
    expect(error.code).toBe(Status.UNAVAILABLE);
    expect(await userExists('u_other_ca')).toBe(false);
    // identity serves meanwhile, to a certificate of its own CA.
    expect(await checkGrpcHealth(topology.grpcAddresses.identity, '', 5000, operator.tls)).toBe(true);
  });

  it("`grpc client-cert` writes a team's ca.pem, client.pem and client-key.pem, with which a client in its own process and an API key lists a roster", async () => {
    const out = join(dataDir, 'team-x');
    const made = await runAdminCli(topology.env, ['grpc', 'client-cert', '--name', 'team-x', '--out', out, '--json']);
    expect(made.stderr).toBe('');
    expect(made.code).toBe(0);
    expect(JSON.parse(made.stdout)).toMatchObject({ name: 'team-x', cert_file: join(out, 'client.pem') });
    const cert = new X509Certificate(readFileSync(join(out, 'client.pem')));
    expect(cert.subject).toBe('CN=team-x');
    expect(cert.checkIssued(new X509Certificate(readFileSync(join(out, 'ca.pem'))))).toBe(true);
    // Written once: the same folder again is refused, the files left as they were.
    const again = await runAdminCli(topology.env, ['grpc', 'client-cert', '--name', 'team-x', '--out', out]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('client-key.pem exists');
    expect(new X509Certificate(readFileSync(join(out, 'client.pem'))).serialNumber).toBe(cert.serialNumber);

    const base = { CA_DIR: out, COMMUNITIES_ADDR: topology.grpcAddresses.communities, COMMUNITY_ID: 'c_bio', BEARER: secret };
    const listed = await teamClient({ ...base, TLS_DIR: out });
    expect(listed.members?.sort()).toEqual(['p_ada', 'p_eco']);
    // Through the handshake the service itself still checks the bearer.
    expect(await teamClient({ ...base, TLS_DIR: out, BEARER: 'not-a-credential' })).toMatchObject({ status: Status.UNAUTHENTICATED, reason: 'unauthorized' });
    // The same client without the certificate never reaches it.
    const refused = await teamClient(base);
    expect(refused.status).toBe(Status.UNAVAILABLE);
    expect(refused.message).toMatch(CERTIFICATE_REQUIRED);
  });
});

/** Runs test/fixtures/grpc-tls/client.ts in its own process with `env`; its one JSON line. */
function teamClient(env: Record<string, string>): Promise<any> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', join(repoRoot, 'test', 'fixtures', 'grpc-tls', 'client.ts')],
      { cwd: repoRoot, env: { PATH: process.env.PATH, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout.trim().split('\n').pop()!))),
    );
  });
}
