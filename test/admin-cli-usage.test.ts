// The admin CLI explains itself and reads well: --help on every command of the tree (exit 0),
// tables for people by default, --json for scripts in the API's names and values, lists cut by
// --limit, a test key unless --live, and clean refusals. Run as an operator runs it, stdout and
// stderr piped (not a terminal): most command lines through the CLI's own code in this process
// (runAdminInProcess), and a child process against the running system for a few of each kind.
import type { Command, CommanderError } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminContext } from '../deploy/admin/context.js';
import { buildProgram } from '../deploy/admin/program.js';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { adminJson, runAdminCli, runAdminInProcess } from './helpers/admin-cli.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

/** What `npm run admin -- <path> --help` prints and its exit code, from the program in this process. */
async function helpOf(path: string[]): Promise<{ exitCode: number; out: string; err: string }> {
  const program = buildProgram(createAdminContext());
  let out = '';
  let err = '';
  const quiet = (c: Command): void => {
    c.exitOverride().configureOutput({ writeOut: (s) => void (out += s), writeErr: (s) => void (err += s) });
    c.commands.forEach(quiet);
  };
  quiet(program);
  try {
    await program.parseAsync([...path, '--help'], { from: 'user' });
    return { exitCode: -1, out, err };
  } catch (error) {
    return { exitCode: (error as CommanderError).exitCode, out, err };
  }
}

/** Every command path of the tree: groups and their subcommands (commander's own `help` aside). */
function commandPaths(command: Command, prefix: string[] = []): string[][] {
  return command.commands
    .filter((c) => c.name() !== 'help')
    .flatMap((c) => [[...prefix, c.name()], ...commandPaths(c, [...prefix, c.name()])]);
}

const users = Array.from({ length: 7 }, (_, i) => ({ id: `u_${i}`, email: `u${i}@example.org`, name: `User ${i}`, plan: 'free' as const }));
const seed: SeedInput = {
  users,
  communities: [
    { id: 'c_alpha', name: 'Alpha', owner: { user: 'u_0' } },
    { id: 'c_beta', name: 'Beta', owner: { user: 'u_1' }, archived: true },
  ],
  profiles: [{ id: 'p_0', user: 'u_0', name: 'User 0' }, { id: 'p_1', name: 'Unclaimed' }],
  memberships: [{ community: 'c_alpha', profile: 'p_0', role: 'owner' }, { community: 'c_alpha', profile: 'p_1', role: 'member' }],
  wallets: [{ owner: { user: 'u_0' }, balance: 10 }],
};

