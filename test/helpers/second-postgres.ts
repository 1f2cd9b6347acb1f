// A second PostgreSQL server on this machine, for a test that needs two (the search corpus split
// across servers, test/postgres/search-partitioned.test.ts). initdb into a private temporary folder,
// and the server listens on a Unix socket in that folder only: no TCP port is bound, so none is
// picked and none can collide — the port number only names the socket file. PostgreSQL refuses to
// run as root: a root test run starts it as the `postgres` OS user, any other as itself.
import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/** Names the socket file (.s.PGSQL.5433) in the server's private folder; not a TCP port. */
const SOCKET_PORT = 5433;

export interface SecondPostgres {
  /** The folder holding the server's socket (a connection's `host`). */
  socketDir: string;
  port: number;
  /** A connection URL to one of its databases, as its superuser `postgres` (trust, socket only). */
  urlOf(database: string): string;
  /** Creates a database on it. */
  createDatabase(name: string): Promise<void>;
  /** Stops the server and removes its folder. */
  stop(): Promise<void>;
}

/** The folder of initdb and pg_ctl: POSTGRES_BIN_DIR, the newest /usr/lib/postgresql/N/bin, or PATH. */
function binDir(): string {
  const debian = existsSync('/usr/lib/postgresql')
    ? readdirSync('/usr/lib/postgresql').filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)).map((v) => `/usr/lib/postgresql/${v}/bin`)
    : [];
  const candidates = [process.env.POSTGRES_BIN_DIR, ...debian, ...(process.env.PATH ?? '').split(delimiter)].filter((d): d is string => Boolean(d));
  const found = candidates.find((d) => existsSync(join(d, 'initdb')) && existsSync(join(d, 'pg_ctl')));
  if (!found) {
    throw new Error(
      'a second PostgreSQL server cannot be started: initdb and pg_ctl were not found (set POSTGRES_BIN_DIR, or install the ' +
        'PostgreSQL server package, e.g. /usr/lib/postgresql/15/bin)',
    );
  }
  return found;
}

/** As root: the `postgres` OS user's uid and gid, which the server runs as. */
function postgresUser(): { uid: number; gid: number } {
  try {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    throw new Error('a second PostgreSQL server cannot be started: the tests run as root and there is no `postgres` OS user to run it as (PostgreSQL refuses root)');
  }
}

/**
 * Starts a server; `locale` should be the first server's lc_ctype, so that both analyse text alike
 * (to_tsvector's parser reads letters by it).
 */
export async function startSecondPostgres(options: { locale: string }): Promise<SecondPostgres> {
  const bin = binDir();
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot ? postgresUser() : null;
  const dir = mkdtempSync(join(tmpdir(), 'en-pg-'));
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const data = join(dir, 'data');
  const as = (tool: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args], { timeout: 60_000 }) : run(join(bin, tool), args, { timeout: 60_000 });
  const stop = async () => {
    await as('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await as('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', `--locale=${options.locale}`, '--no-sync']);
    // No TCP listener; a throwaway server need not survive a crash (fsync off).
    const settings = `-c listen_addresses='' -k ${dir} -p ${SOCKET_PORT} -c fsync=off -c full_page_writes=off`;
    await as('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-o', settings, '-w', '-t', '60', 'start']);
  } catch (error) {
    await stop();
    throw new Error(`a second PostgreSQL server could not be started in ${dir}: ${(error as Error).message}`);
  }
  const urlOf = (database: string) => `postgresql://postgres@/${database}?host=${dir}&port=${SOCKET_PORT}`;
  return {
    socketDir: dir,
    port: SOCKET_PORT,
    urlOf,
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: urlOf('postgres') });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
    },
    stop,
  };
}

/**
 * Runs an SQL file written for `psql -v name=value -f file` over one connection: each `:'name'` is
 * replaced by the value as a quoted literal, as psql does. A name without a value is an error.
 */
export async function runPsqlScript(url: string, sql: string, variables: Record<string, string>): Promise<void> {
  const text = sql.replace(/:'([a-z_]+)'/g, (_, name: string) => {
    const value = variables[name];
    if (value === undefined) throw new Error(`the script needs -v ${name}=…`);
    return `'${value.replace(/'/g, "''")}'`;
  });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}
