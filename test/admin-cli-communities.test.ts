// The admin CLI's community commands as an operator runs them (a child process against a running
// system): create and archive communities, API-write attestations, a user's just-in-time consent,
// and the consent queue — each checked through the REST API as well.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { callAs } from '../services/kit/grpc/client.js';
import { bearer, request } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const repo = fileURLToPath(new URL('..', import.meta.url));
const tsxCli = join(repo, 'node_modules/tsx/dist/cli.mjs');
const adminCli = join(repo, 'deploy/admin/cli.ts');

const readerKey = liveKey();
const ownerKey = liveKey();
const seed: SeedInput = {
  users: [
    { id: 'u_reader', email: 'reader@example.org', name: 'Reader', plan: 'paid' },
    { id: 'u_owner', email: 'owner@example.org', name: 'Olive Owner', plan: 'paid' },
  ],
  organizations: [{ id: 'o_lab', name: 'Lab', members: [{ user: 'u_reader', role: 'admin' }] }],
  communities: [{ id: 'c_owned', name: 'Owned', owner: { user: 'u_owner' } }],
  profiles: [{ id: 'p_reader', user: 'u_reader', name: 'Reader' }],
  keys: [
    { id: 'k_reader', secret: readerKey, owner: { user: 'u_reader' }, scopes: ['profile:read'], requested_rate: 600 },
    { id: 'k_owner', secret: ownerKey, owner: { user: 'u_owner' }, scopes: ['profile:read', 'member:write'], requested_rate: 600 },
  ],
};

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

