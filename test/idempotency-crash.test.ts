// A gateway process killed (SIGKILL) while it holds an Idempotency-Key claim: after a restart, the
// first retry with the same key runs the operation at once — no 409 for the rest of the dead
// claim's lease, stretched here to an hour — and a later retry replays it. Before the crash, the 409 a concurrent retry gets
// says in Retry-After how long the holder's lease has left.
//
// The gateway runs alone in a child process (`deploy/launcher/main.ts`, ROLES=gateway, every port 0 and
// reported on its banner) over its own store, in front of an in-process system's services. Its
// calls to the communities service pass through a TCP relay the test can hold, so the bulk add is
// still running, claim held, when the process is killed.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LEASE_SECONDS } from '../gateway/core/idempotency/policy.js';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { GRPC_ADDRESS_VARIABLES, SERVICE_ROLES } from '../services/kit/config.js';
import { openDatabase } from '../services/kit/db/open-database.js';
import { callAs } from '../services/kit/grpc/client.js';
import { repoRoot } from '../services/kit/paths.js';
import { bearer, request } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { freshPostgresDatabase, storeNames, type FreshDatabase } from './helpers/stores.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const writer = liveKey();
const seed: SeedInput = {
  users: [{ id: 'u_manager', email: 'manager@example.org', name: 'Manager' }],
  organizations: [{ id: 'o_lab', name: 'Lab', members: [{ user: 'u_manager', role: 'admin' }] }],
  communities: [{ id: 'c_bio', name: 'Biology', owner: { organization: 'o_lab' }, api_writes: true }],
  keys: [{ id: 'k_writer', secret: writer, owner: { user: 'u_manager' }, scopes: ['member:write'], requested_rate: 6000 }],
};

