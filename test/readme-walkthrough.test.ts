// README.md's "Walk through the demo": the curl commands a newcomer copies after `npm start`.
// Each must call an endpoint of the table (method and path), send a body and query the route
// accepts, and name communities and people the demo data has (a profile in the community named);
// together they must visit every endpoint, naming the ones they miss. `…` marks a value the reader
// takes from an earlier answer (a search id, a run id, a cursor): it is not checked.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { demoSeed } from '../deploy/admin/demo-data.js';
import { ENDPOINTS } from '../gateway/core/contract/endpoints.js';
import type { Endpoint } from '../gateway/core/contract/schemas.js';
import { repoRoot } from '../services/kit/paths.js';

interface Command {
  text: string;
  method: string;
  path: string;
  query: Record<string, string>;
  headers: string[];
  body?: string;
}

/** Splits a shell command into words: quotes group, `#` outside quotes starts a comment. */
function words(line: string): string[] {
  const out: string[] = [];
  let word: string | null = null;
  let quote: string | null = null;
  for (const ch of line) {
    if (quote) {
      if (ch === quote) quote = null;
      else word += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      word ??= '';
    } else if (/\s/.test(ch)) {
      if (word !== null) out.push(word);
      word = null;
    } else if (ch === '#' && word === null) {
      break;
    } else {
      word = (word ?? '') + ch;
    }
  }
  if (word !== null) out.push(word);
  return out;
}

function parseCurl(text: string): Command {
  const argv = words(text);
  let method: string | undefined;
  let url: string | undefined;
  let body: string | undefined;
  const headers: string[] = [];
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-X') method = argv[++i];
    else if (arg === '-H') headers.push(argv[++i]!);
    else if (arg === '-d') body = argv[++i];
    else if (arg.startsWith('$API')) url = arg.slice('$API'.length);
  }
  if (!url) throw new Error(`no $API URL in: ${text}`);
  const [path, search = ''] = url.split('?') as [string, string?];
  return { text, method: method ?? (body !== undefined ? 'POST' : 'GET'), path, query: Object.fromEntries(new URLSearchParams(search)), headers, ...(body !== undefined && { body }) };
}

/** The curl commands of the section, continuation lines joined. */
function walkthrough(readme: string): { section: string; commands: Command[] } {
  const start = readme.indexOf('## Walk through the demo');
  if (start < 0) throw new Error('README.md has no "## Walk through the demo" section');
  const end = readme.indexOf('\n## ', start + 3);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.replace(/\\\n\s*/g, ' '));
  const commands = blocks.flatMap((b) => b.split('\n')).filter((l) => l.startsWith('curl ')).map(parseCurl);
  return { section, commands };
}

/** The path parameters when `path` fits the endpoint's template, else undefined. */
function matchPath(endpoint: Endpoint, path: string): Record<string, string> | undefined {
  const want = endpoint.path.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, segment] of want.entries()) {
    const param = /^\{(\w+)\}$/.exec(segment)?.[1];
    if (param) params[param] = decodeURIComponent(got[i]!);
    else if (segment !== got[i]) return undefined;
  }
  return params;
}

const taken = (value: string) => value.includes('…');
const known = (record: Record<string, string>) => Object.fromEntries(Object.entries(record).filter(([, v]) => !taken(v)));

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
const { section, commands } = walkthrough(readme);
const seed = demoSeed();
const communities = new Set((seed.communities ?? []).map((c) => c.id));
const members = new Set((seed.memberships ?? []).map((m) => `${m.community}/${m.profile}`));

describe('README walk through the demo', () => {
  it('has curl commands', () => {
    expect(commands.length).toBeGreaterThanOrEqual(ENDPOINTS.length);
  });

  it('visits every endpoint of the table', () => {
    const missing = ENDPOINTS.filter((e) => !commands.some((c) => c.method === e.method && matchPath(e, c.path))).map((e) => `${e.method} ${e.path}`);
    expect(missing, `endpoints the walkthrough does not call: ${missing.join(', ')}`).toEqual([]);
  });

  it('names every demo community', () => {
    for (const id of communities) expect(section, id).toContain(`\`${id}\``);
  });

  for (const command of commands) {
    it(`${command.method} ${command.path}: an endpoint of the table, called as its route accepts, on demo data`, () => {
      const endpoint = ENDPOINTS.find((e) => e.method === command.method && matchPath(e, command.path));
      expect(endpoint, `no endpoint ${command.method} ${command.path}`).toBeDefined();
      const params = matchPath(endpoint!, command.path)!;
      expect(command.headers.some((h) => /^Authorization: Bearer \$KEY$/.test(h)), 'sends the key').toBe(true);
      if (endpoint!.params) expect(endpoint!.params.partial().safeParse(known(params)).error?.issues ?? []).toEqual([]);
      if (Object.keys(command.query).length > 0) {
        expect(endpoint!.query, 'the endpoint takes a query').toBeDefined();
        expect(endpoint!.query!.safeParse(known(command.query)).error?.issues ?? []).toEqual([]);
      }
      const body = command.body === undefined ? undefined : (JSON.parse(command.body) as Record<string, unknown>);
      if (body) {
        expect(command.headers, 'says the body is JSON').toContain('Content-Type: application/json');
        expect(endpoint!.body?.schema.safeParse(body).error?.issues ?? [], 'body').toEqual([]);
      } else if (endpoint!.body?.required) {
        throw new Error('the endpoint needs a body');
      }
      const community = params.id ?? (body?.community_id as string | undefined);
      if (community) expect(communities.has(community), `community ${community}`).toBe(true);
      const people = [params.profile_id, ...((body?.profile_ids as string[] | undefined) ?? [])].filter((p): p is string => !!p && !taken(p));
      for (const person of people) expect(members.has(`${community}/${person}`), `${person} in ${community}`).toBe(true);
    });
  }
});
