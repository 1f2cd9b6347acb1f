// The admin CLI as an operator runs it: a child process (`npm run admin -- …`, through tsx) against
// the system `env` points at. stdout and stderr are pipes, as in a script or a log (no terminal).
// `inProcess` runs the same command line through the same code (run.ts) in the test's process, in
// milliseconds instead of a process start: its environment, stdout, stderr (not a terminal) and exit
// code are the command's own for the run. Suites keep a few child-process runs beside it.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { CommanderError, type Command } from 'commander';
import { expect } from 'vitest';
import { createAdminContext } from '../../deploy/admin/context.js';
import { buildProgram } from '../../deploy/admin/program.js';
import { runAdmin } from '../../deploy/admin/run.js';
import { GRPC_ADDRESS_VARIABLES, SERVICE_ROLES } from '../../services/kit/config.js';
import { repoRoot } from '../../services/kit/paths.js';

const tsxCli = join(repoRoot, 'node_modules/tsx/dist/cli.mjs');
const adminCli = join(repoRoot, 'deploy/admin/cli.ts');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function runAdminCli(env: Record<string, string | undefined>, args: string[], timeoutMs = 120_000): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [tsxCli, adminCli, ...args],
      { cwd: repoRoot, env: { ...process.env, ...env, LOG_LEVEL: 'silent' }, timeout: timeoutMs },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** Sets process.env to `env` over the suite's own until the returned function puts it back. */
function withEnv(env: Record<string, string | undefined>): () => void {
  const saved = { ...process.env };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  return () => {
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  };
}

let running = false;

/** The command line run in this process, one at a time: as runAdminCli answers. */
export async function runAdminInProcess(env: Record<string, string | undefined>, args: string[]): Promise<CliResult> {
  if (running) throw new Error('one admin command at a time in process (its stdout and stderr are the process\'s)');
  running = true;
  let stdout = '';
  let stderr = '';
  const restoreEnv = withEnv({ ...env, LOG_LEVEL: 'silent' });
  const writes = { out: process.stdout.write, err: process.stderr.write };
  const ttys = { out: process.stdout.isTTY, err: process.stderr.isTTY };
  const exitCodeBefore = process.exitCode;
  process.stdout.write = ((chunk: string | Uint8Array) => ((stdout += chunk.toString()), true)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => ((stderr += chunk.toString()), true)) as typeof process.stderr.write;
  // Pipes, as for a child process run by a script: no progress bars.
  process.stdout.isTTY = false;
  process.stderr.isTTY = false;
  process.exitCode = undefined;
  try {
    const ctx = createAdminContext();
    const program = buildProgram(ctx);
    // Commander exits the process on --help and usage errors: here it throws their exit code instead.
    const throwing = (c: Command): void => {
      c.exitOverride().configureOutput({ writeOut: (t) => void (stdout += t), writeErr: (t) => void (stderr += t) });
      c.commands.forEach(throwing);
    };
    throwing(program);
    try {
      await runAdmin(ctx, program, args);
      return { code: typeof process.exitCode === 'number' ? process.exitCode : 0, stdout, stderr };
    } catch (error) {
      if (error instanceof CommanderError) return { code: error.exitCode, stdout, stderr };
      throw error;
    }
  } finally {
    process.stdout.write = writes.out;
    process.stderr.write = writes.err;
    process.stdout.isTTY = ttys.out;
    process.stderr.isTTY = ttys.err;
    process.exitCode = exitCodeBefore;
    restoreEnv();
    running = false;
  }
}

/** Runs a command with --json that must succeed quietly (nothing on stderr) and returns its JSON. */
export async function adminJson(env: Record<string, string | undefined>, args: string[], { inProcess = false } = {}): Promise<any> {
  const result = await (inProcess ? runAdminInProcess : runAdminCli)(env, [...args, '--json']);
  expect(result.stderr, `${args.join(' ')}: stderr`).toBe('');
  expect(result.code, `${args.join(' ')}: exit code`).toBe(0);
  return JSON.parse(result.stdout);
}

/**
 * The environment of an operator who gives the CLI nothing but the data folder: no gRPC address,
 * no store, no public URL (whatever the suite's own environment holds), so the CLI must find the
 * system through DATA_DIR/running.json.
 */
export function dataDirOnlyEnv(dataDir: string): Record<string, string> {
  return {
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    REDIS_URL: '',
    SETTINGS_PUBLIC_URL: '',
    ...Object.fromEntries(SERVICE_ROLES.map((s) => [GRPC_ADDRESS_VARIABLES[s], ''])),
  };
}
