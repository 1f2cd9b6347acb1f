// The bounds of the PostgreSQL store's calls against servers that never answer (a fake on a local
// port): one that accepts connections and says nothing (no connection is had in time), and one
// that completes the start-up and then stops answering (a frozen server, a network that drops
// packets). Neither server ever answers, so a call that ends at all was ended by its bound: each
// fails as DependencyUnavailable caused by that bound (the pool's connect timeout, pg's read
// timeout) and the state marks the database down; nothing hangs. A refused connection fails the
// same way at once: with bounds longer than the test may run, the refusal itself is the cause.
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DependencyState } from '../dependencies/state.js';
import { DependencyUnavailable } from '../dependencies/unavailable.js';
import type { Database } from './database.js';
import { openPostgres } from './postgres-database.js';

/** AuthenticationOk then ReadyForQuery (idle): what a server sends once a session has started. */
const SESSION_STARTED = Buffer.concat([
  Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 0]),
  Buffer.from([0x5a, 0, 0, 0, 5, 0x49]),
]);

async function fakeServer(answersStartup: boolean): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    // The first message is the start-up; nothing after it is ever answered.
    socket.once('data', () => {
      if (answersStartup) socket.write(SESSION_STARTED);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `postgres://nobody@127.0.0.1:${port}/db`,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

async function failure(call: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  const error = await call.then(() => undefined, (e: unknown) => e);
  return { error, ms: performance.now() - started };
}

/** The driver's own failure behind a DependencyUnavailable: its message and code. */
function causeOf(error: unknown): { message: string; code?: string } {
  expect(error).toBeInstanceOf(DependencyUnavailable);
  const cause = (error as DependencyUnavailable).cause as { message: string; code?: string };
  return { message: cause.message, code: cause.code };
}

describe('PostgreSQL calls are bounded', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
  });
  const open = (url: string, state: DependencyState, bounds = { connectTimeoutMs: 300, statementTimeoutMs: 200 }): Database => {
    const db = openPostgres(url, { ...bounds, state });
    cleanups.push(() => db.close().catch(() => undefined));
    return db;
  };

  it('a server that accepts and never answers: no connection within the connect bound, DependencyUnavailable', async () => {
    const server = await fakeServer(false);
    cleanups.push(server.close);
    const state = new DependencyState('database');
    const db = open(server.url, state);
    const { error } = await failure(db.query('SELECT 1'));
    expect(causeOf(error).message).toMatch(/connection timeout|timeout exceeded when trying to connect/);
    expect(state.down).toBe(true);
    const tx = await failure(db.transaction((t) => t.query('SELECT 1')));
    expect(causeOf(tx.error).message).toMatch(/connection timeout|timeout exceeded when trying to connect/);
  });

  it('a server that stops answering after the start-up (frozen): the statement fails past its bound plus the read margin, DependencyUnavailable', async () => {
    const server = await fakeServer(true);
    cleanups.push(server.close);
    const state = new DependencyState('database');
    const db = open(server.url, state);
    const read = await failure(db.query('SELECT 1'));
    expect(causeOf(read.error).message).toMatch(/^Query read timeout/);
    // Not before the 200 ms statement bound + 2000 ms margin for the server's own answer (a slow
    // machine only makes the wait longer).
    expect(read.ms).toBeGreaterThanOrEqual(2100);
    expect(state.down).toBe(true);
    const tx = await failure(db.transaction((t) => t.query('SELECT 1')));
    expect(causeOf(tx.error).message).toMatch(/^Query read timeout/);
  });

  it('a refused connection: DependencyUnavailable at once', async () => {
    const server = await fakeServer(false);
    const url = server.url;
    await server.close(); // nothing listens on the port any more
    const state = new DependencyState('database');
    // Bounds past the test's own timeout: only the refusal can end the call.
    const { error } = await failure(open(url, state, { connectTimeoutMs: 600_000, statementTimeoutMs: 600_000 }).query('SELECT 1'));
    expect(causeOf(error).code).toBe('ECONNREFUSED');
    expect(state.down).toBe(true);
  });
});
