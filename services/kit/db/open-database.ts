import { join } from 'node:path';
import type { Config } from '../config.js';
import type { Database } from './database.js';
import { openPglite } from './pglite-database.js';
import { openPostgres } from './postgres-database.js';

/** PostgreSQL when DATABASE_URL is set, otherwise embedded PGlite under DATA_DIR. */
export async function openDatabase(config: Pick<Config, 'DATABASE_URL' | 'DATA_DIR'> & Partial<Pick<Config, 'DATABASE_PREPARED_STATEMENTS'>>): Promise<Database> {
  if (config.DATABASE_URL) return openPostgres(config.DATABASE_URL, { preparedStatements: config.DATABASE_PREPARED_STATEMENTS !== 'off' });
  const dir = config.DATA_DIR.startsWith('memory://') ? 'memory://' : join(config.DATA_DIR, 'pglite');
  return openPglite(dir);
}
