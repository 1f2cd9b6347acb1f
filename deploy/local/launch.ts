// The local multi-process topology: every role in its own process (the same entry point as
// `npm start`, with ROLES set), against a shared PostgreSQL and Redis. `npm run topology` runs it
// in the foreground; tests call launchTopology() and drive the processes.
//
// No port is chosen here: every process binds port 0 (PORT, ADMIN_PORT, its own gRPC address) and
// reports what it got on its LISTENING line (deploy/launcher/listen-report.ts). Services are reached
// through a forwarder each (./forwarder.ts) that holds one address for the topology's lifetime,
// so the services can call each other before they all have started, and a service restarted on a
// new port is still found by the processes already running.
//
// Every gRPC connection between them is mutual TLS: a CA and a certificate per role (and one for
// the operator, which `env` carries) are made in DATA_DIR/grpc-tls on first start (grpc-tls.ts),
// unless `env` names GRPC_TLS_* files of its own.
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EDGE_ROLES, GRPC_ADDRESS_VARIABLES, SERVICE_ROLES, type Role, type ServiceRole } from '../../services/kit/config.js';
import { parseListenReport, type ListenReport } from '../launcher/listen-report.js';
import { generateSecrets } from '../../services/kit/secrets.js';
import { startForwarder, type Forwarder } from './forwarder.js';
import { RUNTIME_FLAGS } from '../launcher/runtime-flags.js';
import { LOCAL_TLS_FOLDER, localCertificate, roleHosts } from '../launcher/grpc-tls.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface RoleProcess {
  role: string;
  child: ChildProcess;
  /** The process's admin server (from its LISTENING line). */
  adminUrl: string;
  /** Every port the process bound, as it reported them: admin, rest (gateway), grpc (its service). */
  listening: ListenReport;
  output(): string;
  /** The start of its stdout (20,000 characters): what it printed at start-up, however long it ran since. */
  startOutput(): string;
}

export interface Topology {
  /** The first gateway replica's URL. */
  restUrl: string;
  /** Every gateway replica's URL. */
  restUrls: string[];
  processes: RoleProcess[];
  /** The environment every process shares (addresses, secrets): enough to act as the operator. */
  env: Record<string, string>;
  /** Where each service is reached (the same addresses as in `env`); stable across startRole. */
  grpcAddresses: Record<ServiceRole, string>;
  /** Stops one role's process (SIGTERM; SIGKILL to crash it) and waits for it to exit. */
  stopRole(role: string, signal?: NodeJS.Signals): Promise<void>;
  /** Starts a stopped service role again (same address and environment), or one more gateway, and waits until it is ready. */
  startRole(role: string): Promise<void>;
  stop(): Promise<void>;
}

async function waitFor(url: string, child: ChildProcess, output: () => string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`process exited (${child.exitCode}) before ready:\n${output()}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} not ready after ${timeoutMs} ms:\n${output()}`);
}

