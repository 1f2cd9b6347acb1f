// Named (prepared) statements on PGlite, as postgres-database.ts sends them to PostgreSQL: a text is
// parsed and planned once, then only bound and executed. PGlite's own `query()` parses, describes
// and plans every statement afresh and enters its WebAssembly six times to do it; here a known
// statement is one entry (bind, describe, execute, sync in one message). The hot reads are one
// statement each on a key, so the parse and the plan were most of their cost (docs/BENCHMARKS.md).
//
// Same rules as on PostgreSQL (prepared-statements.ts): only statements outside transactions are
// named, at most PREPARED_TEXTS_MAX texts, and a named `SELECT *` whose table changed its columns
// is prepared again under a new name.
import { parse, type PGlite, protocol } from '@electric-sql/pglite';
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

  async function run<R>(name: string, sql: string, params: readonly unknown[]): Promise<R[]> {
    const types = await prepare(name, sql);
    // PGlite's own serializers by parameter type, as its query() picks them (JSON, arrays, dates…).
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serializer = db.serializers[types[i]!];
      return serializer ? serializer(value) : String(value);
    });
    const { messages } = await db.execProtocol(
      concat([serialize.bind({ statement: name, values }), serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync()]),
    );
    return (parse.parseResults(messages, db.parsers)[0]?.rows ?? []) as R[];
  }

  return {
    /** One statement outside any transaction, named when the limit allows. */
    async query<R>(sql: string, params: readonly unknown[]): Promise<R[]> {
      const name = names.nameOf(sql);
      if (name === undefined) return (await db.query<R>(sql, params as unknown[])).rows;
      await db._checkReady();
      // The same two locks as PGlite's query(): no statement runs inside another's transaction.
      return db._runExclusiveTransaction(() =>
        db._runExclusiveQuery(() => names.run(sql, name, (named) => run<R>(named, sql, params))),
      );
    },
  };
}
