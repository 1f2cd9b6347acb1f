import { join } from 'node:path';
import type { Config } from '../config.js';
import type { Database } from './database.js';
import type { DependencyState } from '../dependencies/state.js';
import { openPglite } from './pglite-database.js';
import { openPostgres } from './postgres-database.js';

/** PostgreSQL when DATABASE_URL is set, otherwise embedded PGlite under DATA_DIR. */
type DatabaseConfig = Pick<Config, 'DATABASE_URL' | 'DATA_DIR'> &
  Partial<Pick<Config, 'DATABASE_PREPARED_STATEMENTS' | 'DATABASE_CONNECT_TIMEOUT_MS' | 'DATABASE_STATEMENT_TIMEOUT_MS'>>;

/** `state`: where PostgreSQL calls report their outcomes (the embedded store has no outage of its own). */
export async function openDatabase(config: DatabaseConfig, state?: DependencyState): Promise<Database> {
  if (config.DATABASE_URL) {
    return openPostgres(config.DATABASE_URL, {
      preparedStatements: config.DATABASE_PREPARED_STATEMENTS !== 'off',
      ...(config.DATABASE_CONNECT_TIMEOUT_MS !== undefined && { connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS }),
      ...(config.DATABASE_STATEMENT_TIMEOUT_MS !== undefined && { statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS }),
      ...(state && { state }),
    });
  }
  const dir = config.DATA_DIR.startsWith('memory://') ? 'memory://' : join(config.DATA_DIR, 'pglite');
  return openPglite(dir);
}
