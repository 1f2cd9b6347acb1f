// The admin CLI finds the system started from the same data folder without being given a port
// (DATA_DIR/running.json, deploy/launcher/running-file.ts): `npm start` runs as a child process on
// ports the OS picks, and the CLI runs as another child process given only DATA_DIR. With nothing
// running it says so in one line on stderr, exit 1, never a stack or a raw ECONNREFUSED.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { GRPC_ADDRESS_VARIABLES, SERVICE_ROLES } from '../services/kit/config.js';
import { dataDirOnlyEnv, runAdminCli, type CliResult } from './helpers/admin-cli.js';
import { bearer, request } from './helpers/http.js';
import { testKeyStartingWith } from './helpers/keys.js';
import { payloadOf } from './helpers/oauth.js';
import { startMainProcess, type MainProcess } from './helpers/main-process.js';

// Two keys share a display prefix (svc_test_Tw1nKy): only their ids tell them apart.
const twinA = testKeyStartingWith('svc_test_Tw1nKy');
const twinB = testKeyStartingWith('svc_test_Tw1nKy');
const solo = testKeyStartingWith('svc_test_S0loKy');
const seed: SeedInput = {
  users: [{ id: 'u_ada', email: 'ada@example.org', name: 'Ada Lovelace', plan: 'paid' }],
  keys: [
    { id: 'k_twin_a', secret: twinA, owner: { user: 'u_ada' }, scopes: ['search:read'] },
    { id: 'k_twin_b', secret: twinB, owner: { user: 'u_ada' }, scopes: ['search:read'] },
    { id: 'k_solo', secret: solo, owner: { user: 'u_ada' }, scopes: ['search:read'] },
  ],
};

/** One clear line on stderr, nothing on stdout, exit 1: no stack trace, no raw connection error. */
function expectOneLineRefusal(result: CliResult): void {
  expect(result.code).toBe(1);
  expect(result.stdout).toBe('');
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(result.stderr).not.toMatch(/\n\s+at |No connection established/);
}

