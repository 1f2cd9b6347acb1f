// Named statements on a real PostgreSQL (services/kit/db/prepared-statements.ts): what the server
// keeps, and that a table changed under a named statement does not fail the next call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../../services/kit/db/postgres-database.js';
import { freshPostgresDatabase, type FreshDatabase } from '../helpers/stores.js';

const PREPARED = 'SELECT statement FROM pg_prepared_statements ORDER BY statement';

describe('prepared statements on PostgreSQL', () => {
  let fresh: FreshDatabase;
  beforeAll(async () => {
    fresh = await freshPostgresDatabase();
  });
  afterAll(async () => fresh?.drop());

  it('prepares a statement run outside a transaction once on its connection; a transaction’s statements run unnamed', async () => {
    // One connection: pg_prepared_statements shows that session's statements.
    const db = openPostgres(fresh.url, { max: 1 });
    try {
      expect(await db.query<{ n: number }>('SELECT $1::int + 1 AS n', [41])).toEqual([{ n: 42 }]);
      expect(await db.query<{ n: number }>('SELECT $1::int + 1 AS n', [1])).toEqual([{ n: 2 }]);
      await db.transaction((tx) => tx.query('SELECT $1::int * 2 AS n', [2]));
      const prepared = (await db.query<{ statement: string }>(PREPARED)).map((r) => r.statement);
      expect(prepared).toEqual(['SELECT $1::int + 1 AS n', PREPARED]);
    } finally {
      await db.close();
    }
  });

  it('prepares nothing when turned off', async () => {
    const db = openPostgres(fresh.url, { max: 1, preparedStatements: false });
    try {
      await db.query('SELECT $1::int + 1 AS n', [1]);
      expect(await db.query(PREPARED)).toEqual([]);
    } finally {
      await db.close();
    }
  });

  it('answers a named SELECT * after its table gained a column (a newer replica migrated)', async () => {
    const db = openPostgres(fresh.url, { max: 1 });
    const other = openPostgres(fresh.url, { max: 1 });
    try {
      await db.exec('CREATE TABLE widgets (id int PRIMARY KEY); INSERT INTO widgets VALUES (1)');
      expect(await db.query('SELECT * FROM widgets WHERE id = $1', [1])).toEqual([{ id: 1 }]);
      await other.exec("ALTER TABLE widgets ADD COLUMN colour text NOT NULL DEFAULT 'blue'");
      expect(await db.query('SELECT * FROM widgets WHERE id = $1', [1])).toEqual([{ id: 1, colour: 'blue' }]);
      expect(await db.query('SELECT * FROM widgets WHERE id = $1', [1])).toEqual([{ id: 1, colour: 'blue' }]);
      // Still a named statement (prepared again under a new name), not one sent unnamed from now on.
      const prepared = await db.query<{ statement: string }>(PREPARED);
      expect(prepared.filter((r) => r.statement === 'SELECT * FROM widgets WHERE id = $1')).toHaveLength(1);
    } finally {
      await db.close();
      await other.close();
    }
  });
});
