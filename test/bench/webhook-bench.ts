// The webhook delivery benchmark (part of `npm run bench`; alone: `npx tsx test/bench/webhook-bench.ts`,
// with DATABASE_URL and REDIS_URL for PostgreSQL + Redis as well as the embedded store). On each
// store the whole system runs in this process (WEBHOOK_DELIVERY on, WEBHOOK_ALLOW_PRIVATE_URLS=true)
// with a fast local receiver (webhook-bench-receiver.ts) and one endpoint subscribed to the
// searches' events; through the REST API, as a key would:
//   throughput: EVENTS test events (`POST /v1/webhook_endpoints/{id}/test`: one delivery each, the
//     cheapest event the public API makes), PRODUCERS calls at a time; deliveries received per
//     second from the first to the last, against the ceiling — the receiver's own rate from a plain
//     local HTTP client sending the same way (a new connection each, the worker's 8 in flight);
//   latency: SEARCHES searches one after another with wait_seconds, each timed from its complete
//     answer to its `search.completed` delivery arriving, against a plain client's round trip.
// The throughput window runs under the CPU profiler (cpu-profile-summary.ts): where the time goes.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startSystem } from '../../deploy/launcher/runtime.js';
import { generateSecret } from '../../services/identity/api-key-secret.js';
import { createLogger } from '../../services/kit/logger.js';
import { freshPostgresDatabase } from '../helpers/stores.js';
import { benchConfig } from './bench-system.js';
import { profiled, sharesLine, summarize, type ProfileShare } from './cpu-profile-summary.js';
import { measureCeiling, quantile, startBenchReceiver, type BenchReceiver, type Ceiling } from './webhook-bench-receiver.js';

const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 300);
const SEARCHES = Number(process.env.BENCH_WEBHOOK_SEARCHES ?? 40);
const VERIFY_EVERY = Number(process.env.BENCH_WEBHOOK_VERIFY_EVERY ?? 10);
const PRODUCERS = 16;
const CAPACITY = 8; // the delivery worker's default (services/communities/webhook-worker.ts)
const CEILING_REQUESTS = 2000;
/** Keys of the one owner in rotation, so the producers never meet the rate limit (6000 a minute each). */
const KEYS = 8;
const MEMBERS = 40;
const GIVE_UP_MS = 10 * 60_000;
/** Up to this long between searches, at random: longer than the worker's tick. */
const PAUSE_MS = 700;

interface StoreResult {
  label: string;
  delivered: number;
  rate: number;
  /** From the first test call to the last delivery received. */
  seconds: number;
  latencies: number[];
  where: ProfileShare[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(done: () => boolean, what: string): Promise<void> {
  const started = performance.now();
  while (!done()) {
    if (performance.now() - started > GIVE_UP_MS) throw new Error(`gave up waiting for ${what}`);
    await sleep(5);
  }
}

function seedFile(secrets: string[]): string {
  const members = Array.from({ length: MEMBERS }, (_, i) => `p_bench_${String(i).padStart(4, '0')}`);
  const file = join(mkdtempSync(join(tmpdir(), 'en-bench-')), 'seed.json');
  writeFileSync(file, JSON.stringify({
    users: [{ id: 'u_bench', email: 'bench@example.org', name: 'Bench User', plan: 'paid' }],
    communities: [{ id: 'c_bench', name: 'Bench community', owner: { user: 'u_bench' } }],
    profiles: members.map((id, i) => ({ id, public: false, name: `Member ${i}`, headline: i % 2 ? 'Protein design' : 'Graph learning', bio: 'Works on proteins and graphs.', organization: 'Bench Lab', location: 'Oslo' })),
    memberships: members.map((profile) => ({ community: 'c_bench', profile, role: 'member', joined_at: '2026-01-05T00:00:00Z' })),
    wallets: [{ owner: { user: 'u_bench' }, balance: 100_000 }],
    keys: secrets.map((secret, i) => ({ id: `k_bench_${i}`, secret, owner: { user: 'u_bench' }, scopes: ['search:read', 'profile:read', 'webhooks:read', 'webhooks:write'], requested_rate: 6000 })),
  }));
  return file;
}

async function call(url: string, secret: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${secret}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** EVENTS test events, PRODUCERS calls at a time, until the receiver has them all. */
async function throughput(url: string, secrets: string[], endpointId: string, receiver: BenchReceiver): Promise<{ rate: number; seconds: number }> {
  const tests = () => receiver.arrivals.filter((a) => a.type === 'webhook.test');
  const started = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: PRODUCERS }, async () => {
    for (let i = next++; i < EVENTS; i = next++) {
      const queued = await call(url, secrets[i % KEYS]!, 'POST', `/v1/webhook_endpoints/${endpointId}/test`);
      if (queued.status !== 202) throw new Error(`a test event answered ${queued.status}: ${JSON.stringify(queued.body)}`);
    }
  }));
  await until(() => tests().length >= EVENTS, `${EVENTS} test deliveries`);
  const got = tests();
  const first = got[0]!.at;
  const last = got[got.length - 1]!.at;
  return { rate: (got.length - 1) / ((last - first) / 1000), seconds: (last - started) / 1000 };
}

