// Stores migrated once and copied, instead of every suite migrating its own from scratch. Both are
// named by a hash of every migration file (and, for the embedded store, of the engine's version),
// so a changed or added migration makes a new one; a suite about the migrations themselves opens
// an empty store and migrates it (stores.ts, `migrated: false`).
//
// - PostgreSQL: one template database per migration set, `en_template_<hash>`, built under an
//   advisory lock so that workers starting at once build it once; each test database is
//   `CREATE DATABASE … TEMPLATE` of it (a file copy of a few megabytes, not ninety migrations).
// - PGlite: one migrated data folder per migration set, dumped (dumpDataDir) to a file in the
//   temporary folder; each store is a new engine loaded from it (loadDataDir), which also skips
//   the engine's own initdb.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Database } from '../../services/kit/db/database.js';
import { MIGRATED_SCHEMAS, migrateAll, migrationsDir, readMigrations } from '../../services/kit/db/migrations.js';
import { createPglite, openPglite, pgliteDatabase } from '../../services/kit/db/pglite-database.js';
import { openPostgres } from '../../services/kit/db/postgres-database.js';
import { repoRoot } from '../../services/kit/paths.js';

// Apart from the migrations' own lock (migrations.ts), which the build below takes inside this one.
const TEMPLATE_LOCK = 7_400_102;

/** A hash of every schema's migrations: names and contents. */
export function migrationsHash(): string {
  const hash = createHash('sha256');
  for (const schema of MIGRATED_SCHEMAS) {
    for (const m of readMigrations(migrationsDir(schema))) hash.update(`${schema}/${m.name}\0${m.sql}\0`);
  }
  return hash.digest('hex').slice(0, 16);
}

function databaseUrl(admin: string, name: string): string {
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Builds the template of this migration set unless it is there; answers its name. */
async function ensurePostgresTemplate(admin: string): Promise<string> {
  const name = `en_template_${migrationsHash()}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK]);
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      // A build cut short by a killed run left its half-migrated database: it is built again.
      const building = `${name}_building`;
      await client.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
      await client.query(`CREATE DATABASE ${building}`);
      const db = openPostgres(databaseUrl(admin, building), { max: 1 });
      try {
        await migrateAll(db);
      } finally {
        await db.close();
      }
      await client.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
      // No session may connect to it: a connected session would make every copy fail.
      await client.query(`ALTER DATABASE ${name} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`);
    }
  } finally {
    await client.end(); // ends the session, and with it the lock
  }
  return name;
}

let postgresTemplate: Promise<string> | undefined;

/**
 * Creates the database `name` on the server of `admin` as a copy of the migrated template,
 * building the template first if this migration set has none.
 */
export async function createMigratedPostgresDatabase(admin: string, name: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const template = await (postgresTemplate ??= ensurePostgresTemplate(admin).catch((error: unknown) => {
      postgresTemplate = undefined;
      throw error;
    }));
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    try {
      await client.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
      return;
    } catch (error) {
      // The template was dropped since (by hand): it is built again, once.
      if ((error as { code?: string }).code !== '3D000' || attempt > 0) throw error;
      postgresTemplate = undefined;
    } finally {
      await client.end();
    }
  }
}

function pgliteVersions(): string {
  const version = (pkg: string) => (JSON.parse(readFileSync(join(repoRoot, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;
  return `${version('@electric-sql/pglite')}+${version('@electric-sql/pglite-pgvector')}`;
}

const DUMP_PREFIX = 'expertnet-pglite-migrated-';
/** A dump no run has read for this long belongs to migrations long changed: it is removed. */
const DUMP_UNUSED_MS = 24 * 3600_000;

/** Removes the dumps of other migration sets that no run has read for a day. */
function removeUnusedDumps(kept: string): void {
  for (const name of readdirSync(tmpdir())) {
    const path = join(tmpdir(), name);
    if (!name.startsWith(DUMP_PREFIX) || path === kept) continue;
    try {
      if (Date.now() - statSync(path).mtimeMs > DUMP_UNUSED_MS) rmSync(path, { force: true });
    } catch {
      // Removed by another run meanwhile.
    }
  }
}

/** The dump of a migrated embedded store: read from its file, or migrated now and written there. */
async function migratedPgliteDump(): Promise<Blob> {
  const hash = createHash('sha256').update(`${migrationsHash()} ${pgliteVersions()}`).digest('hex').slice(0, 16);
  const file = join(tmpdir(), `${DUMP_PREFIX}${hash}.tar`);
  let kept: Blob | undefined;
  try {
    kept = new Blob([readFileSync(file)]);
    // Its time is when a run last read it (removeUnusedDumps).
    utimesSync(file, new Date(), new Date());
  } catch {
    // Not built yet on this machine (built below), or removed just after it was read.
  }
  if (kept) return kept;
  const engine = await createPglite('memory://');
  try {
    await migrateAll(pgliteDatabase(engine));
    const dump = await engine.dumpDataDir('none');
    // Written aside and renamed: a worker reading it at the same time sees all of it or none.
    const aside = `${file}.${process.pid}`;
    writeFileSync(aside, Buffer.from(await dump.arrayBuffer()));
    renameSync(aside, file);
    removeUnusedDumps(file);
    return dump;
  } finally {
    await engine.close();
  }
}

let pgliteDump: Promise<Blob> | undefined;

/** A throwaway embedded store (memory), every schema migrated: a copy of one migrated once. */
export async function openMigratedPglite(): Promise<Database> {
  const dump = await (pgliteDump ??= migratedPgliteDump().catch((error: unknown) => {
    pgliteDump = undefined;
    throw error;
  }));
  return openPglite('memory://', dump);
}
