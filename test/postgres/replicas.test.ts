// Several gateway replicas in front of one set of services, PostgreSQL and Redis: what one
// replica learns, every replica enforces on the very next request.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchTopology, type Topology } from '../../deploy/local/launch.js';
import { grpcAddressesOf, loadConfig } from '../../services/kit/config.js';
import { callAs, createServiceClients, type ServiceClients } from '../../services/kit/grpc/client.js';
import { TokenSigner } from '../../services/kit/grpc/caller-token.js';
import { bearer, request } from '../helpers/http.js';
import { liveKey } from '../helpers/keys.js';
import { freshPostgresDatabase, type FreshDatabase } from '../helpers/stores.js';

const keepKey = liveKey();
const revokeKey = liveKey();
const freeKey = liveKey();
// Bucket keys live in the shared Redis: a fresh key id per run keeps runs apart.
const freeKeyId = `k_free_${Date.now().toString(36)}`;

describe('two gateway replicas', () => {
  let db: FreshDatabase;
  let topology: Topology;
  let clients: ServiceClients;
  let signer: TokenSigner;
  beforeAll(async () => {
    db = await freshPostgresDatabase();
    const seedFile = join(mkdtempSync(join(tmpdir(), 'en-rep-')), 'seed.json');
    writeFileSync(seedFile, JSON.stringify({
      users: [
        { id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' },
        { id: 'u_free', email: 'free@example.org', name: 'Free', plan: 'free' },
      ],
      keys: [
        { id: freeKeyId, secret: freeKey, owner: { user: 'u_free' }, scopes: ['search:read'] },
        { id: 'k_keep', secret: keepKey, owner: { user: 'u_ada' }, scopes: ['search:read'] },
        { id: 'k_revoke', secret: revokeKey, owner: { user: 'u_ada' }, scopes: ['search:read'] },
      ],
    }));
    const env = { DATABASE_URL: db.url, REDIS_URL: process.env.REDIS_URL!, SEED_FILE: seedFile, LOG_LEVEL: 'warn' };
    topology = await launchTopology(env, { gateways: 2, readyTimeoutMs: 90_000 });
    clients = createServiceClients(grpcAddressesOf(loadConfig(topology.env)));
    signer = new TokenSigner(topology.env.CALLER_TOKEN_PRIVATE_KEY!);
  }, 180_000);
  afterAll(async () => {
    clients?.close();
    await topology?.stop();
    await db?.drop();
  });

  it('refuses a revoked key on its next request through every replica', async () => {
    for (const url of topology.restUrls) {
      expect((await request(url, 'GET', '/v1/me', { headers: bearer(revokeKey) })).status).toBe(200);
    }
    await clients.identity.revokeKey({ keyId: 'k_revoke' }, await callAs(signer, { kind: 'operator', actor: 'test' }, undefined, 5000));
    for (const url of topology.restUrls) {
      const res = await request(url, 'GET', '/v1/me', { headers: bearer(revokeKey) });
      expect(res.status, url).toBe(401);
      expect((await request(url, 'GET', '/v1/me', { headers: bearer(keepKey) })).status, url).toBe(200);
    }
  });

  it('share one rate-limit bucket through Redis', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 8 }, (_, i) => request(topology.restUrls[i % 2]!, 'GET', '/v1/me', { headers: bearer(freeKey) })),
    );
    const codes = statuses.map((r) => r.status);
    expect(codes.filter((c) => c === 200)).toHaveLength(5);
    expect(codes.filter((c) => c === 429)).toHaveLength(3);
  });
});
