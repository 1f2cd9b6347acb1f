// Named (prepared) statements for PostgreSQL. A statement sent with a name is parsed and planned
// once per connection and then only bound and executed: on the hot reads (a key lookup, a roster
// page) the parse and plan were most of PostgreSQL's work, and `GET /v1/me` went from 1,900 to
// 3,270 requests/s on the 2-core bench (`npm run bench`). PostgreSQL re-plans a named statement
// when a table it reads changes, and keeps a plan made for the parameters it was given (a custom
// plan) unless a generic one is no more costly (plan_cache_mode auto).
//
// Names are a hash of the text, so one text is one statement on every connection. At most `limit`
// texts are named per pool: each named text is kept by every connection of the pool for its life,
// and a text built with values in it (none should be) must not grow that without bound; the
// texts after the limit run unnamed, as before.
import { createHash } from 'node:crypto';

export const PREPARED_TEXTS_MAX = 1000;

/** SQLSTATE 0A000 with this message: a table a named `SELECT *` reads changed its columns. */
function isStalePreparedStatement(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  return e?.code === '0A000' && typeof e.message === 'string' && e.message.includes('cached plan must not change result type');
}

export function createStatementNames(limit = PREPARED_TEXTS_MAX) {
  const names = new Map<string, string>();
  let renamed = 0;
  /**
   * A new name for a text whose named statement went stale on some connection (its table
   * changed columns, as a migration by a newer replica does): the old name stays on those
   * connections, unused.
   */
  const rename = (sql: string): string => {
    const name = `en_${createHash('sha1').update(`${++renamed}:${sql}`).digest('hex').slice(0, 24)}`;
    names.set(sql, name);
    return name;
  };
  return {
    /** The name to send this text under; undefined: send it unnamed. */
    nameOf(sql: string): string | undefined {
      const known = names.get(sql);
      if (known !== undefined || names.size >= limit) return known;
      const name = `en_${createHash('sha1').update(sql).digest('hex').slice(0, 24)}`;
      names.set(sql, name);
      return name;
    },
    rename,
    /**
     * Runs `sql` under `name`; when the named statement went stale, once more under a new name
     * (the server refused it before running it: nothing was done).
     */
    async run<T>(sql: string, name: string, execute: (name: string) => Promise<T>): Promise<T> {
      try {
        return await execute(name);
      } catch (error) {
        if (!isStalePreparedStatement(error)) throw error;
        return execute(rename(sql));
      }
    },
  };
}

export type StatementNames = ReturnType<typeof createStatementNames>;
