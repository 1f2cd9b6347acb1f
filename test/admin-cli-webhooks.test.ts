// The admin CLI's webhook reads as an operator runs them (through the CLI's own code in this
// process, and once as a child process): `webhooks endpoints` lists every owner's endpoints, or one
// owner's, newest first, with whose each is and its status — never a secret, in the table or in
// --json; `events list` lists the whole event log (every owner's events, no caller's fence) with
// whose each event is, filtered by --type, cut by --limit and continued with --after.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { adminJson, runAdminCli, runAdminInProcess } from './helpers/admin-cli.js';
import { bearer, request } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const k = { ada: liveKey(), bob: liveKey(), lab: liveKey() };
const scopes = ['webhooks:read', 'webhooks:write', 'member:write', 'profile:read'];
const seed: SeedInput = {
  users: [
    { id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' },
    { id: 'u_bob', email: 'bob@example.org', name: 'Bob', plan: 'paid' },
  ],
  organizations: [{ id: 'o_lab', name: 'Lab', members: [{ user: 'u_ada', role: 'owner' }] }],
  communities: [
    { id: 'c_ada', name: 'Ada’s', owner: { user: 'u_ada' }, api_writes: true },
    { id: 'c_bob', name: 'Bob’s', owner: { user: 'u_bob' }, api_writes: true },
  ],
  keys: [
    { id: 'k_ada', secret: k.ada, owner: { user: 'u_ada' }, scopes, requested_rate: 6000 },
    { id: 'k_bob', secret: k.bob, owner: { user: 'u_bob' }, scopes, requested_rate: 6000 },
    { id: 'k_lab', secret: k.lab, owner: { organization: 'o_lab' }, scopes, requested_rate: 6000 },
  ],
};

describe('admin CLI: webhooks endpoints, events list', { timeout: 300_000 }, () => {
  let sys: TestSystem;
  const cli = (args: string[]) => runAdminInProcess(sys.env, args);
  const json = (args: string[]) => adminJson(sys.env, args, { inProcess: true });
  const post = (secret: string, path: string, body: unknown) => request(sys.restUrl, 'POST', path, { headers: bearer(secret), body });
  const endpoints: Record<string, { id: string; secret: string }> = {};

  beforeAll(async () => {
    sys = await startTestSystem({ seed });
    for (const [name, secret, events] of [['ada', k.ada, ['member.added']], ['lab', k.lab, ['member.erased']], ['bob', k.bob, ['member.added', 'search.completed']]] as const) {
      const made = await post(secret, '/v1/webhook_endpoints', { url: `https://93.184.216.34/${name}`, events, description: `${name}'s hook` });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      endpoints[name] = { id: made.body.id, secret: made.body.secret };
    }
    for (const [secret, community, email] of [[k.ada, 'c_ada', 'one@example.org'], [k.bob, 'c_bob', 'two@example.org'], [k.ada, 'c_ada', 'three@example.org']] as const) {
      const added = await post(secret, `/v1/communities/${community}/members`, { members: [{ email, name: email }] });
      expect(added.status, JSON.stringify(added.body)).toBe(200);
    }
  });
  afterAll(async () => sys?.stop());

  it('webhooks endpoints prints every owner’s endpoints newest first with owner and status, never a secret', async () => {
    const table = await cli(['webhooks', 'endpoints']);
    expect([table.code, table.stderr]).toEqual([0, '']);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+OWNER\s+URL\s+EVENTS\s+STATUS\s+DISABLED_REASON\s+CREATED_AT\s+DESCRIPTION$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/).slice(0, 5))).toEqual([
      [endpoints.bob!.id, 'user:u_bob', 'https://93.184.216.34/bob', 'member.added,search.completed', 'enabled'],
      [endpoints.lab!.id, 'organization:o_lab', 'https://93.184.216.34/lab', 'member.erased', 'enabled'],
      [endpoints.ada!.id, 'user:u_ada', 'https://93.184.216.34/ada', 'member.added', 'enabled'],
    ]);
    const out = await json(['webhooks', 'endpoints']);
    expect(out).toEqual({
      endpoints: [
        expect.objectContaining({ owner: { type: 'user', id: 'u_bob' } }),
        expect.objectContaining({ owner: { type: 'organization', id: 'o_lab' } }),
        {
          owner: { type: 'user', id: 'u_ada' },
          endpoint: {
            id: endpoints.ada!.id, url: 'https://93.184.216.34/ada', events: ['member.added'], description: "ada's hook", status: 'enabled',
            created_at: expect.any(String), disabled_reason: null,
          },
        },
      ],
      next_page_token: '',
    });
    for (const { secret } of Object.values(endpoints)) {
      expect(table.stdout).not.toContain(secret);
      expect(JSON.stringify(out)).not.toContain(secret);
    }
    expect(JSON.stringify(out)).not.toContain('whsec_');
  });

  it('webhooks endpoints --owner keeps one owner’s, and shows why one is disabled', async () => {
    const disabled = await request(sys.restUrl, 'PATCH', `/v1/webhook_endpoints/${endpoints.ada!.id}`, { headers: bearer(k.ada), body: { status: 'disabled' } });
    expect(disabled.status).toBe(200);
    const ada = await json(['webhooks', 'endpoints', '--owner', 'user:u_ada']);
    expect(ada.endpoints).toEqual([expect.objectContaining({ endpoint: expect.objectContaining({ id: endpoints.ada!.id, status: 'disabled', disabled_reason: 'manual' }) })]);
    const lab = await json(['webhooks', 'endpoints', '--owner', 'organization:o_lab']);
    expect(lab.endpoints.map((e: any) => e.endpoint.id)).toEqual([endpoints.lab!.id]);
    expect((await json(['webhooks', 'endpoints', '--owner', 'user:u_nobody'])).endpoints).toEqual([]);
    const bad = await cli(['webhooks', 'endpoints', '--owner', 'u_ada']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('OWNER must be user:ID or organization:ID');
  });

  it('events list prints every owner’s events newest first with whose each is; --type, --limit and --after page them', async () => {
    const table = await cli(['events', 'list']);
    expect([table.code, table.stderr]).toEqual([0, '']);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+TYPE\s+CREATED_AT\s+COMMUNITY_ID\s+USER_ID\s+CREDENTIAL_ID\s+CREDENTIAL_OWNER$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/).slice(1, 2).concat(l.split(/\s+/).slice(3, 4)))).toEqual([
      ['member.added', 'c_ada'], ['member.added', 'c_bob'], ['member.added', 'c_ada'],
    ]);
    const all = await json(['events', 'list', '--type', 'member.added']);
    expect(all.events).toHaveLength(3);
    expect(all.events[0]).toEqual({
      event: expect.objectContaining({ id: expect.stringMatching(/^evt_/), type: 'member.added', created_at: expect.any(String), member: expect.objectContaining({ membership: expect.objectContaining({ community_id: 'c_ada' }) }) }),
      credential_id: '', user_id: '', community_id: 'c_ada', credential_owner: null,
    });
    expect(all.next_page_token).toBe('');
    expect((await json(['events', 'list', '--type', 'member.erased'])).events).toEqual([]);

    const first = await json(['events', 'list', '--limit', '2']);
    expect(first.events.map((e: any) => e.event.id)).toEqual(all.events.slice(0, 2).map((e: any) => e.event.id));
    expect(first.next_page_token).not.toBe('');
    const cut = await cli(['events', 'list', '--limit', '2']);
    expect(cut.stdout.trim().split('\n').at(-1)).toBe(`(more follow: --after ${first.next_page_token} for the next 2)`);
    const rest = await json(['events', 'list', '--limit', '2', '--after', first.next_page_token]);
    expect(rest.events.map((e: any) => e.event.id)).toEqual([all.events[2].event.id]);
    expect(rest.next_page_token).toBe('');

    const wrongType = await cli(['events', 'list', '--type', 'member.renamed']);
    expect(wrongType.code).toBe(1);
    expect(wrongType.stderr).toContain('must be one of search.completed');
    const otherList = await cli(['events', 'list', '--type', 'member.erased', '--after', first.next_page_token]);
    expect(otherList.code).toBe(1);
    expect(otherList.stderr).toContain('error: invalid_request: after: not a cursor of this list');
  });

  it('webhooks endpoints runs as a child process as an operator runs it, the same table', async () => {
    const run = await runAdminCli(sys.env, ['webhooks', 'endpoints', '--owner', 'user:u_bob']);
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(run.stdout.trim().split('\n').slice(1).map((l) => l.split(/\s+/)[0])).toEqual([endpoints.bob!.id]);
    expect(run.stdout).not.toContain(endpoints.bob!.secret);
  });
});
