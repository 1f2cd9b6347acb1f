// Forward-only SQL migrations, one folder per service, one schema per service (plus the edge's own
// schema `edge`, migrated by the process that runs the gateway role). Each file runs in
// its own transaction together with the row that records it, under an advisory lock so that
// several processes starting at once apply each migration exactly once.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SERVICE_ROLES, type ServiceRole } from '../config.js';
import { repoRoot } from '../paths.js';
import type { Database } from './database.js';

// One lock for all schemas: CREATE SCHEMA itself races between processes.
const MIGRATION_LOCK = 7_400_101;
const FILE_NAME = /^(\d{3,})_[a-z0-9_]+\.sql$/;

export interface Migration {
  version: string;
  name: string;
  sql: string;
}

export function readMigrations(dir: string): Migration[] {
  return readdirSync(dir)
    .filter((name) => FILE_NAME.test(name))
    .sort()
    .map((name) => ({ version: FILE_NAME.exec(name)![1]!, name, sql: readFileSync(join(dir, name), 'utf8') }));
}

/**
 * Whether every migration is recorded already, found with reads only: a process whose database role
 * may not run DDL (the application's role, once the migrations Job ran: deploy/README.md) starts.
 */
async function allRecorded(db: Database, schema: string, migrations: readonly Migration[]): Promise<boolean> {
  // A catalog query, not to_regclass: a name lookup would leave this connection a cached "no such
  // schema", which the advisory lock below does not clear, and CREATE SCHEMA IF NOT EXISTS would trip on it.
  const table = await db.query(`SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = $1 AND tablename = 'schema_migrations'`, [schema]);
  if (table.length === 0) return false;
  const recorded = new Set((await db.query<{ version: string }>(`SELECT version FROM ${schema}.schema_migrations`)).map((r) => r.version));
  return migrations.every((m) => recorded.has(m.version));
}

/** Applies the migrations of one service's schema that are not applied yet; returns their names. */
export async function migrate(db: Database, schema: string, dir: string, onChecked?: (name: string) => void): Promise<string[]> {
  if (!/^[a-z_]+$/.test(schema)) throw new Error(`bad schema name ${schema}`);
  const applied: string[] = [];
  const migrations = readMigrations(dir);
  if (await allRecorded(db, schema, migrations)) {
    for (const migration of migrations) onChecked?.(migration.name);
    return applied;
  }
  for (const migration of migrations) {
    // A migration may rewrite a large table: the statement bound of requests does not apply.
    const ran = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await tx.exec(`CREATE SCHEMA IF NOT EXISTS ${schema};
        CREATE TABLE IF NOT EXISTS ${schema}.schema_migrations (
          version text PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now());`);
      const done = await tx.query(`SELECT 1 FROM ${schema}.schema_migrations WHERE version = $1`, [migration.version]);
      if (done.length > 0) return false;
      await tx.exec(migration.sql);
      await tx.query(`INSERT INTO ${schema}.schema_migrations (version, name) VALUES ($1, $2)`, [
        migration.version,
        migration.name,
      ]);
      return true;
    }, { statementTimeoutMs: 0 });
    if (ran) applied.push(migration.name);
    onChecked?.(migration.name);
  }
  return applied;
}

/** A schema with migrations: each service's, and the gateway's `edge` (idempotency records). */
export type MigratedSchema = ServiceRole | 'edge';
/** Every schema migrateAll knows, in the order it migrates them. */
export const MIGRATED_SCHEMAS: readonly MigratedSchema[] = [...SERVICE_ROLES, 'edge'];

export function migrationsDir(service: MigratedSchema): string {
  if (service === 'edge') return join(repoRoot, 'gateway', 'migrations');
  return join(repoRoot, 'services', service, 'migrations');
}

/**
 * Migrates each named schema (every one by default); returns `schema/file` of what ran.
 * `onProgress` hears of each migration file checked (applied now or before), out of them all.
 */
export async function migrateAll(
  db: Database,
  services: readonly MigratedSchema[] = MIGRATED_SCHEMAS,
  onProgress?: (checked: number, total: number) => void,
): Promise<string[]> {
  const applied: string[] = [];
  const total = services.reduce((n, service) => n + readMigrations(migrationsDir(service)).length, 0);
  let checked = 0;
  for (const service of services) {
    const ran = await migrate(db, service, migrationsDir(service), () => onProgress?.(++checked, total));
    for (const name of ran) applied.push(`${service}/${name}`);
  }
  return applied;
}
