// PostgreSQL through a `pg` pool. Every call is bounded: a connection is had within
// DATABASE_CONNECT_TIMEOUT_MS and a statement runs at most DATABASE_STATEMENT_TIMEOUT_MS (the
// server's statement_timeout; a server that does not answer at all — frozen, or a network that
// drops packets — is given up by the client READ_MARGIN_MS later, and its connection dropped). A failure meaning the database cannot answer now (refused or lost
// connections, a database not accepting connections, a shutdown, a timeout) is thrown as
// DependencyUnavailable (services/kit/dependencies/unavailable.ts), the callers' 503, and reported
// to the process's database state, which logs the outage once.
import pg from 'pg';
import type { Database, Queryable, TransactionOptions } from './database.js';
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

/** How long past the server's own statement bound the client waits for any answer. */
const READ_MARGIN_MS = 2000;

/** The client's bound of one statement (pg's query_timeout), when statements are bounded. */
const readTimeoutOf = (statementTimeoutMs: number) => (statementTimeoutMs > 0 ? statementTimeoutMs + READ_MARGIN_MS : undefined);

function queryable(client: pg.Pool | pg.PoolClient, outcomes: Outcomes, readTimeoutMs: number | undefined, names?: StatementNames): Queryable {
  const bounded = readTimeoutMs === undefined ? {} : { query_timeout: readTimeoutMs };
  // pg reads query_timeout from a query's config; its types do not list it.
  const run = (config: pg.QueryConfig) => reported(outcomes, client.query({ ...config, ...bounded } as pg.QueryConfig));
  return {
    async query<R>(sql: string, params: readonly unknown[] = []) {
      const values = params as unknown[];
      const name = names?.nameOf(sql);
      if (name === undefined) return (await run({ text: sql, values })).rows as R[];
      return names!.run(sql, name, async (named) => (await run({ name: named, text: sql, values })).rows as R[]);
    },
    async exec(sql: string) {
      await run({ text: sql });
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

const ignoreError = () => undefined;

export function openPostgres(connectionString: string, options: PostgresOptions = {}): Database {
  const statementTimeoutMs = options.statementTimeoutMs ?? 30_000;
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    statement_timeout: statementTimeoutMs,
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
    ...queryable(pool, outcomes, readTimeoutOf(statementTimeoutMs), options.preparedStatements === false ? undefined : createStatementNames()),
    async transaction<T>(fn: (tx: Queryable) => Promise<T>, txOptions: TransactionOptions = {}): Promise<T> {
      const client = await reported(outcomes, pool.connect());
      // The pool listens for a lost connection only while a client is idle; a checked-out one
      // whose connection is lost must not take the process down with an unheard 'error'.
      client.on('error', ignoreError);
      const own = txOptions.statementTimeoutMs;
      const tx = queryable(client, outcomes, readTimeoutOf(own ?? statementTimeoutMs));
      let broken = false;
      try {
        await tx.exec('BEGIN');
        if (own !== undefined) await tx.exec(`SET LOCAL statement_timeout = ${Math.max(0, Math.floor(own))}`);
        const result = await fn(tx);
        await tx.exec('COMMIT');
        return result;
      } catch (error) {
        // A connection that cannot even roll back (within the same bound) is dropped, not handed
        // to the next caller.
        broken = await tx.exec('ROLLBACK').then(() => false, () => true);
        throw error;
      } finally {
        client.off('error', ignoreError);
        client.release(broken);
      }
    },
    close: () => pool.end(),
  };
}
