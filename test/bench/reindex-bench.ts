// The re-index benchmark (part of `npm run bench` when DATABASE_URL is set; alone:
// `DATABASE_URL=... npx tsx test/bench/reindex-bench.ts`). The whole system in one process on
// PostgreSQL; DOCUMENTS generated people (test/search-quality/corpus.ts) written straight into the
// communities store, each a member of one of COMMUNITIES communities; then the operator's full
// re-index (communities ReindexSearch, what `npm run admin -- search reindex` calls), three times:
//   1. first: the search corpus is empty — every document is written and embedded;
//   2. unchanged: the same again — every document is written, none re-embedded (its text and its
//      embedder are the same);
//   3. embedder changed: every stored vector marked as another embedder's first (as after changing
//      EMBEDDINGS_MODEL) — every document is written and re-embedded.
// Each is timed end to end (the walk of the communities store, the text upserts with the BM25
// statistics triggers, embedding, storing the vectors, the prune), and its embedded count read back
// from the run's record (GetReindexRun).
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { callAs } from '../../services/kit/grpc/client.js';
import { generateCorpus } from '../search-quality/corpus.js';
import { insertMembers, startBenchSystem, type BenchSystem } from './bench-system.js';

const DOCUMENTS = Number(process.env.BENCH_REINDEX_DOCUMENTS ?? 100_000);
const COMMUNITIES = 20;
/** Profiles generated per seed (the generator's names repeat past a few thousand; ids never do). */
const GENERATED = 10_000;

export interface ReindexRun {
  label: string;
  seconds: number;
  documents: number;
  embedded: number;
}

async function reindex(bench: BenchSystem, label: string): Promise<ReindexRun> {
  const { clients, signer } = bench.running;
  const options = (deadlineMs: number) => callAs(signer, { kind: 'operator', actor: 'cli:bench' }, undefined, deadlineMs);
  const started = performance.now();
  const counts = await clients.communities.reindexSearch({ batchSize: 0 }, await options(60 * 60_000));
  const seconds = (performance.now() - started) / 1000;
  const record = await clients.search.getReindexRun({ run: 0 }, await options(10_000));
  const documents = counts.membershipDocuments + counts.publicDocuments;
  if (documents !== DOCUMENTS) throw new Error(`${label}: the re-index wrote ${documents} documents of ${DOCUMENTS}`);
  const run = { label, seconds, documents, embedded: Number(record.embeddedDocuments) };
  console.log(`reindex bench: ${label}: ${documents} documents in ${seconds.toFixed(1)} s (${(documents / seconds).toFixed(0)}/s), ${run.embedded} embedded by ${record.embedder}`);
  return run;
}

/** Marks every stored vector as another embedder's, as a change of EMBEDDINGS_MODEL leaves them. */
async function markVectorsStale(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`UPDATE search.documents SET embedding_model = 'offline-hash-512'`);
    await client.query('VACUUM ANALYZE search.documents');
  } finally {
    await client.end();
  }
}

export async function measureReindexRuns(): Promise<ReindexRun[]> {
  const communities = Array.from({ length: COMMUNITIES }, (_, i) => ({ id: `c_reindex_${i}`, name: `Re-index ${i}`, owner: { user: 'u_bench' } }));
  const bench = await startBenchSystem({ users: [{ id: 'u_bench', email: 'bench@example.org', name: 'Bench Owner', plan: 'paid' }], communities });
  try {
    for (let offset = 0; offset < DOCUMENTS; offset += GENERATED) {
      const people = generateCorpus(Math.min(GENERATED, DOCUMENTS - offset), 7000 + offset / GENERATED).map((p, j) => ({ ...p, profileId: `p_reindex_${offset + j}` }));
      await insertMembers(bench.url, people, (j) => communities[(offset + j) % COMMUNITIES]!.id);
    }
    const runs = [await reindex(bench, 'first (empty corpus)'), await reindex(bench, 'unchanged')];
    await markVectorsStale(bench.url);
    runs.push(await reindex(bench, 'embedder changed'));
    return runs;
  } finally {
    await bench.stop();
  }
}

/** The markdown section for docs/BENCHMARKS.md. */
export async function runReindexBench(): Promise<string> {
  const runs = await measureReindexRuns();
  const table = [
    '| re-index | documents | embedded | seconds | documents/s |',
    '|---|---|---|---|---|',
    ...runs.map((r) => `| ${r.label} | ${r.documents.toLocaleString('en')} | ${r.embedded.toLocaleString('en')} | ${r.seconds.toFixed(1)} | ${(r.documents / r.seconds).toFixed(0)} |`),
  ].join('\n');
  return `## Full re-index (PostgreSQL)

Produced by test/bench/reindex-bench.ts: the whole system in one process, ${DOCUMENTS.toLocaleString('en')} generated people
written straight into the communities store as members of ${COMMUNITIES} communities (none public), then the operator's full
re-index (\`npm run admin -- search reindex\`: communities walks every profile, search upserts each batch's documents
with the BM25 statistics, embeds those whose vector is missing or another embedder's, stores the vectors, then prunes)
three times, timed end to end: into an empty corpus, again unchanged, and after every stored vector was marked as
another embedder's (what changing the embedder leaves).

${table}
`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await runReindexBench());
  process.exit(0);
}
