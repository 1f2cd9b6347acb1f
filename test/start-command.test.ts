// The operator contract's first command: `npm start` (deploy/launcher/main.ts) on an empty data folder
// seeds the demo data, prints the REST URL and a demo key that works, stops cleanly on SIGTERM,
// and on the next start keeps its data (and the key) without seeding again, printing instead the
// admin commands that make a new sign-in link and a new key.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseListenReport, type ListenReport } from '../deploy/launcher/listen-report.js';
import { repoRoot } from '../services/kit/paths.js';
import { SCOPES } from '../services/kit/scopes.js';
import { dataDirOnlyEnv, runAdminCli } from './helpers/admin-cli.js';
import { bearer, request } from './helpers/http.js';

interface Started {
  child: ChildProcess;
  output: () => string;
  /** The ports it bound, from its LISTENING line. */
  listening: ListenReport;
}

/** Every system this file starts: a test that fails midway must not leave one running. */
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

async function start(env: Record<string, string>): Promise<Started> {
  let output = '';
  const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'deploy', 'launcher', 'main.ts')], {
    cwd: repoRoot,
    env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', SEED_FILE: '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const deadline = Date.now() + 90_000;
  let listening: ListenReport | undefined;
  while (!(listening = parseListenReport(output))) {
    if (child.exitCode !== null) throw new Error(`exited early:\n${output}`);
    if (Date.now() > deadline) throw new Error(`no LISTENING line:\n${output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return { child, output: () => output, listening };
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

describe('npm start', () => {
  it('seeds a demo key on first start, exits 0 on SIGTERM, and keeps data across restarts', async () => {
    // Every port 0: the process binds what the OS gives it and reports it (never picked up front).
    const env: Record<string, string> = { DATA_DIR: mkdtempSync(join(tmpdir(), 'en-start-')), PORT: '0', MCP_PORT: '0', SETTINGS_PORT: '0', ADMIN_PORT: '0' };
    for (const name of ['IDENTITY_GRPC_ADDR', 'COMMUNITIES_GRPC_ADDR', 'SEARCH_GRPC_ADDR', 'ENRICHMENT_GRPC_ADDR', 'BILLING_GRPC_ADDR']) env[name] = '127.0.0.1:0';

    const first = await start(env);
    const restUrl = /^REST API:\s+(\S+)\/v1$/m.exec(first.output())?.[1];
    const demoKey = /^API key key_demo \(shown once, keep it\): (svc_test_\w+)$/m.exec(first.output())?.[1];
    expect(restUrl).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*$/);
    expect(first.listening.rest).toBe(restUrl);
    expect(first.listening.mcp).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*\/mcp$/);
    expect(Object.keys(first.listening.grpc).sort()).toEqual(['billing', 'communities', 'enrichment', 'identity', 'search']);
    for (const address of Object.values(first.listening.grpc)) expect(address).toMatch(/^127\.0\.0\.1:[1-9]\d*$/);
    expect(demoKey).toMatch(/^svc_test_\w{49}$/);
    // The settings web app beside the API and MCP, and a one-time sign-in link for the demo user.
    const settingsUrl = /^Settings:\s+(\S+)$/m.exec(first.output())?.[1];
    expect(settingsUrl).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*$/);
    expect(first.listening.settings).toBe(settingsUrl);
    const link = /^Sign in to the settings as u_demo \(one-time link, until \S+\): (\S+)$/m.exec(first.output())?.[1];
    expect(link?.startsWith(`${settingsUrl}/sign-in/link?token=`)).toBe(true);
    expect((await fetch(link!)).status).toBe(200);
    const me = await request(restUrl!, 'GET', '/v1/me', { headers: bearer(demoKey!) });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ owner: { id: 'u_demo' }, key: { rate_tier: 'standard' }, credit_balance: 1000 });
    // A key of every scope.
    expect([...me.body.scopes].sort()).toEqual([...SCOPES].sort());
    expect((await request(first.listening.admin, 'GET', '/readyz')).status).toBe(200);
    expect(await stop(first.child)).toBe(0);

    expect(first.output()).not.toContain('npm run admin --');

    const second = await start(env);
    expect(second.output()).not.toContain('svc_test_');
    expect(second.output()).not.toContain('/sign-in/link');
    const again = await request(second.listening.rest!, 'GET', '/v1/me', { headers: bearer(demoKey!) });
    expect(again.status).toBe(200);
    expect(again.body.usage.requests_today).toBe(me.body.usage.requests_today + 1);

    // The way back in: the secret and the link were shown once, so a later start prints the
    // commands that make new ones — which work as printed, given nothing but the data folder.
    const signIn = /^Sign in:\s+DATA_DIR=(\S+) npm run admin -- (users sign-in-link --user u_demo)\s/m.exec(second.output());
    const newKey = /^New key:\s+DATA_DIR=(\S+) npm run admin -- (keys mint --user u_demo --scopes \S+)\s/m.exec(second.output());
    expect(signIn?.[1]).toBe(env.DATA_DIR);
    expect(newKey?.[1]).toBe(env.DATA_DIR);
    const [linked, minted] = await Promise.all([
      runAdminCli(dataDirOnlyEnv(signIn![1]!), signIn![2]!.split(' ')),
      runAdminCli(dataDirOnlyEnv(newKey![1]!), newKey![2]!.split(' ')),
    ]);
    expect(linked.stderr + minted.stderr).toBe('');
    const newLink = /^url\s+(\S+)$/m.exec(linked.stdout)?.[1];
    expect(newLink?.startsWith(`${second.listening.settings}/sign-in/link?token=`)).toBe(true);
    expect((await fetch(newLink!)).status).toBe(200);
    const newSecret = /secret \(shown once, keep it\): (svc_test_\w{49})$/m.exec(minted.stdout)?.[1];
    const mintedMe = await request(second.listening.rest!, 'GET', '/v1/me', { headers: bearer(newSecret!) });
    expect(mintedMe.status).toBe(200);
    expect(mintedMe.body.scopes).toEqual(me.body.scopes);
    expect(await stop(second.child)).toBe(0);
  }, 240_000);
});

describe('npm start with a bad configuration', () => {
  it('refuses to start, exit code 2, naming every bad variable', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'deploy', 'launcher', 'main.ts')], {
      cwd: repoRoot,
      env: { ...process.env, PORT: 'http', ROLES: 'gateway,kitchen', REDIS_URL: 'localhost:6379', DATA_DIR: 'memory://' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    for (const name of ['PORT', 'ROLES', 'REDIS_URL']) expect(stderr).toContain(name);
  });
});
