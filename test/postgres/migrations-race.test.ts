// Runs only with DATABASE_URL (see test/vitest.config.ts): four connection pools (as four processes would hold) migrating at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATED_SCHEMAS, migrateAll, migrationsDir, readMigrations } from '../../services/kit/db/migrations.js';
import { openPostgres } from '../../services/kit/db/postgres-database.js';
import { freshPostgresDatabase, type FreshDatabase } from '../helpers/stores.js';

describe('migrations racing on PostgreSQL', () => {
  let fresh: FreshDatabase;
  beforeAll(async () => (fresh = await freshPostgresDatabase()));
  afterAll(async () => fresh.drop());

  it('apply each migration exactly once when four connection pools migrate one database at once', async () => {
    const pools = Array.from({ length: 4 }, () => openPostgres(fresh.url, { max: 2 }));
    const results = await Promise.all(pools.map((p) => migrateAll(p)));
    await Promise.all(pools.map((p) => p.close()));
    const all = results.flat();
    expect(new Set(all).size).toBe(all.length);
    expect(all.length).toBe(MIGRATED_SCHEMAS.reduce((n, s) => n + readMigrations(migrationsDir(s)).length, 0));
  });
});
