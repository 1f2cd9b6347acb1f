// A bulk add is recorded whole even when a fault strikes after the roster write: the search service
// runs in its own gRPC server over its own store, as in a multi-process deployment (over mutual
// TLS, the services knowing each other by their certificates), and is really
// stopped before the add. The add still answers its per-item results and the people are in the
// roster; their search documents are owed by follow-ups written with the memberships, and once search
// is back the communities sweeper indexes them, so a search finds them. An erasure made while the
// indexing is still owed drops it: the erased person is never indexed again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommunitiesContext } from '../services/communities/communities-context.js';
import { startTaskSweeper } from '../services/communities/task-sweeper.js';
import { createSearchService } from '../services/search/search.service.js';
import type { Database } from '../services/kit/db/database.js';
import { TokenVerifier } from '../services/kit/grpc/caller-token.js';
import { splitTls } from './helpers/split-tls.js';
import type { ServiceClients } from '../services/kit/grpc/client.js';
import { startGrpcServer, type RunningGrpcServer } from '../services/kit/grpc/server.js';
import { createLogger } from '../services/kit/logger.js';
import { generateSecrets } from '../services/kit/secrets.js';
import { bearer, request } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { openTestDatabase, storeNames } from './helpers/stores.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';
import { writerSeed } from './helpers/writer-seed.js';

const writer = liveKey();
const seed = writerSeed(writer, ['member:write', 'search:read', 'profile:read']);

const silent = createLogger('silent');

describe.each(storeNames())('bulk add indexing after a fault, search in its own server, on %s', (store) => {
  const secrets = generateSecrets();
  const tls = splitTls('search', ['gateway', 'mcp', 'identity', 'communities', 'enrichment', 'billing']);
  let searchStore: { db: Database; close(): Promise<void> };
  let sys: TestSystem;
  let clients: ServiceClients | undefined;
  let search: { server: RunningGrpcServer; stop(): Promise<void> } | undefined;

  /** The search service on `address` (port 0: any) over its own store, calling the system's services. */
  async function startSearch(address: string) {
    const lazyClients = new Proxy({} as ServiceClients, { get: (_t, name) => (clients as unknown as Record<string | symbol, unknown>)[name] });
    const service = createSearchService({
      db: searchStore.db, clients: lazyClients, deadlineMs: 10_000, logger: silent,
    });
    // Over mutual TLS, as between processes: the services know each other by their certificates.
    const server = await startGrpcServer({ address, services: [service.registration], verifier: new TokenVerifier(secrets), logger: silent, tls: tls.serverTls });
    return {
      server,
      async stop() {
        await server.shutdown();
        await service.stop();
      },
    };
  }

  beforeAll(async () => {
    searchStore = await openTestDatabase(store);
    search = await startSearch('127.0.0.1:0');
    sys = await startTestSystem({
      store,
      seed,
      env: {
        API_KEY_PEPPER: secrets.apiKeyPepper,
        CALLER_TOKEN_PRIVATE_KEY: secrets.callerTokenPrivateKey,
        CALLER_TOKEN_PUBLIC_KEY: secrets.callerTokenPublicKey,
        OPERATOR_TOKEN_PRIVATE_KEY: secrets.operatorTokenPrivateKey,
        OPERATOR_TOKEN_PUBLIC_KEY: secrets.operatorTokenPublicKey,
        ...tls.systemEnv,
        SEARCH_GRPC_ADDR: search.server.address,
      },
    });
    clients = sys.clients;
  }, 300_000);
  afterAll(async () => {
    await sys?.stop();
    await search?.stop();
    await searchStore?.close();
  });

  const add = (members: unknown[]) => request(sys.restUrl, 'POST', '/v1/communities/c_bio/members', { headers: bearer(writer), body: { members } });
  const memberRead = (profileId: string) => request(sys.restUrl, 'GET', `/v1/communities/c_bio/members/${profileId}`, { headers: bearer(writer) });
  const followups = () => sys.db!.query<{ profile_id: string; attempts: number }>('SELECT profile_id, attempts FROM communities.index_followups ORDER BY profile_id');

  /** Who a community search for `query` finds, or undefined while search cannot answer. */
  async function found(query: string): Promise<string[] | undefined> {
    const res = await request(sys.restUrl, 'POST', '/v1/search', { headers: bearer(writer), body: { query, scope: 'community', community_id: 'c_bio', wait_seconds: 25 } });
    return res.status === 200 ? (res.body.matches as Array<{ profile_id: string }>).map((m) => m.profile_id) : undefined;
  }

  /** The communities sweeper's passes, with no grace, until `done` holds (the search channel may still be backing off). */
  async function sweepUntil(done: () => Promise<boolean>): Promise<void> {
    const context = createCommunitiesContext({ db: sys.db!, clients: sys.clients, signer: sys.signer, deadlineMs: 10_000, logger: silent, pepper: secrets.apiKeyPepper });
    const sweeper = startTaskSweeper(context, { intervalMs: 60_000, graceMs: 0 });
    try {
      const deadline = Date.now() + 30_000;
      for (;;) {
        await sweeper.sweep();
        if (await done()) return;
        if (Date.now() > deadline) throw new Error('the sweeper did not finish in 30 s');
        await new Promise((r) => setTimeout(r, 500));
      }
    } finally {
      await sweeper.stop();
    }
  }

  it('the search service stopped: the add answers, the people are in the roster, and once search is back the sweeper makes them findable', async () => {
    const address = search!.server.address;
    await search!.stop();
    search = undefined;

    const res = await add([{ email: 'philippa@example.org', name: 'Philippa Wrenfield' }, { name: 'Bad \ud800 Item' }, { name: 'Tobias Quennell' }]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.results.map((r: { status: string }) => r.status)).toEqual(['added', 'rejected', 'added']);
    const [philippa, , tobias] = res.body.results.map((r: { profile_id: string }) => r.profile_id);
    expect((await memberRead(philippa)).status).toBe(200);
    expect((await memberRead(tobias)).status).toBe(200);
    // Owed, not lost: one follow-up per person placed, its failed attempt counted.
    expect(await followups()).toEqual([philippa, tobias].sort().map((profile_id) => ({ profile_id, attempts: 1 })));

    search = await startSearch(address);
    await sweepUntil(async () => (await followups()).length === 0);
    expect(await found('Philippa Wrenfield')).toContain(philippa);
    expect(await found('Tobias Quennell')).toContain(tobias);
  });

  it('a person erased while the indexing is owed is not indexed by the sweeper', async () => {
    const address = search!.server.address;
    await search!.stop();
    search = undefined;
    const res = await add([{ email: 'ottoline@example.org', name: 'Ottoline Brackwater' }]);
    const ottoline = res.body.results[0].profile_id;
    expect((await followups()).map((f) => f.profile_id)).toEqual([ottoline]);

    search = await startSearch(address);
    // The erasure calls search itself; retried while the channel to the restarted server backs off.
    const deadline = Date.now() + 30_000;
    let erased = await request(sys.restUrl, 'DELETE', `/v1/communities/c_bio/members/${ottoline}`, { headers: bearer(writer) });
    while (erased.status === 503 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      erased = await request(sys.restUrl, 'DELETE', `/v1/communities/c_bio/members/${ottoline}`, { headers: bearer(writer) });
    }
    expect(erased.status, JSON.stringify(erased.body)).toBe(200);
    expect(await followups()).toEqual([]);
    await sweepUntil(async () => true);
    expect(await found('Ottoline Brackwater')).not.toContain(ottoline);
  });
});
