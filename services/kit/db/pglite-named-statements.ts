// Named (prepared) statements on PGlite, as postgres-database.ts sends them to PostgreSQL: a text is
// parsed and planned once, then only bound and executed. PGlite's own `query()` parses, describes
// and plans every statement afresh and enters its WebAssembly six times to do it; here a known
// statement is one entry (bind, describe, execute, sync in one message). The hot reads are one
// statement each on a key, so the parse and the plan were most of their cost (`npm run bench`).
//
// Same rules as on PostgreSQL (prepared-statements.ts): only statements outside transactions are
// named, at most PREPARED_TEXTS_MAX texts, and a named `SELECT *` whose table changed its columns
// is prepared again under a new name.
//
// A statement asked for with a generic plan (QueryOptions) is bound between a SET and a RESET of
// plan_cache_mode, in the same entry: the plan is chosen when the statement is bound. The RESET
// follows the statement's Sync, so it runs even when the statement fails.
import { parse, type PGlite, protocol } from '@electric-sql/pglite';
import type { QueryOptions } from './database.js';
import { createStatementNames } from './prepared-statements.js';

const { serialize } = protocol;

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** The two statements around a statement bound with a generic plan. */
const GENERIC_PLAN = { name: 'en_generic_plan', text: 'SET plan_cache_mode = force_generic_plan' };
const PLAN_BY_COST = { name: 'en_plan_by_cost', text: 'RESET plan_cache_mode' };

export function createNamedStatements(db: PGlite) {
  const names = createStatementNames();
  /** Parameter type ids of each statement prepared on this instance, by name. */
  const prepared = new Map<string, number[]>();

  async function prepare(name: string, sql: string): Promise<number[]> {
    const known = prepared.get(name);
    if (known) return known;
    const { messages } = await db.execProtocol(
      concat([serialize.parse({ name, text: sql }), serialize.describe({ type: 'S', name }), serialize.sync()]),
      { syncToFs: false },
    );
    const types = parse.parseDescribeStatementResults(messages);
    prepared.set(name, types);
    return types;
  }

  async function run<R>(name: string, sql: string, params: readonly unknown[], genericPlan: boolean): Promise<R[]> {
    const types = await prepare(name, sql);
    if (genericPlan) {
      // One after the other: PGlite keeps one protocol exchange's results at a time.
      await prepare(GENERIC_PLAN.name, GENERIC_PLAN.text);
      await prepare(PLAN_BY_COST.name, PLAN_BY_COST.text);
    }
    // PGlite's own serializers by parameter type, as its query() picks them (JSON, arrays, dates…).
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serializer = db.serializers[types[i]!];
      return serializer ? serializer(value) : String(value);
    });
    const statement = [serialize.bind({ statement: name, values }), serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync()];
    const { messages } = await db.execProtocol(
      concat(genericPlan ? [...setting(GENERIC_PLAN.name), ...statement, ...setting(PLAN_BY_COST.name), serialize.sync()] : statement),
    );
    // One result per completed command: the SET's comes first.
    return (parse.parseResults(messages, db.parsers)[genericPlan ? 1 : 0]?.rows ?? []) as R[];
  }

  /** Binds and runs a prepared statement without parameters (a setting). */
  function setting(name: string): Uint8Array[] {
    return [serialize.bind({ statement: name, values: [] }), serialize.execute({})];
  }

  return {
    /** One statement outside any transaction, named when the limit allows. */
    async query<R>(sql: string, params: readonly unknown[], options: QueryOptions = {}): Promise<R[]> {
      const name = names.nameOf(sql);
      if (name === undefined) return (await db.query<R>(sql, params as unknown[])).rows;
      await db._checkReady();
      // The same two locks as PGlite's query(): no statement runs inside another's transaction.
      return db._runExclusiveTransaction(() =>
        db._runExclusiveQuery(() => names.run(sql, name, (named) => run<R>(named, sql, params, options.genericPlan === true))),
      );
    },
  };
}
