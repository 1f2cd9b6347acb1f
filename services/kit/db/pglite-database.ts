import { PGlite, types } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import type { Database, Queryable, QueryOptions } from './database.js';
import { createNamedStatements } from './pglite-named-statements.js';

// Same int8 handling as the pg driver (see postgres-database.ts).
const parsers = { [types.INT8]: (value: string) => Number(value) };

function queryable(db: Pick<PGlite, 'query' | 'exec'>): Queryable {
  return {
    async query<R>(sql: string, params: readonly unknown[] = []) {
      const result = await db.query<R>(sql, params as unknown[]);
      return result.rows;
    },
    async exec(sql: string) {
      await db.exec(sql);
    },
  };
}

/**
 * The embedded engine with this project's parsers and extensions. dataDir is a folder, or
 * `memory://` for a throwaway store; `loadDataDir` starts it from a dump of another's data folder
 * (PGlite's dumpDataDir), so a store migrated once can be copied instead of migrated again.
 */
export function createPglite(dataDir: string, loadDataDir?: Blob): Promise<PGlite> {
  // pgvector is loaded so a service may CREATE EXTENSION vector (the search corpus's nearest-
  // neighbour leg uses it, services/search/pipeline/vectors.ts); loading it creates nothing.
  return PGlite.create(dataDir, { parsers, extensions: { vector }, ...(loadDataDir && { loadDataDir }) });
}

/** The Database over an open engine (createPglite); closing it closes the engine. */
export function pgliteDatabase(db: PGlite): Database {
  const named = createNamedStatements(db);
  return {
    engine: 'pglite',
    ...queryable(db),
    // Statements outside transactions are named (pglite-named-statements.ts), as on PostgreSQL.
    query: <R>(sql: string, params: readonly unknown[] = [], options?: QueryOptions) => named.query<R>(sql, params, options),
    transaction: <T>(fn: (tx: Queryable) => Promise<T>) => db.transaction((tx) => fn(queryable(tx))),
    close: () => db.close(),
  };
}

/** dataDir is a folder, or `memory://` for a throwaway store; `loadDataDir` as createPglite. */
export async function openPglite(dataDir: string, loadDataDir?: Blob): Promise<Database> {
  return pgliteDatabase(await createPglite(dataDir, loadDataDir));
}
