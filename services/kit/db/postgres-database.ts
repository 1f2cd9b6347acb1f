import pg from 'pg';
import type { Database, Queryable } from './database.js';
import { createStatementNames, type StatementNames } from './prepared-statements.js';

// Credits and counters are int8; they stay well inside Number's exact range, and both engines
// must hand back the same JavaScript types.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

function queryable(client: pg.Pool | pg.PoolClient, names?: StatementNames): Queryable {
  return {
    async query<R>(sql: string, params: readonly unknown[] = []) {
      const values = params as unknown[];
      const name = names?.nameOf(sql);
      if (name === undefined) return (await client.query(sql, values)).rows as R[];
      return names!.run(sql, name, async (named) => (await client.query({ name: named, text: sql, values })).rows as R[]);
    },
    async exec(sql: string) {
      await client.query(sql);
    },
  };
}

export interface PostgresOptions {
  /** Connections in the pool. */
  max?: number;
  /**
   * Statements outside transactions are sent named (prepared-statements.ts); off for a pooler
   * that hands a session's statements to other sessions (PgBouncer in transaction mode).
   */
  preparedStatements?: boolean;
}

export function openPostgres(connectionString: string, options: PostgresOptions = {}): Database {
  const pool = new pg.Pool({ connectionString, max: options.max ?? 10 });
  // An idle client that loses its connection must not crash the process.
  pool.on('error', () => undefined);
  return {
    engine: 'postgres',
    // Only the statements outside transactions are named: the hot reads are, and the statements
    // of transactions (postings, search legs with their own settings) keep being planned each time.
    ...queryable(pool, options.preparedStatements === false ? undefined : createStatementNames()),
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn(queryable(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}
