// The search benchmark's corpora (test/bench/search-bench.ts): generated profiles loaded into
// search.documents of a migrated store — PostgreSQL or the embedded store (PGlite) — with the
// default embedder's stored vectors, made by the model in this process while loading (as indexing
// stores them). Every index but the primary key is built once after the load rather than row by row
// during it, and where pgvector exists the nearest-neighbour indexes are built by the product's own
// path. The store's triggers run on every row as in production (search_tsv, name_tsv, doc_length,
// the BM25 statistics). The embedded store is loaded by binary COPY (pglite-copy.ts), PostgreSQL by
// INSERT … unnest on two connections.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import type { Database } from '../../services/kit/db/database.js';
import { createPglite, pgliteDatabase } from '../../services/kit/db/pglite-database.js';
import { openPostgres } from '../../services/kit/db/postgres-database.js';
import { GloveSifEmbedder, loadGloveModel } from '../../services/search/pipeline/index.js';
import type { SearchPipeline } from '../../services/search/pipeline/pipeline.js';
import { personText, realArrayLiteral } from '../../services/search/pipeline/vectors.js';
import { generateCorpus } from '../search-quality/corpus.js';
import { freshPostgresDatabase } from '../helpers/stores.js';
import { binaryCopy } from './pglite-copy.js';

export type BenchStore = 'postgres' | 'embedded';

export interface CorpusSizes {
  community: number;
  public: number;
  communities: number;
}

export interface BenchDatabase {
  store: BenchStore;
  db: Database;
  /** Inserts one batch of column arrays (several at once on PostgreSQL, one connection each). */
  insertBatches(batches: (() => string[][])[]): Promise<void>;
  /** Closes the store; drops it unless it is kept. */
  close(): Promise<void>;
}

const COLUMNS = ['community_id', 'profile_id', 'user_id', 'name', 'headline', 'bio', 'organization', 'location', 'enrichment_text', 'embedding', 'embedding_model'] as const;
const BATCH = 10_000;
const LOADERS = 2;
/** maintenance_work_mem for the embedded store's HNSW build (its WebAssembly memory stops at 2 GiB). */
const EMBEDDED_HNSW_MEMORY = process.env.BENCH_SEARCH_EMBEDDED_HNSW_MEMORY ?? '1GB';
const INSERT = `INSERT INTO search.documents (${COLUMNS.join(', ')})
  SELECT ${COLUMNS.map((c) => (c === 'embedding' ? `${c}::real[]` : c)).join(', ')}
    FROM unnest(${COLUMNS.map((_, i) => `$${i + 1}::text[]`).join(', ')}) AS t(${COLUMNS.join(', ')})`;

export const benchEmbedder = new GloveSifEmbedder(loadGloveModel().model);

/** One batch of documents as column arrays (for unnest); the vector as an array literal. */
function batchColumns(seed: number, count: number, prefix: string, communityOf: (i: number) => string, offset: number): string[][] {
  const profiles = generateCorpus(count, seed);
  const cols: string[][] = COLUMNS.map(() => []);
  profiles.forEach((p, j) => {
    const i = offset + j;
    const text = { name: p.name, headline: p.headline, bio: p.bio, organization: p.organization, location: p.location, enrichment_text: p.enrichmentText };
    const vector = realArrayLiteral(benchEmbedder.vector(personText([text])));
    const values = [communityOf(i), `${prefix}${i}`, `${prefix}u${i}`, p.name, p.headline, p.bio, p.organization, p.location, p.enrichmentText, vector, benchEmbedder.name];
    values.forEach((v, c) => cols[c]!.push(v));
  });
  return cols;
}

/** A PostgreSQL database: kept by name (created if missing, never dropped) or fresh (dropped at close). */
export async function openBenchPostgres(keep: string | undefined): Promise<BenchDatabase> {
  const target = keep ? await keptDatabase(keep) : await freshPostgresDatabase();
  // No statement bound: the exhaustive reference and the index builds over a million rows run long.
  const db = openPostgres(target.url, { max: 4, statementTimeoutMs: 0 });
  return {
    store: 'postgres',
    db,
    async insertBatches(batches) {
      let next = 0;
      await Promise.all(
        Array.from({ length: LOADERS }, async () => {
          const client = new pg.Client({ connectionString: target.url });
          await client.connect();
          try {
            await client.query('SET synchronous_commit = off');
            while (next < batches.length) await client.query(INSERT, batches[next++]!());
          } finally {
            await client.end();
          }
        }),
      );
    },
    async close() {
      await db.close();
      await target.drop();
    },
  };
}

/**
 * The embedded store in a folder: `<tmpdir>/search-bench-<keep>` when kept (a second run reuses
 * its corpora), else a fresh folder removed at close. On disk, not in memory: a corpus of hundreds
 * of thousands of documents does not fit the store's WebAssembly memory.
 */
