// The enrichment benchmark (part of `npm run bench` when DATABASE_URL is set; alone:
// `DATABASE_URL=... npx tsx test/bench/enrichment-bench.ts`). A quick-tier community run over
// MEMBERS members with offline providers, through the whole system in one process on PostgreSQL:
// POST /v1/communities/{id}/enrich, then polling until the run has succeeded. Throughput is people
// enriched per second, from the 202 to the last poll. The baseline, measured in the same run, is
// the provider pipeline alone over the same people in memory (no store, no gRPC, no billing; the
// median of three rounds): the ratio says what the run machinery costs on top of the enrichment itself.
import { performance } from 'node:perf_hooks';
import { createEnrichmentPipeline, OFFLINE_PROVIDERS, type PersonInput } from '../../services/enrichment/pipeline/index.js';
import { generateSecret } from '../../services/identity/api-key-secret.js';
import { insertMembers, startBenchSystem } from './bench-system.js';

const MEMBERS = Number(process.env.BENCH_ENRICH_MEMBERS ?? 10_000);

const HEADLINES = [
  'Structural biologist working on protein folding',
  'Machine learning engineer building language models',
  'Climate scientist modelling ocean circulation',
  'Health economist studying hospital costs',
  'Materials chemist designing battery electrodes',
];

function person(i: number): PersonInput {
  return {
    profileId: `p_bench_${String(i).padStart(6, '0')}`,
    name: `researcher ${i}`,
    headline: HEADLINES[i % HEADLINES.length]!,
    bio: 'Leads a laboratory; publishes on open data, reproducible software and statistical methods.',
    organization: i % 3 === 0 ? 'UNIVERSITY OF EXAMPLE' : 'Example Institute',
    location: 'london',
    orcid: null,
    linkedinUrl: null,
  };
}

/** Rounds of the baseline: one round swung from 2,200 to 4,200 profiles/s between runs; the median of three is steadier. */
const BASELINE_ROUNDS = 3;

async function baseline(people: PersonInput[]): Promise<number> {
  const pipeline = createEnrichmentPipeline(OFFLINE_PROVIDERS);
  for (const p of people.slice(0, 200)) await pipeline.enrich(p, 'quick'); // warm-up
  const rates: number[] = [];
  for (let round = 0; round < BASELINE_ROUNDS; round++) {
    const started = performance.now();
    for (const p of people) await pipeline.enrich(p, 'quick');
    rates.push(people.length / ((performance.now() - started) / 1000));
  }
  return rates.sort((a, b) => a - b)[Math.floor(BASELINE_ROUNDS / 2)]!;
}

async function system(people: PersonInput[]): Promise<{ rate: number; seconds: number }> {
  const secret = generateSecret('live');
  const bench = await startBenchSystem({
    users: [{ id: 'u_bench', email: 'bench@example.org', name: 'Bench Owner', plan: 'paid' }],
    communities: [{ id: 'c_bench', name: 'Bench', owner: { user: 'u_bench' }, api_writes: true }],
    wallets: [{ owner: { user: 'u_bench' }, balance: 10 * MEMBERS }],
    keys: [{ id: 'k_bench', secret, owner: { user: 'u_bench' }, scopes: ['enrich:write', 'enrich:read'], requested_rate: 6000 }],
  });
  const { running } = bench;
  try {
    await insertMembers(bench.url, people, () => 'c_bench');
    const headers = { authorization: `Bearer ${secret}`, 'content-type': 'application/json' };
    const started = performance.now();
    const start = await fetch(`${running.restUrl}/v1/communities/c_bench/enrich`, { method: 'POST', headers, body: JSON.stringify({ depth: 'quick' }) });
    const run = (await start.json()) as { run_id: string; eligible_count: number };
    if (start.status !== 202 || run.eligible_count !== people.length) throw new Error(`start answered ${start.status}: ${JSON.stringify(run)}`);
    for (;;) {
      await new Promise((r) => setTimeout(r, 250));
      const poll = await fetch(`${running.restUrl}/v1/communities/c_bench/enrich/runs/${run.run_id}`, { headers });
      const body = (await poll.json()) as { status: string; counts: { succeeded: number } };
      if (body.status === 'failed') throw new Error(`the run failed: ${JSON.stringify(body)}`);
      if (body.status === 'succeeded') {
        if (body.counts.succeeded !== people.length) throw new Error(`the run enriched ${body.counts.succeeded} of ${people.length}`);
        break;
      }
    }
    const seconds = (performance.now() - started) / 1000;
    return { rate: people.length / seconds, seconds };
  } finally {
    await bench.stop();
  }
}

export async function runEnrichmentBench(): Promise<string> {
  const people = Array.from({ length: MEMBERS }, (_, i) => person(i));
  const base = await baseline(people);
  const measured = await system(people);
  const table = [
    '| target | people | profiles/s | seconds | throughput vs baseline |',
    '|---|---|---|---|---|',
    `| quick-tier pipeline alone, in memory (baseline) | ${MEMBERS} | ${Math.round(base)} | ${(MEMBERS / base).toFixed(1)} | 1.00 |`,
    `| community run through the system (PostgreSQL) | ${MEMBERS} | ${Math.round(measured.rate)} | ${measured.seconds.toFixed(1)} | ${(measured.rate / base).toFixed(2)} |`,
  ].join('\n');
  console.log(table);
  return `## Enrichment (quick tier, offline providers, PostgreSQL)

A community run over ${MEMBERS} members through the whole system in one process: \`POST
/v1/communities/{id}/enrich\` with \`depth: quick\`, then polls until the run has succeeded; every
person's data is stored, charged to the community's billing owner and indexed for search. The
baseline is the quick-tier provider pipeline alone over the same people, in memory (the median of three rounds).

${table}

The aim is half the baseline (docs/BENCHMARKS.md, "Aims and where they stand").
`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await runEnrichmentBench());
  process.exit(0);
}