describe('admin CLI: communities, writes, users set-jit, consent', () => {
  let sys: TestSystem;

  function runCli(args: string[]): Promise<CliResult> {
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        [tsxCli, adminCli, ...args],
        { cwd: repo, env: { ...process.env, ...sys.env, LOG_LEVEL: 'silent', USER: 'ops' }, timeout: 30_000 },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
          resolve({ code, stdout, stderr });
        },
      );
    });
  }

  /** Runs a command that must succeed and returns its JSON. */
  async function json(args: string[]): Promise<any> {
    const result = await runCli(args);
    expect(result.stderr, `${args.join(' ')}: stderr`).toBe('');
    expect(result.code, `${args.join(' ')}: exit code`).toBe(0);
    return JSON.parse(result.stdout);
  }

  const roster = (community: string, secret = readerKey) =>
    request(sys.restUrl, 'GET', `/v1/communities/${community}/members`, { headers: bearer(secret) });

  beforeAll(async () => {
    sys = await startTestSystem({ seed });
  });
  afterAll(async () => sys?.stop());

  it('communities create makes a community for its owner; an existing id is refused and left as it is', async () => {
    const out = await json(['communities', 'create', 'c_cli', '--name', 'CLI made', '--owner', 'organization:o_lab']);
    expect(out.community).toMatchObject({ id: 'c_cli', name: 'CLI made', billingOwner: { type: 'OWNER_TYPE_ORGANIZATION', id: 'o_lab' } });
    expect(out.community.archived ?? false).toBe(false); // toJSON leaves a false bool out
    // The owning organization's admin reads it at once (an empty roster).
    const res = await roster('c_cli');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ members: [], next_cursor: null });

    const again = await runCli(['communities', 'create', 'c_cli', '--name', 'Other name', '--owner', 'user:u_owner']);
    expect(again.code).not.toBe(0);
    expect(again.stdout).toBe('');
    expect(again.stderr).toContain('community c_cli already exists');
    const operator = await callAs(sys.signer, { kind: 'operator', actor: 'test' }, undefined, 5000);
    const { community } = await sys.clients.communities.getCommunity({ communityId: 'c_cli' }, operator);
    expect(community).toMatchObject({ name: 'CLI made', billingOwner: { id: 'o_lab' } });
  });

  it('communities create refuses a missing name or a malformed owner', async () => {
    const [noName, badOwner] = await Promise.all([
      runCli(['communities', 'create', 'c_x', '--owner', 'user:u_owner']),
      runCli(['communities', 'create', 'c_x', '--name', 'X', '--owner', 'team:t1']),
    ]);
    for (const r of [noName, badOwner]) {
      expect(r.code).not.toBe(0);
      expect(r.stdout).toBe('');
    }
    expect(noName.stderr).toContain('missing --name');
    expect(badOwner.stderr).toContain('OWNER must be user:ID or organization:ID');
  });

  it('communities archive takes the community out of reach (403); --unarchive restores it', async () => {
    const archived = await json(['communities', 'archive', 'c_cli']);
    expect(archived.community).toMatchObject({ id: 'c_cli', archived: true });
    expect((await roster('c_cli')).status).toBe(403);
    const restored = await json(['communities', 'archive', 'c_cli', '--unarchive']);
    expect(restored.community.archived ?? false).toBe(false);
    expect((await roster('c_cli')).status).toBe(200);
    const unknown = await runCli(['communities', 'archive', 'c_nowhere']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('not_found');
  });

  it('writes enable|disable records a new attestation version only when the setting changes', async () => {
    const on = await json(['writes', 'enable', 'c_cli']);
    expect(on).toMatchObject({ community: { id: 'c_cli', apiWrites: true }, attestationVersion: 1 });
    // The same setting again records nothing new.
    expect((await json(['writes', 'enable', 'c_cli'])).attestationVersion).toBe(1);
    const off = await json(['writes', 'disable', 'c_cli']);
    expect(off.attestationVersion).toBe(2);
    expect(off.community.apiWrites ?? false).toBe(false);
  });

  it('users set-jit changes just-in-time consent and keeps the rest of the user', async () => {
    const on = await json(['users', 'set-jit', 'u_owner', 'on']);
    expect(on.user).toMatchObject({ id: 'u_owner', email: 'owner@example.org', name: 'Olive Owner', plan: 'PLAN_PAID', jitConsent: true });
    const bad = await runCli(['users', 'set-jit', 'u_owner', 'maybe']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('set-jit takes on or off');
    const missing = await runCli(['users', 'set-jit', 'u_nobody', 'on']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('not_found');
  });

  it('consent list shows a queued request; approve lets the write through, deny does not', async () => {
    // u_owner has just-in-time consent on (previous test) and c_owned's writes are not attested.
    const add = () =>
      request(sys.restUrl, 'POST', '/v1/communities/c_owned/members', { headers: bearer(ownerKey), body: { members: [{ name: 'Newcomer' }] } });
    const refused = await add();
    expect(refused.status, JSON.stringify(refused.body)).toBe(422);
    expect(refused.body.error.code).toBe('owner_consent_required');

    const listed = await json(['consent', 'list', 'c_owned']);
    expect(listed.requests).toHaveLength(1);
    const pending = listed.requests[0];
    expect(pending).toMatchObject({ communityId: 'c_owned', operation: 'members.add', status: 'CONSENT_STATUS_PENDING' });

    const approved = await json(['consent', 'approve', pending.id]);
    expect(approved.request).toMatchObject({ id: pending.id, status: 'CONSENT_STATUS_APPROVED', resolvedBy: 'cli:ops' });
    const retried = await add();
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);

    const erase = await request(sys.restUrl, 'DELETE', `/v1/communities/c_owned/members/${retried.body.results[0].profile_id}`, {
      headers: bearer(ownerKey),
    });
    expect(erase.body.error?.code).toBe('owner_consent_required');
    const removal = (await json(['consent', 'list', 'c_owned'])).requests.find((r: any) => r.operation === 'members.remove');
    const denied = await json(['consent', 'deny', removal.id]);
    expect(denied.request).toMatchObject({ id: removal.id, status: 'CONSENT_STATUS_DENIED' });
    const stillRefused = await request(sys.restUrl, 'DELETE', `/v1/communities/c_owned/members/${retried.body.results[0].profile_id}`, {
      headers: bearer(ownerKey),
    });
    expect(stillRefused.status).toBe(422);
    const unknown = await runCli(['consent', 'approve', 'consent_nope']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('not_found');
  });

  it('lists the new commands in the usage', async () => {
    const out = await json(['help']);
    const usage = (out.usage as string[]).join('\n');
    for (const command of ['communities create ID', 'communities archive ID', 'writes enable|disable COMMUNITY', 'users set-jit USER on|off', 'consent list COMMUNITY', 'consent approve|deny REQUEST_ID']) {
      expect(usage).toContain(command);
    }
  });
});
