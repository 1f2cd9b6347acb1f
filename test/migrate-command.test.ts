// `npm run migrate` applies every service's migrations to the configured store, once.
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { MIGRATED_SCHEMAS, migrationsDir, readMigrations } from '../services/kit/db/migrations.js';
import { repoRoot } from '../services/kit/paths.js';

const run = promisify(execFile);

async function migrate(env: Record<string, string>): Promise<string[]> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', join(repoRoot, 'deploy', 'launcher', 'migrate.ts')], {
    cwd: repoRoot,
    env: { ...process.env, DATABASE_URL: '', ...env },
  });
  return (JSON.parse(stdout) as { applied: string[] }).applied;
}

describe('npm run migrate', () => {
  it('applies every migration to an embedded store once, then nothing', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'en-migrate-'));
    const expected = MIGRATED_SCHEMAS.flatMap((s) => readMigrations(migrationsDir(s)).map((m) => `${s}/${m.name}`));
    expect(await migrate({ DATA_DIR: dataDir })).toEqual(expected);
    expect(await migrate({ DATA_DIR: dataDir })).toEqual([]);
  });
});
