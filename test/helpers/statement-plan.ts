// The plan the store makes for the statement a repository call sends: the call runs against a
// database that records what it is sent, and the last statement is explained with the same
// parameters. For tests of how a read finds its rows (by an index, not by reading a whole table).
import type { Database, QueryOptions } from '../../services/kit/db/database.js';

export async function planOfLastStatement(db: Database, call: (recording: Database) => Promise<unknown>): Promise<string> {
  let sent: { sql: string; params: readonly unknown[] } | undefined;
  const recording = {
    ...db,
    query: <R>(sql: string, params: readonly unknown[] = [], options?: QueryOptions) => {
      sent = { sql, params };
      return db.query<R>(sql, params, options);
    },
  } as Database;
  await call(recording);
  if (!sent) throw new Error('the call sent no statement');
  return (await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sent.sql}`, sent.params)).map((r) => r['QUERY PLAN']).join('\n');
}
