// The stores a store-backed suite runs against: always the embedded store; PostgreSQL too when
// DATABASE_URL is set. Each PostgreSQL run gets a fresh database, dropped afterwards, so runs
// never see each other's rows. A migrated store is a copy of one migrated once (store-templates.ts);
// `migrated: false` gives an empty one, for the suites that migrate it themselves.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Database } from '../../services/kit/db/database.js';
import { openPglite } from '../../services/kit/db/pglite-database.js';
import { openPostgres } from '../../services/kit/db/postgres-database.js';
import { createMigratedPostgresDatabase, openMigratedPglite } from './store-templates.js';

export type StoreName = 'pglite' | 'postgres';

export function storeNames(): StoreName[] {
  return process.env.DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];
}

export interface FreshDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * A new database on DATABASE_URL's server: empty (the processes under test migrate it, or the suite
 * is about migrating), or with `migrated` every schema migrated (a copy of the template).
 */
export async function freshPostgresDatabase({ migrated = false } = {}): Promise<FreshDatabase> {
  const admin = process.env.DATABASE_URL;
  if (!admin) throw new Error('DATABASE_URL is not set');
  const name = `en_test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  if (migrated) {
    await createMigratedPostgresDatabase(admin, name);
  } else {
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    try {
      await client.query(`CREATE DATABASE ${name}`);
    } finally {
      await client.end();
    }
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** A fresh database on `store`, migrated unless `migrated` is false (a test that migrates it itself). */
export async function openTestDatabase(store: StoreName, { migrated = true } = {}): Promise<{ db: Database; url?: string; close(): Promise<void> }> {
  if (store === 'pglite') {
    const db = migrated ? await openMigratedPglite() : await openPglite('memory://');
    return { db, close: () => db.close() };
  }
  const fresh = await freshPostgresDatabase({ migrated });
  const db = openPostgres(fresh.url, { max: 20 });
  return {
    db,
    url: fresh.url,
    async close() {
      await db.close();
      await fresh.drop();
    },
  };
}
