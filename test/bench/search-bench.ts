// The search benchmark (part of `npm run bench`; alone: `npx tsx test/bench/search-bench.ts`). On
// each store — PostgreSQL when DATABASE_URL is set, and the embedded store (PGlite) — it loads two
// generated corpora into search.documents of a fresh, migrated database (search-bench-corpus.ts) —
// a community corpus (COMMUNITIES communities of equal size) and a public corpus (community_id '')
// — then runs judged queries of the search-quality set through the product's pipeline
// (createSearchPipeline().rank, the fast path) and measures wall time per query (p50, p95, p99),
// and recall@20 of the fast path against an exhaustive reference on the same corpus.
//
// "Exhaustive" here: the same pipeline, same scoring, with its candidate limits lifted — every
// full-text match, every WordNet-synonym match and every name/organization prefix match of the scope
// is retrieved (candidatesPerLeg, rankWindow and maxCandidates = EXHAUSTIVE_CAP, above the
// size of either corpus: every tier of every leg runs and is ranked in full), and
// every candidate is hydrated, embedded and scored by the final reranking formula. So it is exhaustive
// over every document that shares a word (or a synonym, or a name prefix) with the query; documents
// sharing none score only through semantic similarity (the default embedder, glove-6b-100d-sif) and
// are not considered by either side. recall@20 = |fast top 20 ∩ exhaustive top 20| / min(20, |exhaustive top 20|),
// averaged over the queries with a non-empty exhaustive result.
//
// Documents are generated with test/search-quality/corpus.ts's generator and loaded with their
// stored vectors, so the ranker reads vectors as in production instead of embedding every
// candidate, and every query is embedded by the model. Where pgvector exists (the embedded store
// ships it) the nearest-neighbour leg runs over its HNSW indexes.
//
// Indexing throughput (PostgreSQL): after the latency runs, REINDEX_SAMPLE community documents are
// marked as another embedder's (as after a change of embedder) and re-embedded through the
// product's path (pipeline.storeVectors: embed, conditional UPDATE, HNSW insert where pgvector
// exists); documents per second, and a full re-index of 100,000 documents extrapolated from it.
import { performance } from 'node:perf_hooks';
import { migrateAll } from '../../services/kit/db/migrations.js';
import type { Database } from '../../services/kit/db/database.js';
import { createSearchPipeline } from '../../services/search/pipeline/index.js';
import type { SearchPipeline } from '../../services/search/pipeline/pipeline.js';
import { generateCorpus, judgedQueries } from '../search-quality/corpus.js';
import { type BenchDatabase, type BenchStore, benchEmbedder, type CorpusSizes, loadCorpora, openBenchPglite, openBenchPostgres } from './search-bench-corpus.js';

const COMMUNITY_SIZE = Number(process.env.BENCH_SEARCH_COMMUNITY ?? 100_000);
const PUBLIC_SIZE = Number(process.env.BENCH_SEARCH_PUBLIC ?? 1_000_000);
const COMMUNITIES = 20;
/** The embedded store's corpora (default: the same sizes as PostgreSQL's). */
const EMBEDDED_COMMUNITY_SIZE = Number(process.env.BENCH_SEARCH_EMBEDDED_COMMUNITY ?? COMMUNITY_SIZE);
const EMBEDDED_PUBLIC_SIZE = Number(process.env.BENCH_SEARCH_EMBEDDED_PUBLIC ?? PUBLIC_SIZE);
/** The stores measured, comma-separated (postgres needs DATABASE_URL). */
const STORES = (process.env.BENCH_SEARCH_STORES ?? 'postgres,embedded').split(',').map((s) => s.trim()) as BenchStore[];
const QUERIES = Number(process.env.BENCH_SEARCH_QUERIES ?? 50);
/** Queries of the exhaustive reference on the largest corpus (it is slow there). */
const EXHAUSTIVE_QUERIES_LARGE = Number(process.env.BENCH_SEARCH_EXHAUSTIVE_QUERIES ?? 20);
const EXHAUSTIVE_CAP = 2_000_000;
const K = 20;
/** Documents re-embedded to measure indexing throughput (a full re-index is extrapolated from it). */
const REINDEX_SAMPLE = Number(process.env.BENCH_SEARCH_REINDEX ?? 10_000);
/**
 * A name to keep the loaded corpora under (a PostgreSQL database of that name, created if missing,
 * never dropped; the embedded store's folder `<tmpdir>/search-bench-<name>`): a second run with the
 * same value skips the load, so a change to retrieval can be measured again at once.
 */
