// The store bounds each statement (DATABASE_STATEMENT_TIMEOUT_MS) so that a request never hangs on
// it; an operator's sweep over the whole corpus is not a request. A re-index prune whose DELETE
// waits longer than the bound (here: for a lock another session holds, as it would wait on a large
// corpus) still completes, where a request's statement on the same store fails at the bound.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../services/kit/db/database.js';
import { openPostgres } from '../../services/kit/db/postgres-database.js';
import { createLogger } from '../../services/kit/logger.js';
import { pruneDocuments } from '../../services/search/indexing.js';
import { createSearchCorpusRepository } from '../../services/search/search-corpus.repository.js';
import { memberDocument } from '../helpers/search-documents.js';
import { freshPostgresDatabase, type FreshDatabase } from '../helpers/stores.js';

const BOUND_MS = 300;
const LOCK_HELD_MS = 1200;

describe('statements exempt from the store bound (PostgreSQL)', () => {
  let fresh: FreshDatabase;
  let db: Database;

  beforeAll(async () => {
    fresh = await freshPostgresDatabase({ migrated: true });
    db = openPostgres(fresh.url, { statementTimeoutMs: BOUND_MS });
  });
  afterAll(async () => {
    await db?.close();
    await fresh?.drop();
  });

  /**
   * Holds a lock that blocks writes to search.documents for LOCK_HELD_MS, from another session;
   * `released` settles once it is let go (an object, as a promise returned would be awaited whole).
   */
  async function holdDocumentsLock(): Promise<{ released: Promise<void> }> {
    const holder = new pg.Client({ connectionString: fresh.url });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE search.documents IN SHARE MODE');
    const released = new Promise((resolve) => setTimeout(resolve, LOCK_HELD_MS)).then(async () => {
      await holder.query('COMMIT');
      await holder.end();
    });
    return { released };
  }

  it('a request-path write waiting past the bound fails as the database unavailable (503)', async () => {
    const { released } = await holdDocumentsLock();
    try {
      await expect(createSearchCorpusRepository(db).upsertDocuments([memberDocument('c1', 'p_waiting')])).rejects.toThrow('database is unavailable');
    } finally {
      await released;
    }
  });

  it('a re-index prune waiting past the bound completes and removes what the run did not touch', async () => {
    const corpus = createSearchCorpusRepository(db);
    await corpus.upsertDocuments([memberDocument('c1', 'p_left'), memberDocument('c1', 'p_member')]);
    const run = await corpus.beginReindexRun();
    await corpus.upsertDocuments([memberDocument('c1', 'p_member')]);

    const { released } = await holdDocumentsLock();
    const started = performance.now();
    const removed = await pruneDocuments({ deps: { db, logger: createLogger('silent') } }, run, 'req_prune');
    await released;
    expect(performance.now() - started).toBeGreaterThan(BOUND_MS);
    expect(removed).toBe(1);
    const left = await db.query<{ profile_id: string }>('SELECT profile_id FROM search.documents ORDER BY 1');
    expect(left.map((r) => r.profile_id)).toEqual(['p_member']);
  });
});
