// The admin CLI as an operator runs it: a child process (`npm run admin -- …`, through tsx) against
// the system `env` points at. stdout and stderr are pipes, as in a script or a log (no terminal).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'vitest';
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

/** Runs a command with --json that must succeed quietly (nothing on stderr) and returns its JSON. */
export async function adminJson(env: Record<string, string | undefined>, args: string[]): Promise<any> {
  const result = await runAdminCli(env, [...args, '--json']);
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
