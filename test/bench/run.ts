// `npm run bench`: GET /v1/me and the hot reads (roster page, member read, search poll) through the
// whole system (edge → identity, communities, search and billing → store, rate limits included)
// against a bare Fastify route, measured in the same run on the same machine,
// each server in its own process and autocannon in this one. Writes its latest run into docs/BENCHMARKS.md.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { generateSecret } from '../../services/identity/api-key-secret.js';
import { parseListenReport } from '../../deploy/launcher/listen-report.js';
import { repoRoot } from '../../services/kit/paths.js';
import { freshPostgresDatabase } from '../helpers/stores.js';
import { withLatestRun } from './benchmarks-doc.js';
import { runEmbedderBench } from './embedder-bench.js';
import { runEnrichmentBench } from './enrichment-bench.js';
import { runReindexBench } from './reindex-bench.js';
import { runSearchBench } from './search-bench.js';
import { runKeptTotalsBench } from './kept-totals-bench.js';
import { runWebhookBench } from './webhook-bench.js';
import { RUNTIME_FLAGS } from '../../deploy/launcher/runtime-flags.js';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 15);
const WARMUP_S = 3;
// BENCH_PARTS=edge measures the edge only (no embedder, search or enrichment sections, and
// docs/BENCHMARKS.md is left alone); BENCH_CPU_PROF_DIR profiles each system process (node --cpu-prof).
const EDGE_ONLY = process.env.BENCH_PARTS === 'edge';
const CPU_PROF_DIR = process.env.BENCH_CPU_PROF_DIR;
// With BENCH_PARTS=edge, BENCH_TARGETS (me, roster, member, poll) and BENCH_STORES (embedded,
// postgres), comma-separated, narrow the run to some reads and stores, for a profile of one of them.
const only = (variable: string, name: string) => !EDGE_ONLY || !process.env[variable] || process.env[variable]!.split(',').includes(name);
// Each key allows at most 6000 requests a minute; enough keys that the limiter never refuses.
const KEY_COUNT = 400;

interface Result {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/** Starts a server process and waits until `listening` finds its URL in what it printed. */
async function startProcess(script: string, env: Record<string, string>, listening: (output: string) => string | undefined): Promise<{ child: ChildProcess; url: string }> {
  const profile = CPU_PROF_DIR && script.startsWith('deploy/') ? ['--cpu-prof', '--cpu-prof-dir', CPU_PROF_DIR] : [];
  // Every server with the system's runtime flags, the bare route and the floor included: one runtime for all.
  const child = spawn(process.execPath, [...RUNTIME_FLAGS, ...profile, '--import', 'tsx', join(repoRoot, script)], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (d: Buffer) => {
      output += d;
      const found = listening(output);
      if (found) resolve(found);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (d) => (output += d));
    child.once('exit', (code) => reject(new Error(`${script} exited ${code}:\n${output}`)));
  });
  return { child, url };
}

