// The local multi-process topology: every role in its own process (the same entry point as
// `npm start`, with ROLES set), against a shared PostgreSQL and Redis. `npm run topology` runs it
// in the foreground; tests call launchTopology() and drive the processes.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GRPC_ADDRESS_VARIABLES, SERVICE_ROLES } from '../../services/kit/config.js';
import { generateSecrets } from '../../services/kit/secrets.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject).listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolvePort(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export interface RoleProcess {
  role: string;
  child: ChildProcess;
  adminUrl: string;
  output(): string;
}

export interface Topology {
  /** The first gateway replica's URL. */
  restUrl: string;
  /** Every gateway replica's URL. */
  restUrls: string[];
  processes: RoleProcess[];
  /** The environment every process shares (addresses, secrets): enough to act as the operator. */
  env: Record<string, string>;
  /** Stops one role's process (SIGTERM; SIGKILL to crash it) and waits for it to exit. */
  stopRole(role: string, signal?: NodeJS.Signals): Promise<void>;
  /** Starts a stopped service role again (same address and environment) and waits until it is ready. */
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
  const shared: Record<string, string> = {
    API_KEY_PEPPER: secrets.apiKeyPepper,
    CALLER_TOKEN_PRIVATE_KEY: secrets.callerTokenPrivateKey,
    CALLER_TOKEN_PUBLIC_KEY: secrets.callerTokenPublicKey,
    HOST: '127.0.0.1',
    ...env,
  };
  for (const s of SERVICE_ROLES) shared[GRPC_ADDRESS_VARIABLES[s]] ??= `127.0.0.1:${await freePort()}`;
  const processes: RoleProcess[] = [];

  const start = async (role: string, extra: Record<string, string>) => {
    const adminPort = String(await freePort());
    let log = '';
    const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'services', 'main.ts')], {
      cwd: repoRoot,
      env: { ...process.env, ...shared, ...extra, ROLES: role, ADMIN_PORT: adminPort },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d) => (log = (log + d).slice(-20_000)));
    child.stderr!.on('data', (d) => (log = (log + d).slice(-20_000)));
    const rp: RoleProcess = { role, child, adminUrl: `http://127.0.0.1:${adminPort}`, output: () => log };
    processes.push(rp);
    return rp;
  };

  const stop = async () => {
    for (const p of [...processes].reverse()) {
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM');
      await exited(p.child);
    }
  };

  try {
    const timeout = options.readyTimeoutMs ?? 60_000;
    const services = await Promise.all(SERVICE_ROLES.map((s) => start(s, {})));
    await Promise.all(services.map((p) => waitFor(`${p.adminUrl}/readyz`, p.child, p.output, timeout)));
    // Replicas start one after another: the first applies the seed, the others find it applied.
    const restUrls: string[] = [];
    for (let i = 0; i < (options.gateways ?? 1); i++) {
      const port = i === 0 && env.PORT ? env.PORT : String(await freePort());
      const gateway = await start('gateway', { PORT: port });
      await waitFor(`${gateway.adminUrl}/readyz`, gateway.child, gateway.output, timeout);
      restUrls.push(`http://127.0.0.1:${port}`);
    }
    return {
      restUrl: restUrls[0]!,
      restUrls,
      env: shared,
      processes,
      async stopRole(role, signal = 'SIGTERM') {
        const p = processes.find((x) => x.role === role && x.child.exitCode === null && x.child.signalCode === null);
        if (!p) throw new Error(`no ${role} process`);
        p.child.kill(signal);
        await exited(p.child);
      },
      async startRole(role) {
        if (processes.some((x) => x.role === role && x.child.exitCode === null && x.child.signalCode === null)) {
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
  for (const p of topology.processes) {
    p.child.stdout!.pipe(process.stdout);
    p.child.stderr!.pipe(process.stderr);
  }
  for (const url of topology.restUrls) console.log(`REST API: ${url}/v1`);
  for (const p of topology.processes) console.log(`${p.role.padEnd(12)} pid ${p.child.pid}  admin ${p.adminUrl}`);
  const shutdown = () => void topology.stop().then(() => process.exit(0));
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}
