// One process (`npm start`) whose gRPC listens on every interface: its gRPC is mutual TLS with a
// CA and certificate it makes in its data folder on first start, said in its start-up line; a
// plaintext client is refused, and the admin CLI given nothing but the data folder reaches it
// (running.json says TLS; the CLI makes itself an operator certificate from the same CA).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseListenReport, type ListenReport } from '../deploy/launcher/listen-report.js';
import { GRPC_ADDRESS_VARIABLES, SERVICE_ROLES } from '../services/kit/config.js';
import { checkGrpcHealth } from '../services/kit/grpc/health.js';
import { repoRoot } from '../services/kit/paths.js';
import { adminJson, dataDirOnlyEnv } from './helpers/admin-cli.js';
import { ANY_PORT_ENV } from './helpers/any-port-env.js';

describe('one process with gRPC off loopback', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'en-one-tls-'));
  let child: ChildProcess;
  let output = '';
  let listening: ListenReport;
  beforeAll(async () => {
    const seedFile = join(dataDir, 'seed.json');
    writeFileSync(seedFile, JSON.stringify({ users: [{ id: 'u_ada', email: 'ada@example.org', name: 'Ada' }] }));
    child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'deploy', 'launcher', 'main.ts')], {
      cwd: repoRoot,
      env: {
        ...process.env, ...ANY_PORT_ENV, DATABASE_URL: '', REDIS_URL: '', DATA_DIR: dataDir, SEED_FILE: seedFile, ROLES: 'all', LOG_LEVEL: 'warn',
        ...Object.fromEntries(SERVICE_ROLES.map((s) => [GRPC_ADDRESS_VARIABLES[s], '0.0.0.0:0'])),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    for (;;) {
      const report = parseListenReport(output);
      if (report) {
        listening = report;
        break;
      }
      if (child.exitCode !== null) throw new Error(`exited before listening:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 180_000);
  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  });

  it('says at start-up that its gRPC is mutual TLS with a CA made in its data folder', () => {
    expect(output).toContain(`gRPC:      mutual TLS (CA and certificates in ${join(dataDir, 'grpc-tls')})`);
    expect(existsSync(join(dataDir, 'grpc-tls', 'ca', 'ca.pem'))).toBe(true);
  });

  it('refuses a plaintext client on every service', async () => {
    for (const role of SERVICE_ROLES) expect(await checkGrpcHealth(listening.grpc[role]!), role).toBe(false);
  });

  it('is reached by the admin CLI given only the data folder, over mutual TLS', async () => {
    const health = await adminJson(dataDirOnlyEnv(dataDir), ['health']);
    for (const role of SERVICE_ROLES) expect(health[role], role).toMatchObject({ serving: true });
    expect(existsSync(join(dataDir, 'grpc-tls', 'operator', 'cert.pem'))).toBe(true);
  });
});
