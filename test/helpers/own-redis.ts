// A redis-server of the test's own, as a child process listening on a unix socket in a temp dir
// (no TCP port, so no find-a-port race, and nothing shared with other runs): a test may freeze it
// (SIGSTOP), thaw it (SIGCONT), kill it and start it again on the same socket. Never the machine's
// shared Redis.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

export interface OwnRedis {
  /** REDIS_URL of this server (redis+unix:///…/redis.sock). */
  url: string;
  socket: string;
  /** SIGSTOP: the process holds its connections and answers nothing. */
  freeze(): void;
  /** SIGCONT after freeze(). */
  thaw(): void;
  /** SIGKILL, waiting for the exit. */
  kill(): Promise<void>;
  /** Starts it again on the same socket (after kill()), waiting until it answers. */
  restart(): Promise<void>;
  /** Stops it (thawed first) and removes its directory. */
  stop(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once('exit', () => r()));
}

async function answers(socket: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (existsSync(socket)) {
      const probe = new Redis({ path: socket, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 500 });
      probe.on('error', () => undefined);
      try {
        await probe.connect();
        if ((await probe.ping()) === 'PONG') return;
      } catch {
        // not ready yet
      } finally {
        probe.disconnect();
      }
    }
    if (Date.now() > deadline) throw new Error(`redis-server on ${socket} did not answer within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function startOwnRedis(): Promise<OwnRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'en-redis-'));
  const socket = join(dir, 'redis.sock');
  let child: ChildProcess;
  const launch = async () => {
    child = spawn('redis-server', ['--port', '0', '--unixsocket', socket, '--unixsocketperm', '700', '--save', '', '--appendonly', 'no', '--dir', dir], {
      stdio: 'ignore',
    });
    await answers(socket, 10_000);
  };
  await launch();
  return {
    url: `redis+unix://${socket}`,
    socket,
    freeze: () => void child.kill('SIGSTOP'),
    thaw: () => void child.kill('SIGCONT'),
    async kill() {
      child.kill('SIGKILL');
      await exited(child);
    },
    async restart() {
      if (child.exitCode === null && child.signalCode === null) throw new Error('redis-server is running');
      await launch();
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGCONT');
        child.kill('SIGTERM');
        await exited(child);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