/** SEARCHES searches in turn: from each complete answer to its `search.completed` delivery, in ms. */
async function latencies(url: string, secret: string, receiver: BenchReceiver): Promise<number[]> {
  const times: number[] = [];
  for (let i = -1; i < SEARCHES; i++) {
    // A random pause first: searches one right after another's delivery would start in step with the
    // worker's tick (every 500 ms) and all wait the same; real searches end at any point of it.
    await sleep(Math.random() * PAUSE_MS);
    const query = i % 2 ? 'protein design' : 'graph learning';
    const answer = await call(url, secret, 'POST', '/v1/search', { query, scope: 'community', community_id: 'c_bench', limit: 10, wait_seconds: 25 });
    const answered = performance.now();
    const id = answer.body.search_id as string | undefined;
    if (answer.body.status !== 'complete' || !id) throw new Error(`a bench search did not complete: ${answer.status} ${JSON.stringify(answer.body)}`);
    await until(() => receiver.arrivals.some((a) => a.searchId === id), `search ${id}'s delivery`);
    const arrived = receiver.arrivals.find((a) => a.searchId === id)!;
    if (arrived.type !== 'search.completed') throw new Error(`search ${id} was delivered as ${arrived.type}`);
    if (i >= 0) times.push(arrived.at - answered); // the first is a warm-up
  }
  return times.sort((a, b) => a - b);
}

async function benchStore(label: string, storeEnv: Record<string, string>, receiver: BenchReceiver): Promise<StoreResult> {
  const secrets = Array.from({ length: KEYS }, () => generateSecret('live'));
  const dataDir = mkdtempSync(join(tmpdir(), 'en-bench-data-'));
  const config = benchConfig({ ...storeEnv, DATA_DIR: dataDir, SEED_FILE: seedFile(secrets), WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_DELIVERY: 'on' });
  const running = await startSystem(config, createLogger(config.LOG_LEVEL));
  try {
    const url = running.restUrl!;
    const endpoint = await call(url, secrets[0]!, 'POST', '/v1/webhook_endpoints', { url: `${receiver.url}/hook`, events: ['search.completed', 'search.failed'] });
    if (endpoint.status !== 201) throw new Error(`the endpoint was not made: ${endpoint.status} ${JSON.stringify(endpoint.body)}`);
    receiver.secret = endpoint.body.secret as string;
    receiver.arrivals.length = 0;
    const { result, profile } = await profiled(() => throughput(url, secrets, endpoint.body.id as string, receiver));
    const times = await latencies(url, secrets[0]!, receiver);
    return { label, delivered: EVENTS, ...result, latencies: times, where: summarize(profile, 0.01) };
  } finally {
    await running.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function section(ceiling: Ceiling, results: StoreResult[], receiver: BenchReceiver, skipped: string): string {
  const ms = (n: number) => n.toFixed(n < 10 ? 1 : 0);
  const table = [
    '| target | deliveries/s | vs ceiling | search → webhook p50 ms | p95 ms |',
    '|---|---|---|---|---|',
    `| plain local HTTP client → the receiver (ceiling; ${CAPACITY} in flight, a new connection each; round trip) | ${Math.round(ceiling.rate)} | 1.00 | ${ms(ceiling.p50)} | ${ms(ceiling.p95)} |`,
    ...results.map((r) => `| ${r.label}: ${r.delivered} test events (${r.seconds.toFixed(1)} s to the last); ${r.latencies.length} searches | ${r.rate.toFixed(1)} | ${(r.rate / ceiling.rate).toFixed(3)} | ${ms(quantile(r.latencies, 0.5))} | ${ms(quantile(r.latencies, 0.95))} |`),
  ].join('\n');
  console.log(table);
  const profiles = results.map((r) => `- ${r.label}: ${sharesLine(r.where)}.`).join('\n');
  return `## Webhook delivery

The whole system in this process on each store with a local receiver (node:http, 204 at once,
every ${VERIFY_EVERY}th delivery's signature verified: ${receiver.verified} verified, ${receiver.badSignatures} bad; ${receiver.repeats} repeated).
Throughput: test events (\`POST /v1/webhook_endpoints/{id}/test\`, ${PRODUCERS} calls at a time)
delivered per second, first to last. Latency: from a search's complete answer (\`wait_seconds\`)
to its \`search.completed\` delivery, searches one at a time, 0–${PAUSE_MS} ms apart at random.${skipped}

${table}

Where the process's time went while the test events were made and delivered (CPU profile of the window):
${profiles}
`;
}

export async function runWebhookBench(): Promise<string> {
  const receiver = await startBenchReceiver(VERIFY_EVERY);
  try {
    const ceiling = await measureCeiling(receiver, CEILING_REQUESTS, CAPACITY);
    const results = [await benchStore('embedded store (PGlite)', { DATABASE_URL: '', REDIS_URL: '' }, receiver)];
    let skipped = ' PostgreSQL + Redis not run: DATABASE_URL and REDIS_URL were not both set.';
    if (process.env.DATABASE_URL && process.env.REDIS_URL) {
      skipped = '';
      const fresh = await freshPostgresDatabase();
      try {
        results.push(await benchStore('PostgreSQL + Redis', { DATABASE_URL: fresh.url, REDIS_URL: process.env.REDIS_URL }, receiver));
      } finally {
        await fresh.drop();
      }
    }
    return section(ceiling, results, receiver, skipped);
  } finally {
    await receiver.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await runWebhookBench());
  process.exit(0);
}