/** A TCP relay to `target` that can hold what clients send (queued, never delivered if they go away). */
interface Relay {
  address: string;
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

async function startRelay(target: string): Promise<Relay> {
  const colon = target.lastIndexOf(':');
  const [host, port] = [target.slice(0, colon), Number(target.slice(colon + 1))];
  let holding = false;
  const links = new Set<{ client: Socket; upstream: Socket; queue: Buffer[] }>();
  const server: Server = createServer((client) => {
    const link = { client, upstream: connect({ host, port }), queue: [] as Buffer[] };
    links.add(link);
    link.upstream.pipe(client);
    client.on('data', (chunk: Buffer) => (holding ? link.queue.push(chunk) : link.upstream.write(chunk)));
    const drop = () => {
      // The client is gone: what it sent while held is dropped, never delivered.
      link.queue = [];
      link.upstream.destroy();
      client.destroy();
      links.delete(link);
    };
    client.on('close', drop);
    client.on('error', drop);
    link.upstream.on('error', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: relayPort } = server.address() as { port: number };
  return {
    address: `127.0.0.1:${relayPort}`,
    hold: () => (holding = true),
    release() {
      holding = false;
      for (const link of links) for (const chunk of link.queue.splice(0)) link.upstream.write(chunk);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const link of links) link.client.destroy();
        server.close(() => resolve());
      }),
  };
}

interface Gateway {
  child: ChildProcess;
  restUrl: string;
}

async function startGateway(env: Record<string, string>): Promise<Gateway> {
  let output = '';
  const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'deploy', 'launcher', 'main.ts')], {
    cwd: repoRoot,
    env: { ...process.env, REDIS_URL: '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const deadline = Date.now() + 240_000; // a loaded machine starts slowly
  while (!/^Admin:/m.test(output)) {
    if (child.exitCode !== null) throw new Error(`the gateway exited early:\n${output}`);
    if (Date.now() > deadline) throw new Error(`no start-up banner:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const restUrl = /^REST API:\s+(\S+)\/v1$/m.exec(output)?.[1];
  if (!restUrl) throw new Error(`no REST URL on the banner:\n${output}`);
  return { child, restUrl };
}

const killed = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });

describe.each(storeNames())('an idempotency claim held by a gateway killed mid-request, on %s', (store) => {
  let backend: TestSystem | undefined;
  let relay: Relay | undefined;
  let edgeDb: FreshDatabase | undefined;
  const gateways: Gateway[] = [];
  afterAll(async () => {
    for (const g of gateways) await killed(g.child);
    await relay?.close();
    await backend?.stop();
    await edgeDb?.drop();
  });

  it('is released on restart: the first retry with the key runs the operation, the next replays it', async () => {
    backend = await startTestSystem({ store, seed });
    relay = await startRelay(backend.grpcAddresses.communities);
    const seedFile = join(mkdtempSync(join(tmpdir(), 'en-crash-')), 'empty-seed.json');
    writeFileSync(seedFile, '{}'); // the backend is seeded already; the gateway adds nothing
    const env: Record<string, string> = {
      ROLES: 'gateway',
      PORT: '0',
      MCP_PORT: '0',
      SETTINGS_PORT: '0',
      ADMIN_PORT: '0',
      SEED_FILE: seedFile,
      GRPC_DEADLINE_MS: '60000',
      API_KEY_PEPPER: backend.secrets.apiKeyPepper,
      CALLER_TOKEN_PRIVATE_KEY: backend.secrets.callerTokenPrivateKey,
      CALLER_TOKEN_PUBLIC_KEY: backend.secrets.callerTokenPublicKey,
      OPERATOR_TOKEN_PRIVATE_KEY: backend.secrets.operatorTokenPrivateKey,
      OPERATOR_TOKEN_PUBLIC_KEY: backend.secrets.operatorTokenPublicKey,
      ...Object.fromEntries(SERVICE_ROLES.map((s) => [GRPC_ADDRESS_VARIABLES[s], backend!.grpcAddresses[s]])),
      COMMUNITIES_GRPC_ADDR: relay.address,
    };
    // The gateway's own store for its idempotency records, kept across the restart.
    if (store === 'postgres') {
      edgeDb = await freshPostgresDatabase();
      Object.assign(env, { DATABASE_URL: edgeDb.url, DATA_DIR: 'memory://' });
    } else {
      Object.assign(env, { DATABASE_URL: '', DATA_DIR: mkdtempSync(join(tmpdir(), 'en-crash-edge-')) });
    }
    // Fresh call options each time: a caller token is short-lived and this test outlasts one.
    const members = async () =>
      (await backend!.clients.communities.countMembers({ communityId: 'c_bio' }, await callAs(backend!.signer, { kind: 'operator', actor: 'test' }, undefined, 10_000))).count;

    const key = 'crash-retry-1';
    const body = { members: [{ name: 'Crash Survivor' }] };
    const add = (g: Gateway) =>
      request(g.restUrl, 'POST', '/v1/communities/c_bio/members', { headers: { ...bearer(writer), 'idempotency-key': key }, body });

    const first = await startGateway(env);
    gateways.push(first);
    relay.hold();
    // Whichever of these requests claims the key first is held at the relay (never answered: the
    // process dies first); the claim is held once another one is told so. A request that claimed
    // it is not awaited, or the loop would wait out the call's deadline on it.
    const sent: Promise<unknown>[] = [];
    const answerWithin = (ms: number) => {
      const call = add(first).catch(() => undefined);
      sent.push(call);
      return Promise.race([call, new Promise<undefined>((r) => setTimeout(() => r(undefined), ms))]);
    };
    void answerWithin(0);
    let busy = await answerWithin(3000);
    for (let i = 0; i < 100 && busy?.status !== 409; i++) {
      await new Promise((r) => setTimeout(r, 100));
      busy = await answerWithin(3000);
    }
    if (!busy) throw new Error('no retry was told that the key is in use');
    expect(busy.status, JSON.stringify(busy.body)).toBe(409);
    expect(busy.body.error).toMatchObject({ code: 'conflict', request_id: busy.headers.get('x-request-id') });
    const retryAfter = Number(busy.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(LEASE_SECONDS - 10);
    expect(retryAfter).toBeLessThanOrEqual(LEASE_SECONDS);

    await killed(first.child);
    await Promise.all(sent);
    relay.release();
    expect(await members()).toBe(0);

    // The dead claim names its holder. Its lease is stretched to an hour, so that only knowing the
    // holder dead — not a lease running out while the gateway restarts — can free the key.
    const edgeStore = await openDatabase({ DATABASE_URL: env.DATABASE_URL || undefined, DATA_DIR: env.DATA_DIR! });
    try {
      const held = await edgeStore.query(
        `UPDATE edge.idempotency_records SET lease_until = now() + interval '1 hour'
          WHERE idempotency_key = $1 AND state = 'in_flight' RETURNING holder_pid`,
        [key],
      );
      expect(held).toEqual([{ holder_pid: first.child.pid }]);
    } finally {
      await edgeStore.close();
    }

    const second = await startGateway(env);
    gateways.push(second);
    const retry = await add(second);
    // Run, not told 409 to come back in an hour: the claim's lease had most of that hour left, so
    // only knowing its holder dead freed the key.
    expect(retry.status, JSON.stringify(retry.body)).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.body.results).toEqual([{ index: 0, status: 'added', profile_id: expect.any(String), error: null }]);
    expect(await members()).toBe(1);

    const replay = await add(second);
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(retry.body);
    expect(await members()).toBe(1);
  }, 900_000);
});
