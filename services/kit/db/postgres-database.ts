import pg from 'pg';
import type { Database, Queryable } from './database.js';

// Credits and counters are int8; they stay well inside Number's exact range, and both engines
// must hand back the same JavaScript types.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

function queryable(client: pg.Pool | pg.PoolClient): Queryable {
  return {
    async query<R>(sql: string, params: readonly unknown[] = []) {
      const result = await client.query(sql, params as unknown[]);
      return result.rows as R[];
    },
    async exec(sql: string) {
      await client.query(sql);
    },
  };
}

export function openPostgres(connectionString: string, max = 10): Database {
  const pool = new pg.Pool({ connectionString, max });
  // An idle client that loses its connection must not crash the process.
  pool.on('error', () => undefined);
  return {
    engine: 'postgres',
    ...queryable(pool),
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
