// The admin CLI as an operator runs it: a child process (`npm run admin -- …`) against a running
// system, JSON on stdout with --json (the API's names and values), errors on stderr with a non-zero exit.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { callAs } from '../services/kit/grpc/client.js';
import { readRemoteError } from '../services/kit/grpc/errors.js';
import { adminJson, runAdminCli } from './helpers/admin-cli.js';
import { bearer, request } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const seededSecret = liveKey();
const seed: SeedInput = {
  users: [{ id: 'u_x', email: 'x@example.org', name: 'Xena', plan: 'free' }],
  keys: [{ id: 'k_x_seeded', secret: seededSecret, owner: { user: 'u_x' }, scopes: ['search:read'] }],
};

function seedFile(doc: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), 'en-cli-seed-')), 'seed.json');
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

// Each CLI run starts a Node process (tsx): generous time on a busy machine.
describe('admin CLI against a running system', { timeout: 300_000 }, () => {
  let sys: TestSystem;

  const runCli = (args: string[]) => runAdminCli(sys.env, args);
  const json = (args: string[]) => adminJson(sys.env, args);

  const me = (secret: string) => request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(secret) });

  beforeAll(async () => {
    sys = await startTestSystem({ seed });
  });
  afterAll(async () => sys?.stop());

  let minted: { id: string; secret: string; prefix: string };

  it('keys mint prints the new key with its secret once; the secret works', async () => {
    const out = await json(['keys', 'mint', '--user', 'u_x', '--scopes', 'search:read,profile:read']);
    expect(out.secret).toMatch(/^svc_test_[0-9A-Za-z]{49}$/);
    expect(out.key).toMatchObject({
      prefix: out.secret.slice(0, 15),
      environment: 'test',
      owner: { type: 'user', id: 'u_x' },
      scopes: ['search:read', 'profile:read'],
      allowlist: null,
      rate_tier: 'restricted',
      minted_by_user_id: 'u_x',
      revoked_at: null,
    });
    minted = { id: out.key.id, secret: out.secret, prefix: out.key.prefix };

    const res = await me(minted.secret);
    expect(res.status).toBe(200);
    expect(res.body.key).toMatchObject({ id: minted.id, environment: 'test', rate_tier: 'restricted' });
    expect(res.body.scopes).toEqual(['search:read', 'profile:read']);
  });

  it('keys list shows the prefixes and never a secret', async () => {
    const result = await runCli(['keys', 'list', '--user', 'u_x', '--json']);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain(minted.secret);
    expect(result.stdout).not.toMatch(/svc_(live|test)_[0-9A-Za-z]{49}/);
    const out = JSON.parse(result.stdout);
    expect(out.keys.map((k: any) => k.id).sort()).toEqual([minted.id, 'k_x_seeded'].sort());
    expect(out.keys.find((k: any) => k.id === minted.id).prefix).toBe(minted.prefix);
    expect(out.keys.find((k: any) => k.id === 'k_x_seeded').prefix).toBe(seededSecret.slice(0, 15));
    expect(result.stdout).not.toContain(seededSecret);
    for (const k of out.keys) expect(Object.keys(k)).not.toContain('secret');
  });

  it('users set-plan changes the plan (an existing key keeps its tier)', async () => {
    const out = await json(['users', 'set-plan', 'u_x', 'paid']);
    expect(out.user).toEqual({ id: 'u_x', email: 'x@example.org', name: 'Xena', plan: 'paid', jit_consent: false, created_at: expect.any(String) });
    expect((await me(minted.secret)).body.key.rate_tier).toBe('restricted');
  });

  it('wallets credit is idempotent by reference; wallets show lists the entries', async () => {
    const before = (await me(minted.secret)).body.credit_balance;
    const first = await json(['wallets', 'credit', 'user:u_x', '--amount', '25', '--reference', 'r1']);
    expect(first).toMatchObject({ entry: { amount: 25, reference: 'credit:r1', operation: 'credit' }, wallet: { balance: before + 25 }, created: true });
    const second = await json(['wallets', 'credit', 'user:u_x', '--amount', '25', '--reference', 'r1']);
    expect(second.entry.id).toBe(first.entry.id);
    expect(second.created).toBe(false);
    expect(second.wallet.balance).toBe(before + 25);
    expect((await me(minted.secret)).body.credit_balance).toBe(before + 25);

    const shown = await json(['wallets', 'show', 'user:u_x']);
    expect(shown.wallet).toMatchObject({ owner: { type: 'user', id: 'u_x' }, balance: before + 25 });
    expect(shown.recent.entries).toEqual([
      expect.objectContaining({ id: first.entry.id, amount: 25, reference: 'credit:r1', balance_after: before + 25 }),
    ]);
  });

  it('keys revoke refuses the key on its next request', async () => {
    expect((await me(minted.secret)).status).toBe(200);
    const out = await json(['keys', 'revoke', minted.id]);
    expect(out.key).toMatchObject({ id: minted.id, revoked_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect(JSON.stringify(out)).not.toContain(minted.secret);
    expect((await me(minted.secret)).status).toBe(401);
  });

  it('seed FILE applies a seed file, printing the secret of a key it minted', async () => {
    const secret = liveKey();
    const file = seedFile({
      users: [{ id: 'u_new', name: 'Newcomer', plan: 'paid' }],
      wallets: [{ owner: { user: 'u_new' }, balance: 40 }],
      keys: [
        { id: 'k_new', secret, owner: { user: 'u_new' }, scopes: ['search:read'] },
        { id: 'k_new_minted', owner: { user: 'u_new' }, scopes: ['profile:read'] },
      ],
    });
    // Not a terminal: no progress bar, only the JSON (adminJson checks stderr is empty).
    const out = await json(['seed', file]);
    expect(Object.keys(out.keys)).toEqual(['k_new_minted']);
    expect(out.keys.k_new_minted).toMatch(/^svc_live_[0-9A-Za-z]{49}$/);
    expect(JSON.stringify(out)).not.toContain(secret);

    const res = await me(secret);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ key: { id: 'k_new', rate_tier: 'standard' }, owner: { type: 'user', id: 'u_new', name: 'Newcomer' }, credit_balance: 40 });
    const printed = await me(out.keys.k_new_minted);
    expect(printed.status).toBe(200);
    expect(printed.body.key.id).toBe('k_new_minted');
  });

  it('health reports every service serving', async () => {
    const out = await json(['health']);
    expect(Object.keys(out).sort()).toEqual(['billing', 'communities', 'enrichment', 'identity', 'search']);
    for (const [service, report] of Object.entries(out)) {
      expect(report, service).toEqual({ address: sys.grpcAddresses[service as keyof typeof sys.grpcAddresses], serving: true });
    }
  });

  it('refuses bad usage with a message on stderr and a non-zero exit', async () => {
    const badSeed = seedFile({ users: [{ id: 'u_bad', name: '' }], extra: 1 });
    const [unknown, noUser, badScope, refusedSeed] = await Promise.all([
      runCli(['frobnicate', 'now']),
      runCli(['keys', 'mint', '--scopes', 'search:read']),
      runCli(['keys', 'mint', '--user', 'u_x', '--scopes', 'nope:scope']),
      runCli(['seed', badSeed]),
    ]);
    for (const r of [unknown, noUser, badScope, refusedSeed]) {
      expect(r.code).not.toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    }
    expect(unknown.stderr).toContain("error: unknown command 'frobnicate'");
    expect(unknown.stderr).toContain('--help');
    expect(noUser.stderr).toContain("error: required option '--user <id>' not specified");
    expect(badScope.stderr).toMatch(/error: invalid_request: unknown scope\(s\): nope:scope/);
    // every problem of the file is listed, and nothing is written
    expect(refusedSeed.stderr).toContain('invalid seed file');
    expect(refusedSeed.stderr).toContain('users.0.name');
    expect(refusedSeed.stderr).toContain('extra');
    const operator = await callAs(sys.signer, { kind: 'operator', actor: 'test' }, undefined, 10_000);
    const ghost = await sys.clients.identity.getUser({ userId: 'u_bad' }, operator).catch((e: unknown) => readRemoteError(e));
    expect(ghost).toMatchObject({ code: 'not_found' });
    // the refused scope minted nothing
    const listed = await sys.clients.identity.listKeys({ userId: 'u_x', pageSize: 200 }, operator);
    expect(listed.keys.map((k) => k.id).sort()).toEqual([minted.id, 'k_x_seeded'].sort());
  });
});
