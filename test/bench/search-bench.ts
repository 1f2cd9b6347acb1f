// The search benchmark (part of `npm run bench` when DATABASE_URL is set; alone:
// `DATABASE_URL=... npx tsx test/bench/search-bench.ts`). In a fresh, migrated PostgreSQL database it
// loads two generated corpora into search.documents — a community corpus (COMMUNITIES communities of
// equal size) and a public corpus (community_id '') — then runs judged queries of the search-quality
// set through the product's pipeline (createSearchPipeline().rank, the fast path) and measures wall
// time per query, and recall@20 of the fast path against an exhaustive reference on the same corpus.
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
// Documents are generated with test/search-quality/corpus.ts's generator, BATCH profiles per seed,
// and loaded with their stored vectors — the default embedder's, made by the model itself in this
// process while loading (as indexing stores them) — so the ranker reads vectors as in production
// instead of embedding every candidate, and every query is embedded by the model.
//
// Indexing throughput: after the latency runs, REINDEX_SAMPLE community documents are marked as
// another embedder's (as after a change of embedder) and re-embedded through the product's path
// (pipeline.storeVectors: embed, conditional UPDATE, HNSW insert where pgvector exists); documents
// per second, and a full re-index of 100,000 documents extrapolated from it.
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { migrateAll } from '../../services/kit/db/migrations.js';
import { openPostgres } from '../../services/kit/db/postgres-database.js';
import { createSearchPipeline, GloveSifEmbedder, loadGloveModel } from '../../services/search/pipeline/index.js';
import { personText, realArrayLiteral } from '../../services/search/pipeline/vectors.js';
import type { SearchPipeline } from '../../services/search/pipeline/pipeline.js';
import { generateCorpus, judgedQueries } from '../search-quality/corpus.js';
import { freshPostgresDatabase } from '../helpers/stores.js';

const COMMUNITY_SIZE = Number(process.env.BENCH_SEARCH_COMMUNITY ?? 100_000);
const PUBLIC_SIZE = Number(process.env.BENCH_SEARCH_PUBLIC ?? 1_000_000);
const COMMUNITIES = 20;
const QUERIES = Number(process.env.BENCH_SEARCH_QUERIES ?? 50);
/** Queries of the exhaustive reference on the largest corpus (it is slow there). */
const EXHAUSTIVE_QUERIES_LARGE = Number(process.env.BENCH_SEARCH_EXHAUSTIVE_QUERIES ?? 20);
const EXHAUSTIVE_CAP = 2_000_000;
const BATCH = 10_000;
const LOADERS = 2;
const K = 20;
/** Documents re-embedded to measure indexing throughput (a full re-index is extrapolated from it). */
const REINDEX_SAMPLE = Number(process.env.BENCH_SEARCH_REINDEX ?? 10_000);
/**
 * A database to keep the loaded corpora in (created if missing, never dropped): a second run with
 * the same value skips the four-minute load, so a change to retrieval can be measured again at once.
 */
const KEEP_DATABASE = process.env.BENCH_SEARCH_KEEP_DATABASE;
/** Print each query's time (finding the slow ones). */
const VERBOSE = process.env.BENCH_SEARCH_VERBOSE === '1';

export interface SearchBenchRow {
  corpus: string;
  documents: number;
  loadSeconds: number;
  queries: number;
  p50: number;
  p95: number;
  max: number;
  recall: number;
  recallQueries: number;
  exhaustiveP50: number;
}

const COLUMNS = ['community_id', 'profile_id', 'user_id', 'name', 'headline', 'bio', 'organization', 'location', 'enrichment_text', 'embedding', 'embedding_model'] as const;
const embedder = new GloveSifEmbedder(loadGloveModel().model);

/** One batch of documents as column arrays (for unnest); the vector as an array literal. */
function batchColumns(seed: number, count: number, prefix: string, communityOf: (i: number) => string, offset: number): string[][] {
  const profiles = generateCorpus(count, seed);
  const cols: string[][] = COLUMNS.map(() => []);
  profiles.forEach((p, j) => {
    const i = offset + j;
    const text = { name: p.name, headline: p.headline, bio: p.bio, organization: p.organization, location: p.location, enrichment_text: p.enrichmentText };
    const vector = realArrayLiteral(embedder.vector(personText([text])));
    const values = [communityOf(i), `${prefix}${i}`, `${prefix}u${i}`, p.name, p.headline, p.bio, p.organization, p.location, p.enrichmentText, vector, embedder.name];
    values.forEach((v, c) => cols[c]!.push(v));
  });
  return cols;
}

