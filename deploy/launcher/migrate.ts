// `npm run migrate`: applies every service's pending migrations to the configured store
// (DATABASE_URL, or the embedded store in DATA_DIR — stop the server first, PGlite has one owner).
import { loadConfig } from '../../services/kit/config.js';
import { openDatabase } from '../../services/kit/db/open-database.js';
import { migrateAll } from '../../services/kit/db/migrations.js';

const config = loadConfig();
const db = await openDatabase(config);
try {
  const applied = await migrateAll(db);
  console.log(JSON.stringify({ applied }, null, 2));
} finally {
  await db.close();
}