const KEEP_DATABASE = process.env.BENCH_SEARCH_KEEP_DATABASE;
/** Print each query's time (finding the slow ones). */
const VERBOSE = process.env.BENCH_SEARCH_VERBOSE === '1';

export interface SearchBenchRow {
  store: BenchStore;
  corpus: string;
  documents: number;
  queries: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  recall: number;
  recallQueries: number;
  exhaustiveP50: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** `count` queries spread evenly over the judged set of a 10,000-profile batch (every kind represented). */
function pickQueries(count: number): string[] {
  const all = judgedQueries(generateCorpus(10_000, 1000)).map((q) => q.query);
  if (count >= all.length) return all;
  return Array.from({ length: count }, (_, i) => all[Math.floor((i * all.length) / count)]!);
}

async function measureCorpus(
  db: Database,
  store: BenchStore,
  label: string,
  documents: number,
  scope: { communityIds: string[]; includePublic: boolean },
  queries: string[],
  exhaustiveQueries: number,
): Promise<SearchBenchRow> {
  const fast = createSearchPipeline({ reranker: null });
  const cap = EXHAUSTIVE_CAP;
  const exhaustive = createSearchPipeline({ reranker: null, candidatesPerLeg: cap, maxCandidates: cap, rankWindow: cap });
  const rank = (p: SearchPipeline, query: string) => p.rank(db, { query, ...scope, limit: K });
  // Warm-up: caches, WordNet, plans.
  for (const q of queries.slice(0, 3)) await rank(fast, q);
  const times: number[] = [];
  const fastTop = new Map<string, string[]>();
  for (const q of queries) {
    const t0 = performance.now();
    const matches = await rank(fast, q);
    times.push(performance.now() - t0);
    if (VERBOSE) console.log(`search bench (${store}): ${label}: ${(performance.now() - t0).toFixed(0)} ms ${JSON.stringify(q)}`);
    fastTop.set(q, matches.map((m) => m.profileId));
  }
  times.sort((a, b) => a - b);
  let recallSum = 0;
  let recallQueries = 0;
  const exTimes: number[] = [];
  for (const q of queries.slice(0, exhaustiveQueries)) {
    const t0 = performance.now();
    const ref = (await rank(exhaustive, q)).map((m) => m.profileId);
    exTimes.push(performance.now() - t0);
    if (ref.length === 0) continue;
    const got = new Set(fastTop.get(q));
    const found = ref.filter((id) => got.has(id)).length / Math.min(K, ref.length);
    if (VERBOSE) console.log(`search bench (${store}): ${label}: recall@20 ${found.toFixed(2)} ${JSON.stringify(q)}`);
    recallSum += found;
    recallQueries++;
  }
  exTimes.sort((a, b) => a - b);
  const row: SearchBenchRow = {
    store,
    corpus: label,
    documents,
    queries: queries.length,
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    p99: percentile(times, 99),
    max: times[times.length - 1]!,
    recall: recallQueries > 0 ? recallSum / recallQueries : NaN,
    recallQueries,
    exhaustiveP50: percentile(exTimes, 50),
  };
  console.log(
    `search bench (${store}): ${label}: p50 ${row.p50.toFixed(0)} ms, p95 ${row.p95.toFixed(0)} ms, p99 ${row.p99.toFixed(0)} ms, ` +
      `recall@20 ${row.recall.toFixed(3)} (${recallQueries} queries), exhaustive p50 ${row.exhaustiveP50.toFixed(0)} ms`,
  );
  return row;
}

interface ReindexRow {
  documents: number;
  seconds: number;
  perSecond: number;
}

/**
 * Re-embeds `count` community documents as a re-index after a change of embedder does: their
 * vectors marked as another embedder's, then stored again by the product's path.
 */
async function measureReindex(db: Database, count: number): Promise<ReindexRow> {
  const keys = await db.query<{ community_id: string; profile_id: string }>(
    `UPDATE search.documents SET embedding_model = 'offline-hash-512'
      WHERE (community_id, profile_id) IN (SELECT community_id, profile_id FROM search.documents WHERE community_id <> '' ORDER BY profile_id LIMIT $1)
      RETURNING community_id, profile_id`,
    [count],
  );
  const pipeline = createSearchPipeline({ reranker: null });
  const t0 = performance.now();
  const stored = await pipeline.storeVectors(db, keys);
  const seconds = (performance.now() - t0) / 1000;
  const row = { documents: stored, seconds, perSecond: stored / seconds };
  console.log(`search bench: re-embedded ${stored} documents in ${seconds.toFixed(1)} s (${row.perSecond.toFixed(0)} documents/s; 100,000 would take ${(100_000 / row.perSecond / 60).toFixed(1)} min)`);
  return row;
}

interface StoreRun {
  store: BenchStore;
  sizes: CorpusSizes;
  rows: SearchBenchRow[];
  loadSeconds: number;
  indexes: number;
  pgvector: boolean;
  reindex: ReindexRow | null;
}

/** Loads (unless kept) and measures one store. */
async function benchStore(bench: BenchDatabase, sizes: CorpusSizes): Promise<StoreRun> {
  const { db, store } = bench;
  await migrateAll(db);
  const loaded = Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM search.documents'))[0]!.n);
  let loadSeconds = NaN;
  let indexes = 0;
  if (loaded === 0) ({ loadSeconds, indexes } = await loadCorpora(bench, sizes, createSearchPipeline({ reranker: null })));
  else if (loaded !== sizes.community + sizes.public) {
    // An interrupted load (it takes long on the embedded store) would otherwise be measured as if whole.
    throw new Error(`the kept corpus ${KEEP_DATABASE} holds ${loaded} documents, not ${sizes.community + sizes.public}: drop it and load again`);
  } else console.log(`search bench (${store}): reusing the ${loaded} documents of ${KEEP_DATABASE}`);
  const queries = pickQueries(QUERIES);
  const perCommunity = Math.ceil(sizes.community / sizes.communities);
  const communityIds = Array.from({ length: sizes.communities }, (_, i) => `c_bench_${i}`);
  const rows = [
    await measureCorpus(db, store, `community: ${sizes.communities} communities × ${perCommunity}`, sizes.community, { communityIds, includePublic: false }, queries, queries.length),
    await measureCorpus(db, store, 'public corpus', sizes.public, { communityIds: [], includePublic: true }, queries, Math.min(EXHAUSTIVE_QUERIES_LARGE, queries.length)),
  ];
  const pgvector = (await db.query(`SELECT 1 FROM pg_extension WHERE extname = 'vector'`)).length === 1;
  // A kept corpus stays as loaded: re-embedding would leave its sample marked for the next run.
  const reindex = KEEP_DATABASE || store !== 'postgres' ? null : await measureReindex(db, Math.min(REINDEX_SAMPLE, sizes.community));
  return { store, sizes, rows, loadSeconds, indexes, pgvector, reindex };
}

/** Runs the search benchmark on each store; returns the markdown section for docs/BENCHMARKS.md. */
export async function runSearchBench(): Promise<string> {
  const runs: StoreRun[] = [];
  const skipped: string[] = [];
  for (const store of STORES) {
    if (store === 'postgres' && !process.env.DATABASE_URL) {
      skipped.push('PostgreSQL: not run, DATABASE_URL was not set.');
      continue;
    }
    const bench = store === 'postgres' ? await openBenchPostgres(KEEP_DATABASE) : await openBenchPglite(KEEP_DATABASE);
    const sizes = store === 'postgres'
      ? { community: COMMUNITY_SIZE, public: PUBLIC_SIZE, communities: COMMUNITIES }
      : { community: EMBEDDED_COMMUNITY_SIZE, public: EMBEDDED_PUBLIC_SIZE, communities: COMMUNITIES };
    try {
      runs.push(await benchStore(bench, sizes));
    } finally {
      await bench.close();
    }
  }
  return section(runs, skipped);
}

const STORE_NAME: Record<BenchStore, string> = { postgres: 'PostgreSQL', embedded: 'embedded (PGlite)' };

function section(runs: StoreRun[], skipped: string[]): string {
  const table = [
    '| store | corpus | documents | queries | p50 ms | p95 ms | p99 ms | max ms | recall@20 vs exhaustive (queries) | exhaustive p50 ms |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...runs.flatMap((run) => run.rows).map((r) =>
      `| ${STORE_NAME[r.store]} | ${r.corpus} | ${r.documents.toLocaleString('en')} | ${r.queries} | ${r.p50.toFixed(0)} | ${r.p95.toFixed(0)} | ${r.p99.toFixed(0)} | ${r.max.toFixed(0)} | ${r.recall.toFixed(3)} (${r.recallQueries}) | ${r.exhaustiveP50.toFixed(0)} |`,
    ),
  ].join('\n');
  const stores = runs.map((run) => {
    const total = (run.sizes.community + run.sizes.public).toLocaleString('en');
    const loaded = Number.isNaN(run.loadSeconds) ? 'kept from an earlier run' : `loaded in ${run.loadSeconds.toFixed(0)} s (its ${run.indexes} secondary indexes built after, then VACUUM ANALYZE)`;
    const vectors = run.pgvector ? 'pgvector present, so the nearest-neighbour leg ran' : 'no pgvector, so no nearest-neighbour leg';
    return `- ${STORE_NAME[run.store]}: ${total} documents, ${loaded}; ${vectors}.`;
  });
  const reindex = runs.find((run) => run.reindex);
  return `## Search

Produced by test/bench/search-bench.ts (method: docs/BENCHMARKS.md, "How to run"; the fast path and its limits:
docs/SEARCH-RANKING.md). Generated documents with ${benchEmbedder.name}'s stored ${benchEmbedder.model.dimensions}-dimension vectors
(the BM25 statistics triggers included). ${runs[0]?.rows[0]?.queries ?? 0} judged queries through \`createSearchPipeline().rank\` (limit 20, no
cross-encoder), one at a time after three warm-up queries; wall time per query.

${[...stores, ...skipped.map((s) => `- ${s}`)].join('\n')}

recall@20 is against the exhaustive reference (every candidate limit lifted to ${EXHAUSTIVE_CAP.toLocaleString('en')}; docs/BENCHMARKS.md,
"How to run"), run for all queries on the community corpus and the first ${Math.min(EXHAUSTIVE_QUERIES_LARGE, QUERIES)} on the public one.

Aim: p95 under 300 ms at 100k community members, under 1 s at 1M public profiles, on 2 cores.

${table}

${reindex?.reindex ? reindexParagraph(reindex.reindex, reindex.pgvector) : 'Indexing throughput: not measured (a kept corpus, BENCH_SEARCH_KEEP_DATABASE, stays as loaded; it is measured on PostgreSQL).\n'}`;
}

function reindexParagraph(reindex: ReindexRow, pgvector: boolean): string {
  return `Indexing throughput: ${reindex.documents.toLocaleString('en')} community documents whose vectors were another embedder's
re-embedded through the product's path (pipeline.storeVectors: embed, conditional UPDATE${pgvector ? ', HNSW insert' : ''}) in
${reindex.seconds.toFixed(1)} s: ${reindex.perSecond.toFixed(0)} documents/s, so a full re-index of 100,000 documents spends
about ${(100_000 / reindex.perSecond / 60).toFixed(1)} min re-embedding (extrapolated from the ${reindex.documents.toLocaleString('en')}; the communities service's
walk and the text upserts come on top).
`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await runSearchBench());
  process.exit(0);
}
