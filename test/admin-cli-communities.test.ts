// The admin CLI's community commands as an operator runs them against a running system (through the
// CLI's own code in this process, and as a child process for the first create and its refusal):
// create and archive communities, API-write attestations, a user's just-in-time consent, and the
// consent queue — each checked through the REST API as well.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { callAs } from '../services/kit/grpc/client.js';
import { adminJson, runAdminCli, runAdminInProcess } from './helpers/admin-cli.js';
import { bearer, request } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

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

// A CLI run as a child process starts a Node process (tsx): generous time on a busy machine.
describe('admin CLI: communities, writes, users set-jit, consent', { timeout: 300_000 }, () => {
  let sys: TestSystem;

  // USER names the operator the services record (`cli:ops`).
  const runCli = (args: string[]) => runAdminInProcess({ ...sys.env, USER: 'ops' }, args);
  const json = (args: string[]) => adminJson({ ...sys.env, USER: 'ops' }, args, { inProcess: true });

  const roster = (community: string, secret = readerKey) =>
    request(sys.restUrl, 'GET', `/v1/communities/${community}/members`, { headers: bearer(secret) });

  beforeAll(async () => {
    sys = await startTestSystem({ seed });
  });
  afterAll(async () => sys?.stop());

  it('communities create makes a community for its owner; an existing id is refused and left as it is', async () => {
    const out = await adminJson({ ...sys.env, USER: 'ops' }, ['communities', 'create', 'c_cli', '--name', 'CLI made', '--owner', 'organization:o_lab']);
    expect(out.community).toEqual({
      id: 'c_cli', name: 'CLI made', billing_owner: { type: 'organization', id: 'o_lab' }, archived: false, api_writes: false, created_at: expect.any(String),
    });
    // The owning organization's admin reads it at once (an empty roster).
    const res = await roster('c_cli');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ members: [], next_cursor: null });

    const again = await runAdminCli({ ...sys.env, USER: 'ops' }, ['communities', 'create', 'c_cli', '--name', 'Other name', '--owner', 'user:u_owner']);
    expect(again.code).not.toBe(0);
    expect(again.stdout).toBe('');
    expect(again.stderr).toContain('community c_cli already exists');
    const operator = await callAs(sys.signer, { kind: 'operator', actor: 'test' }, undefined, 5000);
    const { community } = await sys.clients.communities.getCommunity({ communityId: 'c_cli' }, operator);
    expect(community).toMatchObject({ name: 'CLI made', billingOwner: { id: 'o_lab' } });
  });

  it('communities create refuses a missing name or a malformed owner', async () => {
    const noName = await runCli(['communities', 'create', 'c_x', '--owner', 'user:u_owner']);
    const badOwner = await runCli(['communities', 'create', 'c_x', '--name', 'X', '--owner', 'team:t1']);
    for (const r of [noName, badOwner]) {
      expect(r.code).not.toBe(0);
      expect(r.stdout).toBe('');
    }
    expect(noName.stderr).toContain("error: required option '--name <name>' not specified");
    expect(badOwner.stderr).toContain('OWNER must be user:ID or organization:ID');
  });

  it('communities archive takes the community out of reach (403); --unarchive restores it', async () => {
    const archived = await json(['communities', 'archive', 'c_cli']);
    expect(archived.community).toMatchObject({ id: 'c_cli', archived: true });
    expect((await roster('c_cli')).status).toBe(403);
    const restored = await json(['communities', 'archive', 'c_cli', '--unarchive']);
    expect(restored.community.archived).toBe(false);
    expect((await roster('c_cli')).status).toBe(200);
    const unknown = await runCli(['communities', 'archive', 'c_nowhere']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('not_found');
  });

  it('writes enable|disable records a new attestation version only when the setting changes', async () => {
    const on = await json(['writes', 'enable', 'c_cli']);
    expect(on).toMatchObject({ community: { id: 'c_cli', api_writes: true }, attestation_version: 1 });
    // The same setting again records nothing new.
    expect((await json(['writes', 'enable', 'c_cli'])).attestation_version).toBe(1);
    const off = await json(['writes', 'disable', 'c_cli']);
    expect(off.attestation_version).toBe(2);
    expect(off.community.api_writes).toBe(false);
  });

  it('users set-jit changes just-in-time consent and keeps the rest of the user', async () => {
    const on = await json(['users', 'set-jit', 'u_owner', 'on']);
    expect(on.user).toMatchObject({ id: 'u_owner', email: 'owner@example.org', name: 'Olive Owner', plan: 'paid', jit_consent: true });
    const bad = await runCli(['users', 'set-jit', 'u_owner', 'maybe']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("error: command-argument value 'maybe' is invalid for argument 'setting'. must be one of on, off");
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
    expect(pending).toMatchObject({ community_id: 'c_owned', operation: 'members.add', status: 'pending', resolved_at: null });

    const approved = await json(['consent', 'approve', pending.id]);
    expect(approved.request).toMatchObject({ id: pending.id, status: 'approved', resolved_by: 'cli:ops' });
    const retried = await add();
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);

    const erase = await request(sys.restUrl, 'DELETE', `/v1/communities/c_owned/members/${retried.body.results[0].profile_id}`, {
      headers: bearer(ownerKey),
    });
    expect(erase.body.error?.code).toBe('owner_consent_required');
    const removal = (await json(['consent', 'list', 'c_owned'])).requests.find((r: any) => r.operation === 'members.remove');
    const denied = await json(['consent', 'deny', removal.id]);
    expect(denied.request).toMatchObject({ id: removal.id, status: 'denied' });
    const stillRefused = await request(sys.restUrl, 'DELETE', `/v1/communities/c_owned/members/${retried.body.results[0].profile_id}`, {
      headers: bearer(ownerKey),
    });
    expect(stillRefused.status).toBe(422);
    const unknown = await runCli(['consent', 'approve', 'consent_nope']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('not_found');
  });
});
