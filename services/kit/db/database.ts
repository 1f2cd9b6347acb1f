// The one small database interface every service uses. Two engines stand behind it: PostgreSQL
// through `pg` (DATABASE_URL) and embedded PGlite (DATA_DIR). The SQL is the same on both.
export interface QueryOptions {
  /**
   * Plan the statement once for any parameters (a generic plan), never again for each call's own
   * values. For the statements that read many callers' asks at once (services/kit/batched-read.ts):
   * their plan depends only on how many asks came, so planning them afresh each time, as the store
   * does when its estimate favours the parameters' own plan, buys nothing and cost the embedded
   * store most of a roster page (`npm run bench`). Honoured by PGlite for statements outside
   * transactions; PostgreSQL plans in its own process and keeps its own choice.
   */
  genericPlan?: boolean;
}

export interface Queryable {
  /** One parameterized statement; rows come back as plain objects. */
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<R[]>;
  /** Several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface TransactionOptions {
  /**
   * The transaction's own bound of one statement (ms; 0: none) in place of the store's
   * (DATABASE_STATEMENT_TIMEOUT_MS): migrations, which may rewrite a large table. PostgreSQL only.
   */
  statementTimeoutMs?: number;
}

export interface Database extends Queryable {
  readonly engine: 'postgres' | 'pglite';
  /** Runs fn in one transaction: committed when fn resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T>;
  close(): Promise<void>;
}

/** PostgreSQL's SQLSTATE for a unique violation, the same on both engines. */
export const UNIQUE_VIOLATION = '23505';

export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === UNIQUE_VIOLATION;
}