/** Waits for the process's LISTENING line: the ports it bound. */
async function listeningOf(child: ChildProcess, output: () => string, timeoutMs: number): Promise<ListenReport> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const report = parseListenReport(output());
    if (report) return report;
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`process exited (${child.exitCode ?? child.signalCode}) before listening:\n${output()}`);
    if (Date.now() > deadline) throw new Error(`no LISTENING line after ${timeoutMs} ms:\n${output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function exited(child: ChildProcess): Promise<void> {
  const gone = child.exitCode !== null || child.signalCode !== null;
  return gone ? Promise.resolve() : new Promise((r) => child.once('exit', () => r()));
}

/**
 * Starts each service role, then the gateway, each as its own process. `env` must carry
 * DATABASE_URL (the processes share it) and may carry REDIS_URL, SEED_FILE and anything else.
 */
export async function launchTopology(
  env: Record<string, string>,
  options: { readyTimeoutMs?: number; gateways?: number } = {},
): Promise<Topology> {
  if (!env.DATABASE_URL) throw new Error('the multi-process topology needs DATABASE_URL (PGlite has a single owner)');
  const secrets = generateSecrets();
  const dataDir = resolve(repoRoot, env.DATA_DIR ?? '.data');
  // The topology's own certificates, unless the caller brought its own files.
  const tlsFolder = env.GRPC_TLS_CA_FILE ? undefined : join(dataDir, LOCAL_TLS_FOLDER);
  const operator = tlsFolder && localCertificate(tlsFolder, 'operator');
  const shared: Record<string, string> = {
    DATA_DIR: dataDir,
    ...(operator && { GRPC_TLS_CA_FILE: operator.caFile, GRPC_TLS_CERT_FILE: operator.certFile, GRPC_TLS_KEY_FILE: operator.keyFile }),
    API_KEY_PEPPER: secrets.apiKeyPepper,
    CALLER_TOKEN_PRIVATE_KEY: secrets.callerTokenPrivateKey,
    CALLER_TOKEN_PUBLIC_KEY: secrets.callerTokenPublicKey,
    HOST: '127.0.0.1',
    ...env,
  };
  // Each service gets a forwarder unless the caller named its address.
  const forwarders = new Map<ServiceRole, Forwarder>();
  const processes: RoleProcess[] = [];
  const stop = async () => {
    for (const p of [...processes].reverse()) {
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM');
      await exited(p.child);
    }
    for (const f of forwarders.values()) await f.close();
  };
  const timeout = options.readyTimeoutMs ?? 60_000;

  /** Spawns one role on ports of its own choosing and waits for it to report them. */
  const start = async (role: string, extra: Record<string, string>) => {
    const own: Record<string, string> = { ADMIN_PORT: '0' };
    if (tlsFolder) {
      const cert = localCertificate(tlsFolder, role, roleHosts([role]));
      Object.assign(own, { GRPC_TLS_CERT_FILE: cert.certFile, GRPC_TLS_KEY_FILE: cert.keyFile });
    }
    const forwarder = forwarders.get(role as ServiceRole);
    if (forwarder) own[GRPC_ADDRESS_VARIABLES[role as ServiceRole]] = '127.0.0.1:0';
    let log = '';
    let head = '';
    const childEnv: NodeJS.ProcessEnv = { ...process.env, ...shared, ...extra, ...own, ROLES: role };
    // As in a cluster, a service gets the edge's public key alone: it signs no caller token
    // (it forwards the one it receives; its certificate names it: docs/GRPC.md).
    if (!EDGE_ROLES.includes(role as Role)) delete childEnv.CALLER_TOKEN_PRIVATE_KEY;
    const child = spawn(process.execPath, [...RUNTIME_FLAGS, '--import', 'tsx', join(repoRoot, 'deploy', 'launcher', 'main.ts')], {
      cwd: repoRoot,
      env: childEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d) => {
      log = (log + d).slice(-20_000);
      if (head.length < 20_000) head = (head + d).slice(0, 20_000);
    });
    child.stderr!.on('data', (d) => (log = (log + d).slice(-20_000)));
    const rp: RoleProcess = { role, child, adminUrl: '', listening: { admin: '', grpc: {} }, output: () => log, startOutput: () => head };
    processes.push(rp);
    rp.listening = await listeningOf(child, rp.output, timeout);
    rp.adminUrl = rp.listening.admin;
    const bound = rp.listening.grpc[role];
    if (forwarder && bound) forwarder.setTarget(bound);
    return rp;
  };

  try {
    for (const s of SERVICE_ROLES) {
      if (shared[GRPC_ADDRESS_VARIABLES[s]]) continue;
      const forwarder = await startForwarder();
      forwarders.set(s, forwarder);
      shared[GRPC_ADDRESS_VARIABLES[s]] = forwarder.address;
    }
    const grpcAddresses = Object.fromEntries(SERVICE_ROLES.map((s) => [s, shared[GRPC_ADDRESS_VARIABLES[s]]!])) as Record<ServiceRole, string>;
    const services = await Promise.all(SERVICE_ROLES.map((s) => start(s, {})));
    await Promise.all(services.map((p) => waitFor(`${p.adminUrl}/readyz`, p.child, p.output, timeout)));
    // Replicas start one after another: the first applies the seed, the others find it applied.
    const restUrls: string[] = [];
    for (let i = 0; i < (options.gateways ?? 1); i++) {
      const gateway = await start('gateway', { PORT: i === 0 && env.PORT ? env.PORT : '0', SETTINGS_PORT: i === 0 && env.SETTINGS_PORT ? env.SETTINGS_PORT : '0' });
      await waitFor(`${gateway.adminUrl}/readyz`, gateway.child, gateway.output, timeout);
      restUrls.push(gateway.listening.rest!);
    }
    return {
      restUrl: restUrls[0]!,
      restUrls,
      env: shared,
      grpcAddresses,
      processes,
      async stopRole(role, signal = 'SIGTERM') {
        const p = processes.find((x) => x.role === role && x.child.exitCode === null && x.child.signalCode === null);
        if (!p) throw new Error(`no ${role} process`);
        forwarders.get(role as ServiceRole)?.setTarget(undefined);
        p.child.kill(signal);
        await exited(p.child);
      },
      async startRole(role) {
        // A service runs once behind its forwarder; a gateway may run as several replicas.
        if (forwarders.has(role as ServiceRole) && processes.some((x) => x.role === role && x.child.exitCode === null && x.child.signalCode === null)) {
          throw new Error(`${role} is running`);
        }
        const p = await start(role, {});
        await waitFor(`${p.adminUrl}/readyz`, p.child, p.output, timeout);
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
  const topology = await launchTopology(env, { gateways: Number(process.env.GATEWAYS ?? 1) });
  const { supervise } = await import('./supervise.js');
  const tlsEnv = ['GRPC_TLS_CA_FILE', 'GRPC_TLS_CERT_FILE', 'GRPC_TLS_KEY_FILE'].map((v) => `${v}=${topology.env[v]}`).join(' ');
  console.log(`gRPC: mutual TLS; the operator's certificate: ${tlsEnv}`);
  // The gateway's start-up lines (URLs, key, sign-in link), each process's line, restarts.
  const supervisor = supervise(topology);
  const shutdown = () => void supervisor.stop().then(() => process.exit(0));
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}
