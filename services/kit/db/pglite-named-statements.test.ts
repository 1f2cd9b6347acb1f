// Named statements on PGlite (pglite-named-statements.ts): the same rows as PGlite's own query(),
// prepared once, errors that leave the store usable, no statement inside another's transaction, and
// statements asked for with a generic plan planned once for all their calls.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isUniqueViolation, type Database } from './database.js';
import { openPglite } from './pglite-database.js';

const PREPARED = 'SELECT statement FROM pg_prepared_statements ORDER BY statement';

describe('named statements on PGlite', () => {
  let db: Database;
  beforeEach(async () => {
    db = await openPglite('memory://');
    await db.exec(`CREATE TABLE t (id text PRIMARY KEY, n int8, tags text[], doc jsonb, at timestamptz, note text)`);
  });
  afterEach(async () => db.close());

  it('prepares a statement run outside a transaction once; a transaction’s statements run unnamed', async () => {
    expect(await db.query<{ n: number }>('SELECT $1::int + 1 AS n', [41])).toEqual([{ n: 42 }]);
    expect(await db.query<{ n: number }>('SELECT $1::int + 1 AS n', [1])).toEqual([{ n: 2 }]);
    await db.transaction((tx) => tx.query('SELECT $1::int * 2 AS n', [2]));
    const prepared = (await db.query<{ statement: string }>(PREPARED)).map((r) => r.statement);
    expect(prepared).toEqual(['SELECT $1::int + 1 AS n', PREPARED]);
  });

  it('writes and reads every parameter type as PGlite’s own query() does', async () => {
    const at = new Date('2026-11-28T06:00:00.000Z');
    const insert = 'INSERT INTO t (id, n, tags, doc, at, note) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *';
    const row = { id: 'a', n: 9_007_199_254, tags: ['x', 'y "z"', ''], doc: { k: [1, 'two', null] }, at, note: null };
    expect(await db.query(insert, [row.id, row.n, row.tags, row.doc, row.at, row.note])).toEqual([row]);
    // The transaction's statement goes through PGlite's own query(): both read the same.
    const select = 'SELECT * FROM t WHERE id = $1';
    const viaOwn = await db.transaction((tx) => tx.query(select, ['a']));
    expect(await db.query(select, ['a'])).toEqual(viaOwn);
    expect(await db.query(select, ['missing'])).toEqual([]);
  });

  it('refuses a duplicate with its SQLSTATE, writes nothing, and answers the next statement', async () => {
    const insert = 'INSERT INTO t (id) VALUES ($1)';
    await db.query(insert, ['a']);
    const error = await db.query(insert, ['a']).catch((e: unknown) => e);
    expect(isUniqueViolation(error)).toBe(true);
    await expect(db.query('SELECT no_such_column FROM t')).rejects.toThrow(/no_such_column/);
    expect(await db.query('SELECT id FROM t ORDER BY id')).toEqual([{ id: 'a' }]);
  });

  it('answers a named SELECT * after its table gained a column', async () => {
    await db.query('INSERT INTO t (id) VALUES ($1)', ['a']);
    const select = 'SELECT * FROM t WHERE id = $1';
    expect(Object.keys((await db.query(select, ['a']))[0]!)).not.toContain('extra');
    await db.exec(`ALTER TABLE t ADD COLUMN extra text NOT NULL DEFAULT 'x'`);
    expect((await db.query<{ extra: string }>(select, ['a']))[0]!.extra).toBe('x');
  });

  it('does not run a statement inside a transaction still open, and sees only what it committed', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let inserted!: () => void;
    const didInsert = new Promise<void>((resolve) => (inserted = resolve));
    const rolledBack = db
      .transaction(async (tx) => {
        await tx.query('INSERT INTO t (id) VALUES ($1)', ['uncommitted']);
        inserted();
        await held;
        throw new Error('roll back');
      })
      .catch((e: Error) => e.message);
    await didInsert;
    // Issued while the transaction holds the store: it must wait, then not see the rolled-back row.
    const count = db.query<{ n: number }>('SELECT count(*)::int AS n FROM t', []);
    release();
    expect(await rolledBack).toBe('roll back');
    expect(await count).toEqual([{ n: 0 }]);
  });

  describe('a statement asked for with a generic plan', () => {
    const BATCHED = `SELECT a.i::int AS i, t.n FROM unnest($1::text[]) WITH ORDINALITY AS a(id, i)
                       LEFT JOIN t ON t.id = a.id ORDER BY a.i`;
    const PLANS = 'SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE statement = $1';
    const setting = async () => (await db.query<{ plan_cache_mode: string }>('SHOW plan_cache_mode'))[0]!.plan_cache_mode;

    it('is planned once for all its calls, never for a call’s own values, and answers the rows it answers without', async () => {
      await db.query('INSERT INTO t (id, n) VALUES ($1, $2), ($3, $4)', ['a', 1, 'b', 2]);
      const asks = [['a'], ['b', 'a'], ['missing', 'b', 'a']];
      const own: unknown[] = [];
      for (let round = 0; round < 3; round++) for (const ids of asks) own.push(await db.query(BATCHED, [ids]));
      // PostgreSQL's own choice (plan_cache_mode auto) begins with a plan for each call's arrays.
      expect((await db.query<{ custom: number }>(PLANS, [BATCHED]))[0]!.custom).toBeGreaterThanOrEqual(5);

      const generic = `${BATCHED} LIMIT 100`;
      const answered: unknown[] = [];
      for (let round = 0; round < 3; round++) for (const ids of asks) answered.push(await db.query(generic, [ids], { genericPlan: true }));
      expect(answered).toEqual(own);
      expect(answered[2]).toEqual([{ i: 1, n: null }, { i: 2, n: 2 }, { i: 3, n: 1 }]);
      expect((await db.query(PLANS, [generic]))[0]).toEqual({ generic: 9, custom: 0 });
      // The setting is the store's own again for every other statement.
      expect(await setting()).toBe('auto');
    });

    it('is refused with its SQLSTATE when it fails, and leaves the setting as it was', async () => {
      const insert = 'INSERT INTO t (id) VALUES ($1)';
      await db.query(insert, ['a'], { genericPlan: true });
      const error = await db.query(insert, ['a'], { genericPlan: true }).catch((e: unknown) => e);
      expect(isUniqueViolation(error)).toBe(true);
      expect(await setting()).toBe('auto');
      expect(await db.query('SELECT id FROM t ORDER BY id')).toEqual([{ id: 'a' }]);
    });
  });
});