async function load(url: string, plan: { prefix: string; size: number; seed: number; communityOf: (i: number) => string }[]): Promise<void> {
  const jobs: (() => string[][])[] = [];
  for (const corpus of plan) {
    for (let offset = 0, b = 0; offset < corpus.size; offset += BATCH, b++) {
      const n = Math.min(BATCH, corpus.size - offset);
      const o = offset;
      const s = corpus.seed + b;
      jobs.push(() => batchColumns(s, n, corpus.prefix, corpus.communityOf, o));
    }
  }
  const sql = `INSERT INTO search.documents (${COLUMNS.join(', ')})
    SELECT ${COLUMNS.map((c) => (c === 'embedding' ? `${c}::real[]` : c)).join(', ')}
      FROM unnest(${COLUMNS.map((_, i) => `$${i + 1}::text[]`).join(', ')}) AS t(${COLUMNS.join(', ')})`;
  let next = 0;
  await Promise.all(
    Array.from({ length: LOADERS }, async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query('SET synchronous_commit = off');
        while (next < jobs.length) {
          const job = jobs[next++]!;
          await client.query(sql, job());
        }
      } finally {
        await client.end();
      }
    }),
  );
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** `count` queries spread evenly over the judged set (every kind represented). */
function pickQueries(count: number): string[] {
  const all = judgedQueries(generateCorpus(BATCH, 1000)).map((q) => q.query);
  if (count >= all.length) return all;
  return Array.from({ length: count }, (_, i) => all[Math.floor((i * all.length) / count)]!);
}

async function measureCorpus(
  db: ReturnType<typeof openPostgres>,
  label: string,
  documents: number,
  loadSeconds: number,
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
    if (VERBOSE) console.log(`search bench: ${label}: ${(performance.now() - t0).toFixed(0)} ms ${JSON.stringify(q)}`);
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
    recallSum += ref.filter((id) => got.has(id)).length / Math.min(K, ref.length);
    recallQueries++;
  }
  exTimes.sort((a, b) => a - b);
  const row: SearchBenchRow = {
    corpus: label,
    documents,
    loadSeconds,
    queries: queries.length,
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    max: times[times.length - 1]!,
    recall: recallQueries > 0 ? recallSum / recallQueries : NaN,
    recallQueries,
    exhaustiveP50: percentile(exTimes, 50),
  };
  console.log(`search bench: ${label}: p50 ${row.p50.toFixed(0)} ms, p95 ${row.p95.toFixed(0)} ms, recall@20 ${row.recall.toFixed(3)} (${recallQueries} queries), exhaustive p50 ${row.exhaustiveP50.toFixed(0)} ms`);
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
async function measureReindex(db: ReturnType<typeof openPostgres>, count: number): Promise<ReindexRow> {
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

/** Runs the search benchmark; returns the markdown section for docs/BENCHMARKS.md. */
export async function runSearchBench(): Promise<string> {
  const fresh = KEEP_DATABASE ? await keptDatabase(KEEP_DATABASE) : await freshPostgresDatabase();
  const db = openPostgres(fresh.url, { max: 4 });
  try {
    await migrateAll(db);
    const perCommunity = Math.ceil(COMMUNITY_SIZE / COMMUNITIES);
    const loaded = KEEP_DATABASE ? Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM search.documents'))[0]!.n) : 0;
    let loadSeconds = NaN;
    let ginIndexes = 0;
    if (loaded === 0) ({ loadSeconds, ginIndexes } = await loadCorpora(db, fresh.url, perCommunity));
    else console.log(`search bench: reusing the ${loaded} documents of ${KEEP_DATABASE}`);

    const queries = pickQueries(QUERIES);
    const communityIds = Array.from({ length: COMMUNITIES }, (_, i) => `c_bench_${i}`);
    const rows = [
      await measureCorpus(db, `community: ${COMMUNITIES} communities × ${perCommunity}`, COMMUNITY_SIZE, loadSeconds, { communityIds, includePublic: false }, queries, queries.length),
      await measureCorpus(db, 'public corpus', PUBLIC_SIZE, loadSeconds, { communityIds: [], includePublic: true }, queries, Math.min(EXHAUSTIVE_QUERIES_LARGE, queries.length)),
    ];
    const pgvector = (await db.query(`SELECT 1 FROM pg_extension WHERE extname = 'vector'`)).length === 1;
    // A kept corpus stays as loaded: re-embedding would leave its sample marked for the next run.
    const reindex = KEEP_DATABASE ? null : await measureReindex(db, Math.min(REINDEX_SAMPLE, COMMUNITY_SIZE));
    return section(rows, loadSeconds, COMMUNITY_SIZE + PUBLIC_SIZE, ginIndexes, pgvector, reindex);
  } finally {
    await db.close();
    await fresh.drop();
  }
}

/** A database by name, created when missing; `drop` leaves it (its corpora are kept). */
async function keptDatabase(name: string): Promise<{ url: string; drop(): Promise<void> }> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error('BENCH_SEARCH_KEEP_DATABASE must be a plain database name');
  const admin = process.env.DATABASE_URL;
  if (!admin) throw new Error('DATABASE_URL is not set');
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: async () => {} };
}

