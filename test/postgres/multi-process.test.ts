// The multi-process topology: each role in its own process against PostgreSQL and Redis. A request
// to the gateway process is answered by the identity and billing processes over gRPC.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchTopology, type Topology } from '../../deploy/local/launch.js';
import { bearer, request } from '../helpers/http.js';
import { liveKey } from '../helpers/keys.js';
import { redisTestPrefix } from '../helpers/redis-prefix.js';
import { freshPostgresDatabase, type FreshDatabase } from '../helpers/stores.js';

const secret = liveKey();

describe('multi-process topology', () => {
  // Rate-limit keys under a prefix of this run's own, deleted afterwards.
  const redisPrefix = redisTestPrefix();
  let db: FreshDatabase;
  let topology: Topology;
  beforeAll(async () => {
    db = await freshPostgresDatabase();
    const seedFile = join(mkdtempSync(join(tmpdir(), 'en-mp-')), 'seed.json');
    writeFileSync(seedFile, JSON.stringify({
      users: [{ id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' }],
      wallets: [{ owner: { user: 'u_ada' }, balance: 42 }],
      keys: [{ id: 'k_ada', secret, owner: { user: 'u_ada' }, scopes: ['search:read'] }],
    }));
    const env = { DATABASE_URL: db.url, REDIS_URL: process.env.REDIS_URL!, ...redisPrefix.env, SEED_FILE: seedFile, LOG_LEVEL: 'warn' };
    topology = await launchTopology(env, { readyTimeoutMs: 90_000 });
  }, 180_000);
  afterAll(async () => {
    await topology?.stop();
    await db?.drop();
    await redisPrefix.cleanup();
  });

  it('runs every role in its own process', () => {
    const roles = topology.processes.map((p) => p.role).sort();
    expect(roles).toEqual(['billing', 'communities', 'enrichment', 'gateway', 'identity', 'search']);
    expect(new Set(topology.processes.map((p) => p.child.pid)).size).toBe(6);
  });

  it('answers GET /v1/me through the gateway process from the identity and billing processes', async () => {
    const res = await request(topology.restUrl, 'GET', '/v1/me', { headers: bearer(secret) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ key: { id: 'k_ada' }, owner: { id: 'u_ada', name: 'Ada' }, credit_balance: 42 });
  });

  it('reports readiness of its store and Redis on the gateway admin port, the services it calls as metrics', async () => {
    const gateway = topology.processes.find((p) => p.role === 'gateway')!;
    const res = await request(gateway.adminUrl, 'GET', '/readyz');
    expect(res.status).toBe(200);
    expect(res.body.checks).toEqual({ database: 'ok', redis: 'ok' });
    const page = await (await fetch(`${gateway.adminUrl}/metrics`)).text();
    expect(page).toContain('expertnet_dependency_up{dependency="identity"} 1');
    expect(page).toContain('expertnet_dependency_up{dependency="billing"} 1');
  });

  it('fails with 503 in the envelope, leaking nothing, once the identity process is gone; the gateway stays ready', async () => {
    await topology.stopRole('identity');
    const res = await request(topology.restUrl, 'GET', '/v1/me', { headers: bearer(secret) });
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({ code: 'unavailable', request_id: res.headers.get('x-request-id') });
    expect(res.headers.get('retry-after')).toBe('1');
    const gateway = topology.processes.find((p) => p.role === 'gateway')!;
    expect((await request(gateway.adminUrl, 'GET', '/readyz')).status).toBe(200);
  });
});