export async function openBenchPglite(keep: string | undefined): Promise<BenchDatabase> {
  let dir: string;
  if (keep) mkdirSync((dir = join(tmpdir(), `search-bench-${keep}`)), { recursive: true });
  else dir = mkdtempSync(join(tmpdir(), 'search-bench-'));
  const engine = await createPglite(dir);
  const db = pgliteDatabase(engine);
  const copy = `COPY search.documents (${COLUMNS.join(', ')}) FROM '/dev/blob' WITH (FORMAT binary)`;
  const realArrays = new Set([COLUMNS.indexOf('embedding')]);
  return {
    store: 'embedded',
    db,
    async insertBatches(batches) {
      for (const batch of batches) await engine.query(copy, [], { blob: binaryCopy(batch(), realArrays) });
    },
    async close() {
      await db.close();
      if (!keep) rmSync(dir, { recursive: true, force: true });
    },
  };
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

/**
 * Loads both corpora with every index but the primary key built after the load, then the
 * nearest-neighbour indexes where pgvector exists (the product builds them when it first stores a
 * vector: one document is marked as another embedder's and stored again), then statistics;
 * returns the time and the number of indexes built after.
 */
export async function loadCorpora(bench: BenchDatabase, sizes: CorpusSizes, pipeline: SearchPipeline): Promise<{ loadSeconds: number; indexes: number }> {
  const { db } = bench;
  const perCommunity = Math.ceil(sizes.community / sizes.communities);
  // The migrations' full-text (GIN) and btree indexes; one sorted build each is far cheaper than
  // maintaining them row by row (on the embedded store, in WebAssembly, on one thread).
  const secondary = await db.query<{ name: string; definition: string }>(
    `SELECT i.indexname AS name, i.indexdef AS definition FROM pg_indexes i
      WHERE i.schemaname = 'search' AND i.tablename = 'documents'
        AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname AND c.connamespace = 'search'::regnamespace)`,
  );
  for (const index of secondary) await db.query(`DROP INDEX search.${index.name}`);
  const t0 = performance.now();
  const plan = [
    { prefix: 'c', size: sizes.community, seed: 1000, communityOf: (i: number) => `c_bench_${Math.floor(i / perCommunity)}` },
    { prefix: 'pub', size: sizes.public, seed: 500_000, communityOf: () => '' },
  ];
  const batches: (() => string[][])[] = [];
  for (const corpus of plan) {
    for (let offset = 0, b = 0; offset < corpus.size; offset += BATCH, b++) {
      const [n, o, s] = [Math.min(BATCH, corpus.size - offset), offset, corpus.seed + b];
      batches.push(() => batchColumns(s, n, corpus.prefix, corpus.communityOf, o));
    }
  }
  await bench.insertBatches(batches);
  const tInsert = performance.now();
  await db.transaction(async (tx) => {
    // The embedded store's memory is WebAssembly's: a smaller sort area there.
    await tx.query(`SET LOCAL maintenance_work_mem = '${bench.store === 'postgres' ? '512MB' : '128MB'}'`);
    for (const index of secondary) await tx.query(index.definition);
  }, { statementTimeoutMs: 0 });
  const tIndexes = performance.now();
  const [first] = await db.query<{ community_id: string; profile_id: string }>(
    `UPDATE search.documents SET embedding_model = 'offline-hash-512'
      WHERE (community_id, profile_id) = (SELECT community_id, profile_id FROM search.documents ORDER BY community_id, profile_id LIMIT 1)
      RETURNING community_id, profile_id`,
  );
  // pgvector builds the HNSW graph in memory up to maintenance_work_mem and much more slowly past
  // it; the embedded store's default (64MB) holds about 80,000 of these vectors' graph nodes. Its
  // one session is the one the product's build runs on (PostgreSQL's pool has several).
  if (bench.store === 'embedded') await db.query(`SET maintenance_work_mem = '${EMBEDDED_HNSW_MEMORY}'`);
  if (first) await pipeline.storeVectors(db, [first]);
  if (bench.store === 'embedded') await db.query('RESET maintenance_work_mem');
  const tVectors = performance.now();
  // As autovacuum leaves a table after a bulk load: statistics, and the visibility map set.
  await db.query('VACUUM ANALYZE search.documents');
  const loadSeconds = (performance.now() - t0) / 1000;
  const s = (a: number, b: number) => ((b - a) / 1000).toFixed(0);
  console.log(
    `search bench (${bench.store}): loaded ${sizes.community + sizes.public} documents in ${loadSeconds.toFixed(0)} s ` +
      `(insert ${s(t0, tInsert)} s, ${secondary.length} indexes ${s(tInsert, tIndexes)} s, vector indexes ${s(tIndexes, tVectors)} s, vacuum + analyze ${s(tVectors, performance.now())} s)`,
  );
  return { loadSeconds, indexes: secondary.length };
}
