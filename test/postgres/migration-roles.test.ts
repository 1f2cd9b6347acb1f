// Runs only with DATABASE_URL (see test/vitest.config.ts): the two database roles of
// deploy/postgres/roles.sql on a fresh database. The migrations run as expertnet_migrate; the
// application's role then starts (its migrate-at-start finds everything recorded, with reads only),
// reads and writes rows, and may not change the schema.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATED_SCHEMAS, migrateAll, migrationsDir, readMigrations } from '../../services/kit/db/migrations.js';
import { openPostgres } from '../../services/kit/db/postgres-database.js';
import { root } from '../helpers/deploy-files.js';
import { freshPostgresDatabase, type FreshDatabase } from '../helpers/stores.js';

const asRole = (url: string, role: string) => {
  const u = new URL(url);
  u.username = role;
  u.password = '';
  return u.toString();
};

describe('database roles (deploy/postgres/roles.sql)', () => {
  let fresh: FreshDatabase;
  const roles = readFileSync(join(root, 'deploy', 'postgres', 'roles.sql'), 'utf8');
  const asAdmin = async (sql: string) => {
    const client = new pg.Client({ connectionString: fresh.url });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  beforeAll(async () => {
    fresh = await freshPostgresDatabase();
    await asAdmin(roles);
  });
  afterAll(async () => fresh.drop());

  it('the migrations role applies every migration; the application role then starts, reads and writes rows, and cannot change the schema', async () => {
    const migrator = openPostgres(asRole(fresh.url, 'expertnet_migrate'), { max: 2 });
    const applied = await migrateAll(migrator).finally(() => migrator.close());
    expect(applied.length).toBe(MIGRATED_SCHEMAS.reduce((n, s) => n + readMigrations(migrationsDir(s)).length, 0));
    // Run again, as the rollout order says: search.documents owned by the role search indexes as.
    await asAdmin(roles);

    const app = openPostgres(asRole(fresh.url, 'expertnet_app'), { max: 2 });
    try {
      expect(await migrateAll(app)).toEqual([]);
      await app.query(`INSERT INTO identity.users (id, email, name) VALUES ('usr_roles', 'roles@example.org', 'Roles')`);
      expect(await app.query(`UPDATE identity.users SET name = 'Roles 2' WHERE id = 'usr_roles' RETURNING name`)).toEqual([{ name: 'Roles 2' }]);
      await app.query(`DELETE FROM identity.users WHERE id = 'usr_roles'`);
      await expect(app.query('CREATE TABLE identity.intruder (a int)')).rejects.toThrow(/permission denied/);
      await expect(app.query('ALTER TABLE identity.users ADD COLUMN intruder int')).rejects.toThrow(/must be owner/);
      await expect(app.query('DROP TABLE identity.users')).rejects.toThrow(/must be owner/);
      await expect(app.query('CREATE SCHEMA intruder')).rejects.toThrow(/permission denied/);
      // The one exception: search's own vector indexes on search.documents.
      await app.query('CREATE INDEX IF NOT EXISTS documents_roles_probe ON search.documents (profile_id)');
    } finally {
      await app.close();
    }
  });

  it('a release with migrations the Job has not run yet: the application role fails to start rather than change the schema', async () => {
    const app = openPostgres(asRole(fresh.url, 'expertnet_app'), { max: 1 });
    try {
      await app.query(`DELETE FROM billing.schema_migrations WHERE version = (SELECT max(version) FROM billing.schema_migrations)`);
      await expect(migrateAll(app, ['billing'])).rejects.toThrow(/permission denied/);
    } finally {
      await app.close();
    }
  });
});