/** A pid no process has any more: a child that ran and exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

describe('admin CLI given only DATA_DIR', { timeout: 300_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'en-cli-running-'));
  const cli = (args: string[]) => runAdminCli(dataDirOnlyEnv(dataDir), args);
  let main: MainProcess;

  beforeAll(async () => {
    const seedFile = join(dataDir, 'seed.json');
    writeFileSync(seedFile, JSON.stringify(seed));
    // The embedded store in DATA_DIR, every port 0, as a second `npm start` on a seeded folder.
    main = await startMainProcess({ DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '', SEED_FILE: seedFile, LOG_LEVEL: 'warn' });
  });
  afterAll(async () => main?.kill());

  it('reaches every service at the ports the running system bound', async () => {
    const result = await cli(['health', '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const health = JSON.parse(result.stdout);
    for (const service of SERVICE_ROLES) expect(health[service], service).toEqual({ address: main.grpcAddresses[service], serving: true });
  });

  it('users sign-in-link builds its URL on the settings address actually bound', async () => {
    const result = await cli(['users', 'sign-in-link', '--user', 'u_ada', '--json']);
    expect(result.stderr).toBe('');
    const { url } = JSON.parse(result.stdout);
    expect(main.listening.settings).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*$/);
    expect(url.startsWith(`${main.listening.settings}/sign-in/link?token=`)).toBe(true);
    expect((await fetch(url)).status).toBe(200);
  });

  it('keys mint prints the key id and its secret once; the key works', async () => {
    const result = await cli(['keys', 'mint', '--user', 'u_ada', '--scopes', 'search:read']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const secret = /secret \(shown once, keep it\): (svc_test_\w{49})$/m.exec(result.stdout)?.[1];
    const id = /^id\s+(key_\S+)$/m.exec(result.stdout)?.[1];
    expect(secret).toBeDefined();
    expect(id).toBeDefined();
    expect(result.stdout.split(secret!)).toHaveLength(2);
    const me = await request(main.restUrl, 'GET', '/v1/me', { headers: bearer(secret!) });
    expect(me.status).toBe(200);
    expect(me.body.key.id).toBe(id);
  });

  it('tokens issue --audience mcp names the MCP endpoint the running system bound; the token opens it', async () => {
    const result = await cli(['tokens', 'issue', '--user', 'u_ada', '--scopes', 'profile:read', '--audience', 'mcp', '--json']);
    expect(result.stderr).toBe('');
    const token = JSON.parse(result.stdout).access_token as string;
    expect(main.mcpUrl).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*\/mcp$/);
    expect(payloadOf(token).aud).toBe(main.mcpUrl);
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
    const opened = await request(new URL(main.mcpUrl).origin, 'POST', '/mcp', {
      headers: { accept: 'application/json, text/event-stream', ...bearer(token) }, body: initialize,
    });
    expect(opened.status).toBe(200);
  });

  it('keys revoke takes a key id or a display prefix that names one key; an ambiguous prefix is refused', async () => {
    const status = async (secret: string) => (await request(main.restUrl, 'GET', '/v1/me', { headers: bearer(secret) })).status;
    const [ambiguous, shortAmbiguous, unknown, malformed] = await Promise.all([
      cli(['keys', 'revoke', 'svc_test_Tw1nKy']),
      cli(['keys', 'revoke', 'svc_test_T']),
      cli(['keys', 'revoke', 'svc_test_Nob0dy']),
      cli(['keys', 'revoke', 'svc_test_']),
    ]);
    for (const r of [ambiguous, shortAmbiguous, unknown, malformed]) expectOneLineRefusal(r);
    expect(ambiguous.stderr).toBe('error: ambiguous: the prefix svc_test_Tw1nKy matches more than one key: k_twin_a (svc_test_Tw1nKy), k_twin_b (svc_test_Tw1nKy); give the key id instead\n');
    expect(shortAmbiguous.stderr).toContain('k_twin_a (svc_test_Tw1nKy), k_twin_b (svc_test_Tw1nKy)');
    expect(unknown.stderr).toBe('error: not_found: no key has the prefix svc_test_Nob0dy\n');
    expect(malformed.stderr).toMatch(/^error: invalid_request: prefix must be svc_live_ or svc_test_ and 1 to 6 more/);
    // Nothing was revoked by a refused prefix.
    expect([await status(twinA), await status(twinB), await status(solo)]).toEqual([200, 200, 200]);

    const byPrefix = await cli(['keys', 'revoke', 'svc_test_S0loKy', '--json']);
    expect(byPrefix.stderr).toBe('');
    expect(JSON.parse(byPrefix.stdout).key).toMatchObject({ id: 'k_solo', prefix: 'svc_test_S0loKy', revoked_at: expect.any(String) });
    const byId = await cli(['keys', 'revoke', 'k_twin_a', '--json']);
    expect(JSON.parse(byId.stdout).key).toMatchObject({ id: 'k_twin_a', revoked_at: expect.any(String) });
    expect([await status(twinA), await status(twinB), await status(solo)]).toEqual([401, 200, 401]);
  });

  it('once the system stopped, says nothing runs there in one line (and the file is gone)', async () => {
    await main.kill('SIGTERM');
    expect(main.child.exitCode).toBe(0);
    expect(existsSync(join(dataDir, 'running.json'))).toBe(false);
    const result = await cli(['users', 'list']);
    expectOneLineRefusal(result);
    expect(result.stderr).toBe(
      `error: no running system found for data folder ${dataDir}; start it with npm start, or set ` +
      `${SERVICE_ROLES.map((s) => GRPC_ADDRESS_VARIABLES[s]).join(', ')}\n`,
    );
  });
});

describe('admin CLI with nothing to reach', { timeout: 120_000 }, () => {
  it('a running.json left by a process that is gone is not followed', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'en-cli-stale-'));
    const pid = await deadPid();
    writeFileSync(join(dataDir, 'running.json'), JSON.stringify({ pid, startedAt: new Date().toISOString(), listening: { admin: 'http://127.0.0.1:1', grpc: { identity: '127.0.0.1:1' } } }));
    const result = await runAdminCli(dataDirOnlyEnv(dataDir), ['keys', 'list', '--user', 'u_x']);
    expectOneLineRefusal(result);
    expect(result.stderr).toMatch(new RegExp(`^error: no running system found for data folder ${dataDir} \\(the process ${pid} that started it is gone\\); start it with npm start`));
  });

  it('an address given where nothing listens is named in one line, not a raw ECONNREFUSED', async () => {
    // A port that was just free: bound, then closed, so a connection is refused.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    await new Promise((resolve) => server.close(resolve));
    const env = { ...dataDirOnlyEnv(mkdtempSync(join(tmpdir(), 'en-cli-none-'))), IDENTITY_GRPC_ADDR: `127.0.0.1:${port}` };
    const result = await runAdminCli(env, ['users', 'list']);
    expectOneLineRefusal(result);
    expect(result.stderr).toBe(`error: nothing answers at 127.0.0.1:${port}: is the system running? Start it with npm start (same DATA_DIR)\n`);
    expect(result.stderr).not.toContain('ECONNREFUSED');
  });
});
