// `npm run migrate`: applies every service's pending migrations to the configured store
// (DATABASE_URL, or the embedded store in DATA_DIR — stop the server first, PGlite has one owner).
// A progress bar on a terminal's stderr; stdout has only the JSON of what was applied.
import { loadConfig } from '../../services/kit/config.js';
import { openDatabase } from '../../services/kit/db/open-database.js';
import { MIGRATED_SCHEMAS, migrateAll } from '../../services/kit/db/migrations.js';
import { progressBar } from '../admin/progress.js';

const config = loadConfig();
const db = await openDatabase(config);
const bar = progressBar('migrate');
try {
  const applied = await migrateAll(db, MIGRATED_SCHEMAS, (checked, total) => bar.update(checked, total, 'migrations')).finally(() => bar.stop());
  console.log(JSON.stringify({ applied }, null, 2));
} finally {
  await db.close();
}
