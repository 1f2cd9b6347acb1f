// The one small database interface every service uses. Two engines stand behind it: PostgreSQL
// through `pg` (DATABASE_URL) and embedded PGlite (DATA_DIR). The SQL is the same on both.
export interface Queryable {
  /** One parameterized statement; rows come back as plain objects. */
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<R[]>;
  /** Several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface Database extends Queryable {
  readonly engine: 'postgres' | 'pglite';
  /** Runs fn in one transaction: committed when fn resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** PostgreSQL's SQLSTATE for a unique violation, the same on both engines. */
export const UNIQUE_VIOLATION = '23505';

export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === UNIQUE_VIOLATION;
}
