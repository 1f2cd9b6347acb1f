import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, storeNames } from '../../../test/helpers/stores.js';
import { SERVICE_ROLES } from '../config.js';
import type { Database } from './database.js';
import { MIGRATED_SCHEMAS, migrateAll, migrationsDir, readMigrations } from './migrations.js';

describe.each(storeNames())('migrations on %s', (store) => {
  let db: Database;
  let close: () => Promise<void>;
  let appliedFirst: string[];
  // From scratch: an empty store, migrated here (not the suites' migrated copy).
  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(store, { migrated: false }));
    appliedFirst = await migrateAll(db);
  });
  afterAll(async () => close());

  it('give every service its own schema with its tables', async () => {
    const rows = await db.query<{ schema_name: string }>(
      `SELECT schema_name FROM information_schema.schemata WHERE schema_name = ANY($1::text[])`,
      [[...SERVICE_ROLES]],
    );
    expect(rows.map((r) => r.schema_name).sort()).toEqual([...SERVICE_ROLES].sort());
    const tables = await db.query<{ table_schema: string; table_name: string }>(
      `SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema = 'identity' ORDER BY table_name`,
    );
    expect(tables.map((t) => t.table_name)).toEqual(
      expect.arrayContaining(['api_keys', 'key_usage_daily', 'organization_members', 'organizations', 'users', 'schema_migrations']),
    );
  });

  it('are recorded once and applying again does nothing', async () => {
    expect(appliedFirst).toEqual(MIGRATED_SCHEMAS.flatMap((s) => readMigrations(migrationsDir(s)).map((m) => `${s}/${m.name}`)));
    expect(await migrateAll(db)).toEqual([]);
    const applied = await db.query<{ version: string }>('SELECT version FROM identity.schema_migrations');
    expect(applied.map((r) => r.version)).toEqual(readMigrations(migrationsDir('identity')).map((m) => m.version));
  });

  it('store only a hash and a display prefix for keys (no column can hold a secret)', async () => {
    const columns = await db.query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns WHERE table_schema = 'identity' AND table_name = 'api_keys'`,
    );
    const names = columns.map((c) => c.column_name);
    expect(names).toContain('secret_hash');
    expect(names).toContain('display_prefix');
    expect(names.filter((n) => /secret/.test(n))).toEqual(['secret_hash']);
  });
});
