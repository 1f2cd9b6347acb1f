// Builds like a service: `npm start` (the newcomer's one command) stops every process it started
// on SIGTERM, exiting 0; `npm run build`'s compiler configuration (tsconfig.build.json) compiles the
// product to JavaScript, and the compiled launcher — what production and the image run — starts
// and answers /healthz, and stops cleanly too.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseListenReport, type ListenReport } from '../deploy/launcher/listen-report.js';
import { RUNTIME_FLAGS } from '../deploy/launcher/runtime-flags.js';
import { repoRoot } from '../services/kit/paths.js';
import { ANY_PORT_ENV } from './helpers/any-port-env.js';
import { request } from './helpers/http.js';

const ENV = { ...process.env, ...ANY_PORT_ENV, DATABASE_URL: '', REDIS_URL: '', SEED_FILE: '', LOG_LEVEL: 'warn' };

/** Every process below `pid` now (Linux `ps`). */
function descendants(pid: number): number[] {
  const rows = execFileSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number) as [number, number]);
  const below = (parent: number): number[] => rows.filter(([, ppid]) => ppid === parent).flatMap(([child]) => [child, ...below(child)]);
  return below(pid);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function started(command: string, args: string[]): Promise<{ child: ChildProcess; listening: ListenReport; output: () => string }> {
  let output = '';
  const child = spawn(command, args, { cwd: repoRoot, env: { ...ENV, DATA_DIR: mkdtempSync(join(tmpdir(), 'en-build-')) }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const deadline = Date.now() + 240_000;
  let listening: ListenReport | undefined;
  while (!(listening = parseListenReport(output))) {
    if (child.exitCode !== null) throw new Error(`exited early:\n${output}`);
    if (Date.now() > deadline) throw new Error(`no LISTENING line:\n${output}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return { child, listening, output: () => output };
}

function terminated(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

describe('npm start', () => {
  it('stops every process it started on SIGTERM, exit code 0, no orphan left', async () => {
    const { child, listening } = await started('npm', ['start', '--silent']);
    expect((await request(listening.admin, 'GET', '/healthz')).status).toBe(200);
    const below = descendants(child.pid!);
    expect(below.length).toBeGreaterThan(0);
    expect(await terminated(child)).toBe(0);
    const deadline = Date.now() + 10_000;
    while (below.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(below.filter(alive)).toEqual([]);
  }, 300_000);
});

describe('the compiled build', () => {
  // Inside the package (so the compiled code finds package.json, node_modules and the migrations
  // as from dist/), git-ignored, removed afterwards; dist/ of a developer is left alone.
  const outDir = join(repoRoot, '.cache', `build-check-${process.pid}`);
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it('compiles with tsconfig.build.json (npm run build), starts from dist/, answers /healthz and the demo key, exits 0 on SIGTERM', async () => {
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.build).toContain('tsc -p tsconfig.build.json');
    // With the runtime flags, as start:prod runs it (test/runtime-flags.test.ts).
    expect(pkg.scripts['start:prod']).toContain(`node ${RUNTIME_FLAGS.join(' ')} dist/deploy/launcher/main.js`);
    execFileSync(process.execPath, [join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json', '--outDir', outDir, '--sourceMap', 'false'], { cwd: repoRoot, stdio: 'pipe' });
    const main = join(outDir, 'deploy', 'launcher', 'main.js');
    expect(existsSync(main)).toBe(true);
    expect(existsSync(join(outDir, 'deploy', 'admin', 'demo-data.js'))).toBe(true);
    expect(existsSync(join(outDir, 'deploy', 'admin', 'demo-data.test.js'))).toBe(false);

    const { child, listening, output } = await started(process.execPath, [...RUNTIME_FLAGS, main]);
    expect((await request(listening.admin, 'GET', '/healthz')).status).toBe(200);
    const demoKey = /^API key key_demo \(shown once, keep it\): (svc_test_\w+)$/m.exec(output())?.[1];
    const me = await request(listening.rest!, 'GET', '/v1/me', { headers: { authorization: `Bearer ${demoKey}` } });
    expect(me.status).toBe(200);
    expect(await terminated(child)).toBe(0);
  }, 600_000);
});