/** Loads both corpora with the GIN indexes built after the load; returns the time it took. */
async function loadCorpora(db: ReturnType<typeof openPostgres>, url: string, perCommunity: number): Promise<{ loadSeconds: number; ginIndexes: number }> {
  // Build the GIN indexes (whatever the migrations made them) once, after the load, rather than
  // row by row during it.
  const gin = await db.query<{ name: string; definition: string }>(
    `SELECT indexname AS name, indexdef AS definition FROM pg_indexes
      WHERE schemaname = 'search' AND tablename = 'documents' AND indexdef LIKE '% USING gin %'`,
  );
  for (const index of gin) await db.query(`DROP INDEX search.${index.name}`);
  const t0 = performance.now();
  await load(url, [
    { prefix: 'c', size: COMMUNITY_SIZE, seed: 1000, communityOf: (i) => `c_bench_${Math.floor(i / perCommunity)}` },
    { prefix: 'pub', size: PUBLIC_SIZE, seed: 500_000, communityOf: () => '' },
  ]);
  const tInsert = performance.now();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`SET maintenance_work_mem = '512MB'`);
    for (const index of gin) await client.query(index.definition);
    // As autovacuum leaves a table after a bulk load: statistics, and the visibility map set.
    await client.query('VACUUM ANALYZE search.documents');
  } finally {
    await client.end();
  }
  const loadSeconds = (performance.now() - t0) / 1000;
  console.log(`search bench: loaded ${COMMUNITY_SIZE + PUBLIC_SIZE} documents in ${loadSeconds.toFixed(0)} s (insert ${((tInsert - t0) / 1000).toFixed(0)} s, indexes + analyze ${((performance.now() - tInsert) / 1000).toFixed(0)} s)`);

  return { loadSeconds, ginIndexes: gin.length };
}

function section(rows: SearchBenchRow[], loadSeconds: number, total: number, ginIndexes: number, pgvector: boolean, reindex: ReindexRow | null): string {
  const table = [
    '| corpus | documents | queries | p50 ms | p95 ms | max ms | recall@20 vs exhaustive (queries) | exhaustive p50 ms |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map((r) =>
      `| ${r.corpus} | ${r.documents.toLocaleString('en')} | ${r.queries} | ${r.p50.toFixed(0)} | ${r.p95.toFixed(0)} | ${r.max.toFixed(0)} | ${r.recall.toFixed(3)} (${r.recallQueries}) | ${r.exhaustiveP50.toFixed(0)} |`,
    ),
  ].join('\n');
  return `## Search (PostgreSQL)

Produced by test/bench/search-bench.ts (method: docs/BENCHMARKS.md, "How to run"; the fast path and its limits:
docs/SEARCH-RANKING.md). ${total.toLocaleString('en')} generated documents with ${embedder.name}'s stored ${embedder.model.dimensions}-dimension vectors, loaded
in ${loadSeconds.toFixed(0)} s (the BM25 statistics triggers included; ${ginIndexes} GIN indexes built after, then VACUUM ANALYZE);
${pgvector ? 'pgvector installed, so the nearest-neighbour leg ran' : 'no pgvector, so no nearest-neighbour leg'}. ${rows[0]?.queries ?? 0} judged queries through \`createSearchPipeline().rank\` (limit 20, no
cross-encoder), one at a time after three warm-up queries; wall time per query.

recall@20 is against the exhaustive reference (every candidate limit lifted to ${EXHAUSTIVE_CAP.toLocaleString('en')}; docs/BENCHMARKS.md,
"How to run"), run for all queries on the community corpus and the first ${Math.min(EXHAUSTIVE_QUERIES_LARGE, rows[0]?.queries ?? 0)} on the public one.

Aim: p95 under 300 ms at 100k community members, under 1 s at 1M public profiles, on 2 cores.

${table}

${reindex ? reindexParagraph(reindex, pgvector) : 'Indexing throughput: not measured (a kept corpus, BENCH_SEARCH_KEEP_DATABASE, stays as loaded).\n'}`;
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
