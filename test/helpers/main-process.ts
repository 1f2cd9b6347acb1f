// The one-process mode (`npm start`: services/main.ts with ROLES=all) as a child process, on ports
// the OS picks: every port variable is 0 and the URLs and gRPC addresses are read from what the
// process reports once it listens (its start-up lines and its "gRPC service listening" log lines).
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { SERVICE_ROLES, type ServiceRole } from '../../services/kit/config.js';
import { repoRoot } from '../../services/kit/paths.js';

export interface MainProcess {
  child: ChildProcess;
  restUrl: string;
  adminUrl: string;
  /** Where each service's gRPC server listens (as it reported). */
  grpcAddresses: Record<ServiceRole, string>;
  /** The tail of its stdout and stderr. */
  output(): string;
  /** Sends the signal and waits for the process to exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  const gone = child.exitCode !== null || child.signalCode !== null;
  return gone ? Promise.resolve() : new Promise((r) => child.once('exit', () => r()));
}

/**
 * Starts services/main.ts with `env` (DATABASE_URL, secrets, SEED_FILE, …) and every port at 0;
 * resolves once it has reported its REST, admin and gRPC addresses. LOG_LEVEL is info at least,
 * because the gRPC addresses are reported in the log.
 */
export async function startMainProcess(env: Record<string, string>, timeoutMs = 180_000): Promise<MainProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'services', 'main.ts')], {
    cwd: repoRoot,
    env: {
      ...process.env,
      ...env,
      ROLES: 'all',
      PORT: '0',
      MCP_PORT: '0',
      ADMIN_PORT: '0',
      IDENTITY_GRPC_ADDR: '127.0.0.1:0',
      COMMUNITIES_GRPC_ADDR: '127.0.0.1:0',
      SEARCH_GRPC_ADDR: '127.0.0.1:0',
      ENRICHMENT_GRPC_ADDR: '127.0.0.1:0',
      BILLING_GRPC_ADDR: '127.0.0.1:0',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  let pending = '';
  let restUrl: string | undefined;
  let adminUrl: string | undefined;
  const grpc: Partial<Record<ServiceRole, string>> = {};
  const read = (line: string) => {
    const rest = /^REST API:\s+(\S+)\/v1$/.exec(line);
    if (rest) restUrl = rest[1];
    const admin = /^Admin:\s+(\S+)/.exec(line);
    if (admin) adminUrl = admin[1];
    if (line.startsWith('{') && line.includes('gRPC service listening')) {
      const entry = JSON.parse(line) as { service?: ServiceRole; address?: string };
      if (entry.service && entry.address) grpc[entry.service] = entry.address;
    }
  };
  child.stdout!.on('data', (d: Buffer) => {
    tail = (tail + d).slice(-20_000);
    pending += d.toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) read(line.trim());
  });
  child.stderr!.on('data', (d: Buffer) => (tail = (tail + d).slice(-20_000)));

  const deadline = Date.now() + timeoutMs;
  while (!(restUrl && adminUrl && SERVICE_ROLES.every((s) => grpc[s]))) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`main.ts exited (${child.exitCode ?? child.signalCode}) before ready:\n${tail}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`main.ts did not report its addresses within ${timeoutMs} ms:\n${tail}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    restUrl,
    adminUrl,
    grpcAddresses: grpc as Record<ServiceRole, string>,
    output: () => tail,
    async kill(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited(child);
    },
  };
}