function stopProcess(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** Measures GET `pathOf(i)` with the i-th key of the rotation (a different key on each request, round robin). */
async function measure(name: string, url: string, secrets: string[], pathOf: (i: number) => string = () => '/v1/me'): Promise<Result> {
  let next = 0;
  const options: autocannon.Options = {
    url,
    connections: CONNECTIONS,
    requests: [{
      setupRequest: (req) => {
        const i = next++ % secrets.length;
        return { ...req, path: pathOf(i), headers: { authorization: `Bearer ${secrets[i]}` } };
      },
    }],
  };
  await autocannon({ ...options, duration: WARMUP_S });
  const r = await autocannon({ ...options, duration: DURATION_S });
  return { name, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors };
}

/** The hot reads' community: the bench user belongs to it, with this many members. */
const ROSTER = 200;

/** One finished search per key (a job is fenced to the key that started it), for the poll. */
async function finishedSearches(url: string, secrets: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const secret of secrets) {
    const response = await fetch(`${url}/v1/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'protein design', scope: 'community', community_id: 'c_bench', limit: 10, wait_seconds: 25 }),
    });
    const body = (await response.json()) as { status?: string; search_id?: string };
    if (body.status !== 'complete' || !body.search_id) throw new Error(`a bench search did not complete: ${response.status} ${JSON.stringify(body)}`);
    ids.push(body.search_id);
  }
  return ids;
}

/** GET /v1/me and the hot reads (a roster page, a member read, a finished search's poll) through one system process. */
async function benchSystem(label: string, env: Record<string, string>): Promise<Result[]> {
  const secrets = Array.from({ length: KEY_COUNT }, () => generateSecret('live'));
  const dir = mkdtempSync(join(tmpdir(), 'en-bench-'));
  const seedFile = join(dir, 'seed.json');
  const members = Array.from({ length: ROSTER }, (_, i) => `p_bench_${String(i).padStart(4, '0')}`);
  writeFileSync(seedFile, JSON.stringify({
    users: [{ id: 'u_bench', email: 'bench@example.org', name: 'Bench User', plan: 'paid' }],
    communities: [{ id: 'c_bench', name: 'Bench community', owner: { user: 'u_bench' } }],
    profiles: members.map((id, i) => ({
      id, ...(i === 0 && { user: 'u_bench' }), public: false, name: `Member ${i}`, headline: i % 2 ? 'Protein design' : 'Graph learning', bio: 'Works on proteins and graphs.',
      organization: 'Bench Lab', location: 'Oslo',
    })),
    // The bench user reads the roster as a member of the community (their own profile's membership).
    memberships: [{ community: 'c_bench', profile: members[0], role: 'admin', joined_at: '2026-01-05T00:00:00Z' },
      ...members.slice(1).map((profile) => ({ community: 'c_bench', profile, role: 'member', joined_at: '2026-01-05T00:00:00Z' }))],
    wallets: [{ owner: { user: 'u_bench' }, balance: 1000 }],
    keys: secrets.map((secret, i) => ({ id: `k_bench_${i}`, secret, owner: { user: 'u_bench' }, scopes: ['search:read', 'profile:read'], requested_rate: 6000 })),
  }));
  // Every port is the OS's pick; the process reports them on its LISTENING line.
  const grpc: Record<string, string> = {};
  for (const v of ['IDENTITY', 'COMMUNITIES', 'SEARCH', 'ENRICHMENT', 'BILLING']) grpc[`${v}_GRPC_ADDR`] = '127.0.0.1:0';
  const { child, url } = await startProcess('deploy/launcher/main.ts', {
    ...grpc, PORT: '0', MCP_PORT: '0', SETTINGS_PORT: '0', ADMIN_PORT: '0', DATA_DIR: join(dir, 'data'), SEED_FILE: seedFile, LOG_LEVEL: 'warn', ...env,
  }, (output) => parseListenReport(output)?.rest);
  try {
    const searches = await finishedSearches(url, secrets);
    const results: Result[] = [];
    if (only('BENCH_TARGETS', 'me')) results.push(await measure(`GET /v1/me, ${label}`, url, secrets));
    if (only('BENCH_TARGETS', 'roster')) results.push(await measure(`roster page (GET /v1/communities/{id}/members?limit=20), ${label}`, url, secrets, () => '/v1/communities/c_bench/members?limit=20'));
    if (only('BENCH_TARGETS', 'member')) results.push(await measure(`member read (GET /v1/communities/{id}/members/{profile_id}), ${label}`, url, secrets, (i) => `/v1/communities/c_bench/members/${members[i % ROSTER]}`));
    if (only('BENCH_TARGETS', 'poll')) results.push(await measure(`search poll (GET /v1/search/{id}, finished), ${label}`, url, secrets, (i) => `/v1/search/${searches[i]}`));
    return results;
  } finally {
    await stopProcess(child);
  }
}

async function benchBare(): Promise<Result> {
  const { child, url } = await startProcess('test/bench/bare-server.ts', { PORT: '0' }, (output) => /^ready (\S+)$/m.exec(output)?.[1]);
  try {
    return await measure('bare Fastify route (baseline)', url, ['none']);
  } finally {
    await stopProcess(child);
  }
}

/**
 * The floor (REDIS_URL only): the bare route plus finding the key by its hash and one step of its
 * shared rate limit in Redis — what no edge that keeps one budget across replicas can go below.
 */
async function benchFloor(): Promise<Result> {
  const { child, url } = await startProcess('test/bench/floor-server.ts', { PORT: '0' }, (output) => /^ready (\S+)$/m.exec(output)?.[1]);
  try {
    return await measure('floor: bare route + key hash + one Redis rate-limit step', url, Array.from({ length: KEY_COUNT }, () => generateSecret('live')));
  } finally {
    await stopProcess(child);
  }
}

const results: Result[] = [await benchBare()];
if (process.env.REDIS_URL) results.push(await benchFloor());
if (only('BENCH_STORES', 'embedded')) results.push(...(await benchSystem('one process, embedded store (PGlite), in-process limiter', { DATABASE_URL: '', REDIS_URL: '' })));
if (process.env.DATABASE_URL && process.env.REDIS_URL && only('BENCH_STORES', 'postgres')) {
  const fresh = await freshPostgresDatabase();
  try {
    results.push(...(await benchSystem('one process, PostgreSQL, Redis limiter', { DATABASE_URL: fresh.url })));
  } finally {
    await fresh.drop();
  }
}

if (EDGE_ONLY) {
  const [bare] = results as [Result, ...Result[]];
  for (const r of results) console.log(`${r.name}: ${Math.round(r.rps)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, ${(r.rps / bare.rps).toFixed(3)} of bare, non-2xx+errors ${r.non2xx + r.errors}`);
  process.exit(0);
}

// The embedders in-process (no store needed), search on PostgreSQL (when DATABASE_URL is set) and
// the embedded store (test/bench/search-bench.ts), then the benchmarks that need PostgreSQL: the
// full re-index, enrichment and the reads of kept totals; their sections follow the table.
const embedderSection = await runEmbedderBench();
const needsPostgres = async (title: string, run: () => Promise<string>) =>
  process.env.DATABASE_URL ? run() : `## ${title} (PostgreSQL)\n\nNot run: DATABASE_URL was not set.\n`;
const searchSection = await runSearchBench();
const reindexSection = await needsPostgres('Full re-index', runReindexBench);
const enrichmentSection = await needsPostgres('Enrichment', runEnrichmentBench);
const keptTotalsSection = await needsPostgres('Kept totals', runKeptTotalsBench);
// Webhook delivery on the embedded store, and on PostgreSQL + Redis when both are set.
const webhookSection = await runWebhookBench();

const [base] = results as [Result, ...Result[]];
const row = (r: Result) =>
  `| ${r.name} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${(r.rps / base.rps).toFixed(2)} | ${r.non2xx + r.errors} |`;
const table = [
  '| target | requests/s | p50 ms | p99 ms | throughput vs baseline | non-2xx + errors |',
  '|---|---|---|---|---|---|',
  ...results.map(row),
].join('\n');
console.log(table);

// The header starts a missing docs/BENCHMARKS.md; an existing one keeps everything but its latest
// full run (benchmarks-doc.ts), so the sections written by hand (how to run, where the time goes) survive a run.
const header = `# Benchmarks

Produced by \`npm run bench\` (test/bench/run.ts): each server in its own process, autocannon driving it
from this one with ${CONNECTIONS} connections for ${DURATION_S} s after a ${WARMUP_S} s warm-up, ${KEY_COUNT} keys in rotation;
throughput as a ratio to the bare Fastify route measured in the same run.
`;
const latestRun = `## ${new Date().toISOString().slice(0, 10)} — ${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}

${table}

${embedderSection}
${searchSection}
${reindexSection}
${enrichmentSection}
${keptTotalsSection}
${webhookSection}`;
const benchmarksPath = join(repoRoot, 'docs', 'BENCHMARKS.md');
writeFileSync(benchmarksPath, withLatestRun(existsSync(benchmarksPath) ? readFileSync(benchmarksPath, 'utf8') : undefined, header, latestRun));
process.exit(0);
