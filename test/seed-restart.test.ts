// Restarting the real system (`deploy/launcher/main.ts`, a child process on ports the OS picks) over a
// seeded store, on every store: the operator contract's "Seed file" rules across restarts. What
// the system did after seeding — an erasure, a charge, a revocation — survives a restart with the
// same SEED_FILE and with a changed one; the file's changes still apply; and a store seeded from a
// file starts again without SEED_FILE, without the demo data set.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OwnerType } from '../proto/gen/expertnet/common/v1/common.js';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import type { ServiceRole } from '../services/kit/config.js';
import { TokenSigner } from '../services/kit/grpc/caller-token.js';
import { callAs, createServiceClients, type ServiceClients } from '../services/kit/grpc/client.js';
import { readRemoteError } from '../services/kit/grpc/errors.js';
import { repoRoot } from '../services/kit/paths.js';
import { generateSecrets } from '../services/kit/secrets.js';
import { bearer, request, type JsonResponse } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { freshPostgresDatabase, storeNames } from './helpers/stores.js';
import { ANY_PORT_ENV } from './helpers/any-port-env.js';

const k = { admin: liveKey(), revoked: liveKey() };
const GONE_NAME = 'Zebulon Quixote-Marsh';
const STAYS_NAME = 'Philippa Oyelaran-Brandt';

const seed: SeedInput = {
  users: [{ id: 'u_admin', email: 'admin@example.org', name: 'Admin', plan: 'paid' }],
  communities: [{ id: 'c_club', name: 'Club', owner: { user: 'u_admin' }, api_writes: true }],
  profiles: [
    { id: 'p_admin', user: 'u_admin', name: 'Admin', public: true },
    { id: 'p_gone', name: GONE_NAME, headline: 'Glaciologist' },
    { id: 'p_stays', name: STAYS_NAME, headline: 'Glaciologist' },
  ],
  memberships: [
    { community: 'c_club', profile: 'p_admin', role: 'admin' },
    { community: 'c_club', profile: 'p_gone', role: 'member' },
    { community: 'c_club', profile: 'p_stays', role: 'member' },
  ],
  wallets: [{ owner: { user: 'u_admin' }, balance: 100 }],
  keys: [
    { id: 'k_admin', secret: k.admin, owner: { user: 'u_admin' }, scopes: ['member:write', 'search:read', 'profile:read'], requested_rate: 6000 },
    { id: 'k_revoked', secret: k.revoked, owner: { user: 'u_admin' }, scopes: ['profile:read'] },
  ],
};

interface Running {
  child: ChildProcess;
  restUrl: string;
  clients: ServiceClients;
  output: () => string;
}

