// PostgreSQL through a `pg` pool. Every call is bounded: a connection is had within
// DATABASE_CONNECT_TIMEOUT_MS and a statement runs at most DATABASE_STATEMENT_TIMEOUT_MS (the
// server's statement_timeout). A failure meaning the database cannot answer now (refused or lost
// connections, a database not accepting connections, a shutdown, a timeout) is thrown as
// DependencyUnavailable (services/kit/dependencies/unavailable.ts), the callers' 503, and reported
// to the process's database state, which logs the outage once.
import pg from 'pg';
import type { Database, Queryable } from './database.js';
import { createStatementNames, type StatementNames } from './prepared-statements.js';
import { asDependencyFailure, DependencyUnavailable } from '../dependencies/unavailable.js';
import type { DependencyState } from '../dependencies/state.js';

// Credits and counters are int8; they stay well inside Number's exact range, and both engines
// must hand back the same JavaScript types.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/** Reports a call's outcome to the state; a failure comes back as the caller should see it. */
interface Outcomes {
  ok(): void;
  failed(error: unknown): unknown;
}

function outcomesOf(state: DependencyState | undefined): Outcomes {
  return {
    ok: () => state?.succeeded(),
    failed(error) {
      const failure = asDependencyFailure('database', error);
      if (failure instanceof DependencyUnavailable) state?.failed(error);
      return failure;
    },
  };
}

async function reported<T>(outcomes: Outcomes, call: Promise<T>): Promise<T> {
  try {
    const result = await call;
    outcomes.ok();
    return result;
  } catch (error) {
    throw outcomes.failed(error);
  }
}

function queryable(client: pg.Pool | pg.PoolClient, outcomes: Outcomes, names?: StatementNames): Queryable {
  return {
    async query<R>(sql: string, params: readonly unknown[] = []) {
      const values = params as unknown[];
      const name = names?.nameOf(sql);
      if (name === undefined) return (await reported(outcomes, client.query(sql, values))).rows as R[];
      return names!.run(sql, name, async (named) => (await reported(outcomes, client.query({ name: named, text: sql, values }))).rows as R[]);
    },
    async exec(sql: string) {
      await reported(outcomes, client.query(sql));
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
  /** Longest wait for a connection (ms); default 5000. */
  connectTimeoutMs?: number;
  /** Longest run of one statement (ms; the server's statement_timeout); 0: none. Default 30000. */
  statementTimeoutMs?: number;
  /** Where the outcomes of the calls are reported (the process's database state). */
  state?: DependencyState;
}

export function openPostgres(connectionString: string, options: PostgresOptions = {}): Database {
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    statement_timeout: options.statementTimeoutMs ?? 30_000,
    // A dead peer is noticed by the connection, not only by the statement that waits on it.
    keepAlive: true,
  });
  const outcomes = outcomesOf(options.state);
  // An idle client that loses its connection must not crash the process.
  pool.on('error', () => undefined);
  return {
    engine: 'postgres',
    // Only the statements outside transactions are named: the hot reads are, and the statements
    // of transactions (postings, search legs with their own settings) keep being planned each time.
    ...queryable(pool, outcomes, options.preparedStatements === false ? undefined : createStatementNames()),
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const client = await reported(outcomes, pool.connect());
      const tx = queryable(client, outcomes);
      let broken = false;
      try {
        await tx.exec('BEGIN');
        const result = await fn(tx);
        await tx.exec('COMMIT');
        return result;
      } catch (error) {
        // A connection that cannot even roll back is dropped, not handed to the next caller.
        broken = await client.query('ROLLBACK').then(() => false, () => true);
        throw error;
      } finally {
        client.release(broken);
      }
    },
    close: () => pool.end(),
  };
}
