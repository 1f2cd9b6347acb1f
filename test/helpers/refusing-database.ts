// Makes a database of the test's own (freshPostgresDatabase) refuse connections and take them
// again, as an operator's or a failover's outage would: ALLOW_CONNECTIONS false plus the end of its
// open sessions (57P01 to each), then ALLOW_CONNECTIONS true. Never the shared `test` database.
import pg from 'pg';

async function asAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL! });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export function databaseNameOf(url: string): string {
  const name = new URL(url).pathname.slice(1);
  // Only a database made for this run (test/helpers/stores.ts names them en_test_…).
  if (!/^en_test_[a-z0-9_]+$/.test(name)) throw new Error(`refusing to take down ${name}: not a test's own database`);
  return name;
}

export async function refuseConnections(url: string): Promise<void> {
  const name = databaseNameOf(url);
  await asAdmin(async (c) => {
    await c.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await c.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
  });
}

export async function allowConnections(url: string): Promise<void> {
  const name = databaseNameOf(url);
  await asAdmin((c) => c.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`));
}