/** Starts deploy/launcher/main.ts and waits for its banner; every port is 0, the ports it got are read back. */
async function start(env: Record<string, string>): Promise<Running> {
  let output = '';
  const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'deploy', 'launcher', 'main.ts')], {
    cwd: repoRoot,
    env: {
      ...process.env, REDIS_URL: '', SEED_FILE: '', LOG_LEVEL: 'info',
      ...ANY_PORT_ENV,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const deadline = Date.now() + 120_000;
  while (!/^Admin:/m.test(output)) {
    if (child.exitCode !== null) throw new Error(`exited early (${child.exitCode}):\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`no start-up banner:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  // The gRPC addresses the services got, from their 'listening' log lines (the operator's client).
  const addresses = {} as Record<ServiceRole, string>;
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    const entry = JSON.parse(line) as { msg?: string; service?: ServiceRole; address?: string };
    if (entry.msg === 'gRPC service listening' && entry.service && entry.address) addresses[entry.service] = entry.address;
  }
  const restUrl = /^REST API:\s+(\S+)\/v1$/m.exec(output)![1]!;
  return { child, restUrl, clients: createServiceClients(addresses), output: () => output };
}

function stop(running: Running): Promise<number | null> {
  running.clients.close();
  return new Promise((resolve) => {
    running.child.once('exit', (code) => resolve(code));
    running.child.kill('SIGTERM');
  });
}

describe.each(storeNames())('restarting a seeded store on %s', (store) => {
  it('keeps an erasure, the charges and a revocation across restarts with SEED_FILE (same or changed) and without it', async () => {
    const secrets = generateSecrets();
    const signer = new TokenSigner(secrets);
    const database = store === 'postgres' ? await freshPostgresDatabase() : undefined;
    const folder = mkdtempSync(join(tmpdir(), 'en-seed-restart-'));
    const seedFile = join(folder, 'seed.json');
    writeFileSync(seedFile, JSON.stringify(seed));
    const env: Record<string, string> = {
      API_KEY_PEPPER: secrets.apiKeyPepper,
      CALLER_TOKEN_PRIVATE_KEY: secrets.callerTokenPrivateKey,
      CALLER_TOKEN_PUBLIC_KEY: secrets.callerTokenPublicKey,
      OPERATOR_TOKEN_PRIVATE_KEY: secrets.operatorTokenPrivateKey,
      OPERATOR_TOKEN_PUBLIC_KEY: secrets.operatorTokenPublicKey,
      DATABASE_URL: database?.url ?? '',
      DATA_DIR: join(folder, 'data'),
    };
    let running: Running | undefined;
    try {
      const get = (path: string, secret = k.admin) => request(running!.restUrl, 'GET', path, { headers: bearer(secret) });
      const operator = () => callAs(signer, { kind: 'operator', actor: 'test' }, undefined, 10_000);
      const balance = async () => (await get('/v1/me')).body.credit_balance as number;
      async function searchClub(query: string): Promise<string[]> {
        let res: JsonResponse = await request(running!.restUrl, 'POST', '/v1/search', {
          headers: bearer(k.admin), body: { query, scope: 'community', community_id: 'c_club', limit: 50 },
        });
        for (let i = 0; i < 200 && (res.status === 202 || res.body.status === 'running'); i++) {
          await new Promise((r) => setTimeout(r, 100));
          res = await get(`/v1/search/${res.body.search_id}`);
        }
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        return (res.body.matches as Array<{ profile_id: string }>).map((m) => m.profile_id);
      }
      const roster = async () => ((await get('/v1/communities/c_club/members?limit=200')).body.members as Array<{ profile_id: string }>).map((m) => m.profile_id).sort();

      /** What the system did after seeding, observed over HTTP and through the operator's calls. */
      async function expectSystemStateKept(expectedBalance: number): Promise<void> {
        expect(await balance()).toBe(expectedBalance);
        const reconcile = await running!.clients.billing.reconcile({}, await operator());
        expect(reconcile.mismatches).toEqual([]);
        expect(reconcile.walletsChecked).toBeGreaterThan(0);
        expect(await roster()).toEqual(['p_admin', 'p_stays']);
        expect((await get('/v1/communities/c_club/members/p_gone')).status).toBe(404);
        expect((await get('/v1/communities/c_club/members/p_stays')).status).toBe(200);
        expect(await searchClub(STAYS_NAME)).toContain('p_stays');
        expect(await searchClub(GONE_NAME)).not.toContain('p_gone');
        expect((await get('/v1/me', k.revoked)).status).toBe(401);
      }

      // First start: the file seeds the store. Then the system acts: an erasure, charges, a revocation.
      running = await start({ ...env, SEED_FILE: seedFile });
      expect(await roster()).toEqual(['p_admin', 'p_gone', 'p_stays']);
      expect(await searchClub(GONE_NAME)).toContain('p_gone');
      expect((await get('/v1/me', k.revoked)).status).toBe(200);
      const erased = await request(running.restUrl, 'DELETE', '/v1/communities/c_club/members/p_gone', { headers: bearer(k.admin) });
      expect(erased.status, JSON.stringify(erased.body)).toBeLessThan(300);
      await searchClub(STAYS_NAME);
      await running.clients.identity.revokeKey({ keyId: 'k_revoked' }, await operator());
      let left = await balance();
      expect(left).toBeLessThan(100); // the searches were charged
      await expectSystemStateKept(left);
      left = await balance();
      expect(await stop(running)).toBe(0);

      // The same file again: nothing the system did is undone.
      running = await start({ ...env, SEED_FILE: seedFile });
      await expectSystemStateKept(left);
      left = await balance();
      expect(await stop(running)).toBe(0);

      // A changed file: its changes apply (a profile's headline, a larger wallet grant: 50 more
      // credits), but the erased membership (its role changed in the file) is not re-created, and
      // the key (its scopes changed in the file) stays revoked.
      const changed: SeedInput = {
        ...seed,
        profiles: seed.profiles!.map((p) => (p.id === 'p_stays' ? { ...p, headline: 'Glaciologist and oceanographer' } : p)),
        memberships: seed.memberships!.map((m) => (m.profile === 'p_gone' ? { ...m, role: 'admin' as const } : m)),
        wallets: [{ owner: { user: 'u_admin' }, balance: 150 }],
        keys: seed.keys!.map((key) => (key.id === 'k_revoked' ? { ...key, scopes: ['profile:read', 'search:read'] } : key)),
      };
      writeFileSync(seedFile, JSON.stringify(changed));
      running = await start({ ...env, SEED_FILE: seedFile });
      expect((await get('/v1/communities/c_club/members/p_stays')).body.headline).toBe('Glaciologist and oceanographer');
      await expectSystemStateKept(left + 50);
      left = await balance();
      expect(await stop(running)).toBe(0);

      // No SEED_FILE: a file-seeded store just starts, with no demo data and the same state.
      running = await start(env);
      expect(running.output()).not.toMatch(/API key key_demo/);
      const demo = await running.clients.identity.getUser({ userId: 'u_demo' }, await operator()).catch((e: unknown) => readRemoteError(e));
      expect(demo).toMatchObject({ code: 'not_found' });
      await expectSystemStateKept(left);
      const ledger = await running.clients.billing.listLedgerEntries({ owner: { type: OwnerType.OWNER_TYPE_USER, id: 'u_admin' }, pageSize: 1000, pageToken: '' }, await operator());
      // The grants as ledger entries: 100, then 50 more when the file said 150; no balance reset.
      expect(ledger.entries.filter((e) => e.operation === 'seed').map((e) => e.amount).sort()).toEqual([100, 50].sort());
      expect(ledger.entries.filter((e) => e.operation === 'adjustment')).toEqual([]);
      expect(await stop(running)).toBe(0);
      running = undefined;
    } finally {
      if (running) await stop(running);
      await database?.drop();
    }
  }, 600_000);
});