describe('admin CLI usage', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem({ seed });
  });
  afterAll(async () => sys?.stop());
  const cli = (args: string[]) => runAdminInProcess(sys.env, args);
  const json = (args: string[]) => adminJson(sys.env, args, { inProcess: true });

  it('--help on the program and on every command and subcommand prints its usage and exits 0', async () => {
    // Every command of the tree, through the program the CLI runs, in this process (a child process
    // each would take minutes on a busy machine); the same as a child process for a few below.
    const paths = [[], ...commandPaths(buildProgram(createAdminContext()))];
    expect(paths).toEqual(expect.arrayContaining([['keys', 'mint'], ['users', 'list'], ['communities', 'list'], ['search', 'reindex']]));
    for (const path of paths) {
      const { exitCode, out, err } = await helpOf(path);
      expect(exitCode, path.join(' ')).toBe(0);
      expect(err, path.join(' ')).toBe('');
      expect(out, path.join(' ')).toContain(`Usage: npm run admin -- ${path.join(' ')}`.trim());
      // Every command that prints data offers --json.
      if (path.length === 2 || ['seed', 'health'].includes(path[0]!)) expect(out, path.join(' ')).toContain('--json');
    }
    const [top, leaf] = await Promise.all([runAdminCli({}, ['--help']), runAdminCli({}, ['keys', 'mint', '--help'])]);
    for (const r of [top, leaf]) {
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
    }
    expect(top.stdout).toMatch(/^Usage: npm run admin -- \[options\] \[command\]/);
    for (const group of ['seed', 'keys', 'tokens', 'users', 'communities', 'writes', 'consent', 'wallets', 'billing', 'search', 'health']) {
      expect(top.stdout).toMatch(new RegExp(`\\n  ${group}\\b`));
    }
    expect(leaf.stdout).toContain('--live');
  }, 300_000);

  it('users list: a table by default, JSON with --json, cut by --limit with the token of what follows', async () => {
    const human = await runAdminCli(sys.env, ['users', 'list']);
    expect(human.code, human.stderr).toBe(0);
    const [header, ...rows] = human.stdout.trim().split('\n');
    expect(header!.split(/\s{2,}/)).toEqual(['ID', 'NAME', 'EMAIL', 'PLAN', 'JIT_CONSENT', 'CREATED_AT']);
    expect(rows).toHaveLength(7);
    expect(rows[0]).toMatch(/^u_0\s+User 0\s+u0@example\.org\s+free\s+false\s+\d{4}-/);

    const all = await json(['users', 'list']);
    expect(all.users.map((u: { id: string }) => u.id)).toEqual(users.map((u) => u.id));
    expect(all.users[0]).toEqual({ id: 'u_0', email: 'u0@example.org', name: 'User 0', plan: 'free', jit_consent: false, created_at: expect.any(String) });
    expect(all.next_page_token).toBe('');
    const three = await json(['users', 'list', '--limit', '3']);
    expect(three.users.map((u: { id: string }) => u.id)).toEqual(['u_0', 'u_1', 'u_2']);
    expect(three.next_page_token).not.toBe('');
    const cut = await cli(['users', 'list', '--limit', '2']);
    expect(cut.stdout.trim().split('\n')).toEqual([expect.stringMatching(/^ID\s/), expect.stringMatching(/^u_0\s/), expect.stringMatching(/^u_1\s/), '(more follow: --after u_1 for the next 2)']);
    const bad = await cli(['users', 'list', '--limit', '0']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("error: option '--limit <n>' argument '0' is invalid");
  }, 300_000);

  it('users list pages on with --after and filters by name or email with --query', async () => {
    // Page by page from a list's next_page_token: every user once, in id order.
    const seen: string[] = [];
    let after = '';
    do {
      const page = await json(['users', 'list', '--limit', '3', ...(after ? ['--after', after] : [])]);
      seen.push(...page.users.map((u: { id: string }) => u.id));
      after = page.next_page_token;
    } while (after);
    expect(seen).toEqual(users.map((u) => u.id));
    expect((await json(['users', 'list', '--after', 'u_4'])).users.map((u: { id: string }) => u.id)).toEqual(['u_5', 'u_6']);

    // A substring of the name or of the email, ignoring case; LIKE's wildcards are plain text.
    const ids = async (args: string[]) => (await json(['users', 'list', ...args])).users.map((u: { id: string }) => u.id);
    expect(await ids(['--query', 'user 3'])).toEqual(['u_3']);
    expect(await ids(['--query', 'U5@EXAMPLE'])).toEqual(['u_5']);
    expect(await ids(['--query', 'example.org', '--after', 'u_2', '--limit', '2'])).toEqual(['u_3', 'u_4']);
    expect(await ids(['--query', '%'])).toEqual([]);
    expect(await ids(['--query', 'nobody'])).toEqual([]);
  }, 300_000);

  it('communities list shows every community with its member count, archived ones too', async () => {
    const out = await json(['communities', 'list']);
    expect(out.communities).toEqual([
      { community: { id: 'c_alpha', name: 'Alpha', billing_owner: { type: 'user', id: 'u_0' }, archived: false, api_writes: false, created_at: expect.any(String) }, member_count: 2 },
      { community: expect.objectContaining({ id: 'c_beta', archived: true }), member_count: 0 },
    ]);
    expect((await json(['communities', 'list', '--limit', '1'])).communities).toHaveLength(1);
    const human = await cli(['communities', 'list']);
    expect(human.stdout).toMatch(/^ID\s+NAME\s+BILLING_OWNER\s+MEMBER_COUNT\s+API_WRITES\s+ARCHIVED\s+CREATED_AT\n/);
    expect(human.stdout).toMatch(/\nc_alpha\s+Alpha\s+user:u_0\s+2\s+false\s+false\s+\d{4}-/);
  }, 300_000);

  it('keys mint makes a test key unless --live, named with --name; keys list reads as a table', async () => {
    const test = await json(['keys', 'mint', '--user', 'u_0', '--scopes', 'profile:read']);
    expect(test.key.environment).toBe('test');
    expect(test.secret).toMatch(/^svc_test_/);
    const live = await json(['keys', 'mint', '--user', 'u_0', '--scopes', 'profile:read', '--live', '--name', 'CI runner']);
    expect(live.key.environment).toBe('live');
    expect(live.key.name).toBe('CI runner');
    expect(live.secret).toMatch(/^svc_live_/);
    const contradiction = await cli(['keys', 'mint', '--user', 'u_0', '--live', '--env', 'test']);
    expect(contradiction.code).not.toBe(0);
    expect(contradiction.stderr).toContain('--live and --env test contradict each other');

    const human = await cli(['keys', 'list', '--user', 'u_0']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^ID\s+PREFIX\s+ENVIRONMENT\s+OWNER\s+SCOPES\s+RATE_TIER\s+CREATED_AT/);
    expect(human.stdout).toContain(`${test.key.id}  `);
    expect(human.stdout).toMatch(new RegExp(`${live.key.id}\\s+${live.key.prefix}\\s+live\\s+user:u_0\\s+profile:read\\s+`));
    // The name comes last: the key's own words, after the columns a script reads by position.
    expect(human.stdout).toMatch(/REVOKED_AT\s+NAME$/m);
    expect(human.stdout).toMatch(new RegExp(`^${live.key.id}\\s.*\\sCI runner$`, 'm'));
    expect(human.stdout).not.toContain(test.secret);
  }, 300_000);

  it('wallets show --limit cuts the ledger; search reindex --json on a pipe prints only its JSON', async () => {
    for (const ref of ['a', 'b', 'c']) await json(['wallets', 'credit', 'user:u_0', '--amount', '1', '--reference', ref]);
    const shown = await json(['wallets', 'show', 'user:u_0', '--limit', '2']);
    expect(shown.wallet.balance).toBe(13);
    expect(shown.recent.entries).toHaveLength(2);
    expect(shown.recent.next_page_token).not.toBe('');

    // Not a terminal: no bar, no progress lines (--progress-every not given); stdout is one JSON document.
    const reindex = await runAdminCli(sys.env, ['search', 'reindex', '--json'], 300_000);
    expect(reindex.code, reindex.stderr).toBe(0);
    expect(reindex.stderr).toBe('');
    expect(JSON.parse(reindex.stdout)).toMatchObject({ membership_documents: 2, batches: 1, removed: 0 });
  }, 600_000);

  it('an unknown command, subcommand or option is one clear line on stderr, exit 1, no stack trace', async () => {
    // A child process for one (no stack trace reaches a real stderr); the others in process, in turn.
    const command = await runAdminCli(sys.env, ['frobnicate']);
    const subcommand = await cli(['users', 'frob']);
    const option = await cli(['users', 'list', '--frob']);
    const extra = await cli(['keys', 'revoke', 'k_1', 'k_2']);
    for (const r of [command, subcommand, option, extra]) {
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^error: /);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    expect(command.stderr).toContain("unknown command 'frobnicate'");
    expect(subcommand.stderr).toContain("unknown command 'frob'");
    expect(option.stderr).toContain("unknown option '--frob'");
    expect(extra.stderr).toContain('too many arguments');
  }, 300_000);
});
