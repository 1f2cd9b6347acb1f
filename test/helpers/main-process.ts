// The one-process mode (`npm start`: deploy/launcher/main.ts with ROLES=all) as a child process, on ports
// the OS picks: every port variable is 0 and the URLs and gRPC addresses are read from the one
// line the process reports once it listens (deploy/launcher/listen-report.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { SERVICE_ROLES, type ServiceRole } from '../../services/kit/config.js';
import { parseListenReport, type ListenReport } from '../../deploy/launcher/listen-report.js';
import { repoRoot } from '../../services/kit/paths.js';
import { ANY_PORT_ENV } from './any-port-env.js';

export interface MainProcess {
  child: ChildProcess;
  restUrl: string;
  adminUrl: string;
  /** The MCP endpoint's URL. */
  mcpUrl: string;
  /** Where each service's gRPC server listens (as it reported). */
  grpcAddresses: Record<ServiceRole, string>;
  /** Its whole LISTENING line (the settings app's address too). */
  listening: ListenReport;
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
 * Starts deploy/launcher/main.ts with `env` (DATABASE_URL, secrets, SEED_FILE, …) and every port at 0;
 * resolves once it has reported its REST, admin and gRPC addresses.
 */
export async function startMainProcess(env: Record<string, string>, timeoutMs = 180_000): Promise<MainProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'deploy', 'launcher', 'main.ts')], {
    cwd: repoRoot,
    env: {
      ...process.env,
      ...env,
      ROLES: 'all',
      ...ANY_PORT_ENV,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The whole stdout is kept until the report line arrives (it comes after the start-up logs).
  let out = '';
  let tail = '';
  child.stdout!.on('data', (d: Buffer) => {
    tail = (tail + d).slice(-20_000);
    if (!parseListenReport(out)) out += d.toString('utf8');
  });
  child.stderr!.on('data', (d: Buffer) => (tail = (tail + d).slice(-20_000)));

  const deadline = Date.now() + timeoutMs;
  let report = parseListenReport(out);
  while (!report?.rest || !SERVICE_ROLES.every((s) => report!.grpc[s])) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`main.ts exited (${child.exitCode ?? child.signalCode}) before ready:\n${tail}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`main.ts did not report its addresses within ${timeoutMs} ms:\n${tail}`);
    }
    await new Promise((r) => setTimeout(r, 100));
    report = parseListenReport(out);
  }
  const restUrl = report.rest;
  const adminUrl = report.admin;
  const grpc = report.grpc;
  return {
    child,
    restUrl,
    adminUrl,
    mcpUrl: report.mcp ?? '',
    grpcAddresses: grpc as Record<ServiceRole, string>,
    listening: report,
    output: () => tail,
    async kill(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited(child);
    },
  };
}
