// An upgrade test's database: one schema migrated to just before the migration the test is about,
// so the test can fill it as it stood then, run the real folder and see what the upgrade does.
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from '../../services/kit/db/database.js';
import { migrate, migrationsDir, type MigratedSchema } from '../../services/kit/db/migrations.js';
import { openTestDatabase, type StoreName } from './stores.js';

/** The migrations of `dir` named before `upgrade`, in a temporary folder; `remove` deletes it. */
function migrationsBefore(dir: string, upgrade: string): { dir: string; remove(): void } {
  const copy = mkdtempSync(join(tmpdir(), 'en-migrations-'));
  cpSync(dir, copy, { recursive: true });
  for (const name of readdirSync(copy)) if (name >= upgrade) rmSync(join(copy, name));
  return { dir: copy, remove: () => rmSync(copy, { recursive: true, force: true }) };
}

/**
 * Runs `test` on a `store` database whose `schema` is migrated up to (not including) `upgrade`;
 * the test's `upgradeNow()` runs the schema's real migrations and answers the ones it applied.
 * The database and the folder copy are removed afterwards, however the test ends.
 */
export async function withDatabaseBefore(
  store: StoreName,
  schema: MigratedSchema,
  upgrade: string,
  test: (db: Database, upgradeNow: () => Promise<string[]>) => Promise<void>,
): Promise<void> {
  const before = migrationsBefore(migrationsDir(schema), upgrade);
  const { db, close } = await openTestDatabase(store, { migrated: false });
  try {
    await migrate(db, schema, before.dir);
    await test(db, () => migrate(db, schema, migrationsDir(schema)));
  } finally {
    await close();
    before.remove();
  }
}
