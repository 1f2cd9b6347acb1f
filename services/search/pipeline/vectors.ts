// Stored document vectors and the nearest-neighbour leg (docs/SEARCH-RANKING.md "Vectors").
// Every engine stores each document's vector as real[] with the name of the embedder that made it
// (migration 006); the ranker reads it instead of embedding the candidate again. Where pgvector
// exists (PGlite ships it; a PostgreSQL server needs the package), the same column is indexed
// with HNSW through the cast `embedding::vector(N)` — one partial index per corpus kind and
// embedder — and the nearest documents to the query are a retrieval leg of their own.
import { createHash } from 'node:crypto';
import type { Database, Queryable } from '../../kit/db/database.js';
import type { Embedder, WeightedText } from './embedders.js';
import type { DocumentRow, PreparedVectors } from './pipeline.js';
import type { LegRow, Scope } from './retrieve.js';

/** The text fields of a document, as the vectors read them. */
export type DocumentText = Pick<DocumentRow, 'name' | 'headline' | 'organization' | 'location' | 'bio' | 'enrichment_text'>;

const VECTOR_FIELDS = ['name', 'headline', 'organization', 'location', 'bio', 'enrichment_text'] as const;
/** Field weights of a person's vector (the offline embedder reads them; a dense one keeps weight ≥ 1). */
const VECTOR_WEIGHT: Record<(typeof VECTOR_FIELDS)[number], number> = { name: 0.7, headline: 1.5, organization: 0.8, location: 0.8, bio: 1, enrichment_text: 0.8 };

/**
 * The weighted text a person's vector is made of: each field's distinct values over the person's
 * documents. For one document this is exactly what is stored for it, so a stored vector and one
 * made at rank time are the same vector.
 */
export function personText(docs: readonly DocumentText[]): WeightedText[] {
  const parts: WeightedText[] = [];
  for (const field of VECTOR_FIELDS) {
    const values = [...new Set(docs.map((d) => d[field]).filter((v): v is string => Boolean(v)))];
    for (const value of values) parts.push({ text: value, weight: VECTOR_WEIGHT[field] });
  }
  return parts;
}

export interface DocumentKey {
  community_id: string;
  profile_id: string;
}

/** One string per document key. */
export function documentKey(d: DocumentKey): string {
  return `${d.community_id}\u0000${d.profile_id}`;
}

/** A write that brings no vectors. */
export const NO_VECTORS: PreparedVectors = { model: '', byKey: new Map() };

/**
 * A vector as a PostgreSQL array literal, each number to float4's precision (7 digits) and zeros
 * as `0`: the offline embedder's vectors are mostly zeros, and a short literal is what both engines
 * parse fastest (measured on PGlite: a third less time per stored vector than a number[] parameter).
 */
export function realArrayLiteral(vector: readonly number[]): string {
  return `{${vector.map((x) => (x === 0 ? '0' : x.toPrecision(7))).join(',')}}`;
}

/** A string as an SQL literal: index predicates must be constants for the planner to match them. */
function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * HNSW build settings: half pgvector's defaults (m 16, ef_construction 64). Measured on PGlite,
 * storing 2,200 random vectors of 512 dimensions one by one took 30 s with the defaults and 11 s
 * with these (5 s with no index); the leg asks for 200 neighbours with ef_search ≥ 200, where the sparser graph still
 * finds them (docs/SEARCH-RANKING.md "Vectors").
 */
const HNSW_BUILD = 'm = 8, ef_construction = 32';

/** Documents embedded per embeddings call when backfilling. */
const EMBED_BATCH = 256;

/** pgvector as installed in a database: its schema, and whether HNSW scans can iterate (0.8.0+). */
interface PgVector {
  schema: string;
  iterativeScan: boolean;
}

export class DocumentVectors {
  private readonly installedByDb = new WeakMap<Queryable, Promise<PgVector | null>>();
  /** Per database handle, the dimensions whose indexes exist (or are being built). */
  private readonly indexedByDb = new WeakMap<Queryable, Map<number, Promise<void>>>();

  constructor(readonly embedder: Embedder) {}

  /** pgvector in this database, or null without it (asked once per database handle). */
  pgvector(db: Queryable): Promise<PgVector | null> {
    let known = this.installedByDb.get(db);
    if (!known) {
      known = db
        .query<{ schema: string; version: string }>(
          `SELECT n.nspname AS schema, e.extversion AS version FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'`,
        )
        .then((rows) => {
          const row = rows[0];
          if (!row) return null;
          const [major = 0, minor = 0] = row.version.split('.').map(Number);
          return { schema: row.schema, iterativeScan: major > 0 || minor >= 8 };
        })
        .catch(() => null);
      this.installedByDb.set(db, known);
    }
    return known;
  }

  /** `embedding::<schema>.vector(dims)`: the expression the indexes are built on and queries order by. */
  private vectorOf(schema: string, dims: number): string {
    return `embedding::${quoteIdent(schema)}.vector(${dims})`;
  }

  /** The condition of one corpus kind's index: this embedder's vectors of these dimensions. */
  private predicate(dims: number, corpus: 'public' | 'communities'): string {
    return `embedding_model = ${literal(this.embedder.name)} AND cardinality(embedding) = ${dims} AND community_id ${corpus === 'public' ? "= ''" : "<> ''"}`;
  }

  /** The HNSW indexes (one per corpus kind) of the active embedder at these dimensions. */
  private ensureIndexes(db: Database, schema: string, dims: number): Promise<void> {
    let indexed = this.indexedByDb.get(db);
    if (!indexed) this.indexedByDb.set(db, (indexed = new Map()));
    let done = indexed.get(dims);
    if (!done) {
      const tag = createHash('sha256').update(`${this.embedder.name}\0${dims}`).digest('hex').slice(0, 12);
      // Building an index over a corpus that already holds vectors takes as long as the corpus is
      // large, like a migration: the store's per-statement bound (none here) would fail it each time.
      done = db
        .transaction(async (tx) => {
          // CREATE INDEX IF NOT EXISTS races between processes: one at a time.
          await tx.query(`SELECT pg_advisory_xact_lock(hashtext('search.documents embedding indexes'))`);
          for (const corpus of ['public', 'communities'] as const) {
            await tx.query(
              `CREATE INDEX IF NOT EXISTS documents_embedding_${tag}_${corpus} ON search.documents
                 USING hnsw ((${this.vectorOf(schema, dims)}) ${quoteIdent(schema)}.vector_cosine_ops) WITH (${HNSW_BUILD})
                 WHERE ${this.predicate(dims, corpus)}`,
            );
          }
        }, { statementTimeoutMs: 0 })
        .catch((error: unknown) => {
          indexed.delete(dims); // try again next time
          throw error;
        });
      indexed.set(dims, done);
    }
    return done;
  }

  /**
   * Embeds the given documents (all documents when `keys` is omitted) whose vector is missing or
   * was made by another embedder, and stores each vector only if the document's text is still the
   * text embedded (a concurrent write cleared it and embeds its own). Returns how many were stored.
   * An embedder failure is thrown: the documents keep no vector and are embedded at rank time.
   */
  async store(db: Database, keys?: readonly DocumentKey[]): Promise<number> {
    let stored = 0;
    if (keys) {
      for (let i = 0; i < keys.length; i += EMBED_BATCH) stored += await this.storeBatch(db, await this.staleAmong(db, keys.slice(i, i + EMBED_BATCH)));
      return stored;
    }
    let after: DocumentKey = { community_id: '', profile_id: '' };
    for (;;) {
      const rows = await db.query<DocumentKey & DocumentText>(
        `SELECT community_id, profile_id, name, headline, bio, organization, location, enrichment_text FROM search.documents
          WHERE (community_id, profile_id) > ($1, $2) AND (embedding IS NULL OR embedding_model IS DISTINCT FROM $3)
          ORDER BY community_id, profile_id LIMIT ${EMBED_BATCH}`,
        [after.community_id, after.profile_id, this.embedder.name],
      );
      if (rows.length === 0) return stored;
      stored += await this.storeBatch(db, rows);
      after = rows[rows.length - 1]!;
    }
  }

  private async staleAmong(db: Queryable, keys: readonly DocumentKey[]): Promise<(DocumentKey & DocumentText)[]> {
    if (keys.length === 0) return [];
    return db.query<DocumentKey & DocumentText>(
      `SELECT d.community_id, d.profile_id, d.name, d.headline, d.bio, d.organization, d.location, d.enrichment_text
         FROM search.documents d
         JOIN unnest($1::text[], $2::text[]) AS k(community_id, profile_id) USING (community_id, profile_id)
        WHERE d.embedding IS NULL OR d.embedding_model IS DISTINCT FROM $3`,
      [keys.map((k) => k.community_id), keys.map((k) => k.profile_id), this.embedder.name],
    );
  }

  /**
   * The vectors of documents about to be written whose stored text or vector will not do: those
   * the store does not hold, or holds with other text or without this embedder's vector. A
   * document keeping the enrichment text it holds (enrichment_text null) is embedded here only if
   * it holds none; the others are left to `store` after the write, which reads the text it keeps.
   * Call outside a transaction: the embedder may be a remote service.
   */
  async prepare(db: Database, docs: readonly (DocumentKey & DocumentText)[]): Promise<PreparedVectors> {
    if (docs.length === 0) return NO_VECTORS;
    const column = <K extends keyof (DocumentKey & DocumentText)>(k: K) => docs.map((d) => d[k]);
    const states = await db.query<{ n: number; current: boolean; keeps_enrichment: boolean }>(
      `SELECT k.n::int AS n, d.enrichment_text IS NOT NULL AS keeps_enrichment,
              coalesce(d.embedding IS NOT NULL AND d.embedding_model = $9
                AND d.name = k.name AND d.headline IS NOT DISTINCT FROM k.headline AND d.bio IS NOT DISTINCT FROM k.bio
                AND d.organization IS NOT DISTINCT FROM k.organization AND d.location IS NOT DISTINCT FROM k.location
                AND (k.enrichment_text IS NULL OR d.enrichment_text IS NOT DISTINCT FROM k.enrichment_text), false) AS current
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
              WITH ORDINALITY AS k(community_id, profile_id, name, headline, bio, organization, location, enrichment_text, n)
         LEFT JOIN search.documents d ON d.community_id = k.community_id AND d.profile_id = k.profile_id`,
      [
        column('community_id'), column('profile_id'), column('name'), column('headline'), column('bio'),
        column('organization'), column('location'), column('enrichment_text'), this.embedder.name,
      ],
    );
    const due = states
      .filter((s) => !s.current && (docs[s.n - 1]!.enrichment_text !== null || !s.keeps_enrichment))
      .map((s) => docs[s.n - 1]!);
    const vectors = await this.embedNow(db, due);
    return { model: this.embedder.name, byKey: new Map(due.map((d, i) => [documentKey(d), realArrayLiteral(vectors[i]!)])) };
  }

  /** Embeds these documents' texts, and makes sure the indexes for vectors of their size exist. */
  private async embedNow(db: Database, rows: readonly DocumentText[]): Promise<number[][]> {
    if (rows.length === 0) return [];
    const vectors = await this.embedder.embed(rows.map((row) => personText([row])));
    const pgvector = await this.pgvector(db);
    if (pgvector && vectors[0]) await this.ensureIndexes(db, pgvector.schema, vectors[0].length);
    return vectors;
  }

  private async storeBatch(db: Database, rows: readonly (DocumentKey & DocumentText)[]): Promise<number> {
    if (rows.length === 0) return 0;
    const vectors = await this.embedNow(db, rows);
    // One statement for the batch (a round trip per document made re-indexing 100k documents take
    // most of an hour on a busy machine); each row is still written only where its text is the one embedded.
    const column = (f: (row: DocumentKey & DocumentText, i: number) => string | null) => rows.map(f);
    const updated = await db.query(
      `UPDATE search.documents d SET embedding = k.embedding::real[], embedding_model = $10
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[])
              AS k(community_id, profile_id, embedding, name, headline, bio, organization, location, enrichment_text)
        WHERE d.community_id = k.community_id AND d.profile_id = k.profile_id
          AND d.name = k.name AND d.headline IS NOT DISTINCT FROM k.headline AND d.bio IS NOT DISTINCT FROM k.bio
          AND d.organization IS NOT DISTINCT FROM k.organization AND d.location IS NOT DISTINCT FROM k.location
          AND d.enrichment_text IS NOT DISTINCT FROM k.enrichment_text
        RETURNING d.profile_id`,
      [
        column((r) => r.community_id),
        column((r) => r.profile_id),
        column((_, i) => realArrayLiteral(vectors[i]!)),
        column((r) => r.name),
        column((r) => r.headline),
        column((r) => r.bio),
        column((r) => r.organization),
        column((r) => r.location),
        column((r) => r.enrichment_text),
        this.embedder.name,
      ],
    );
    return updated.length;
  }

  /**
   * The nearest documents of the scope to the query vector, best first, down to `minSimilarity`
   * (cosine); none without pgvector. Each corpus branch repeats its index's condition so the
   * planner can use it; HNSW's iterative scan keeps a filtered branch (a few communities of many)
   * from coming back short.
   */
  async nearest(db: Queryable, scope: Scope, queryVector: readonly number[], limit: number, minSimilarity: number): Promise<LegRow[]> {
    const pgvector = await this.pgvector(db);
    if (!pgvector || queryVector.length === 0 || limit <= 0) return [];
    const { schema } = pgvector;
    const dims = queryVector.length;
    const params: unknown[] = [JSON.stringify(queryVector), 1 - minSimilarity];
    const distance = `${this.vectorOf(schema, dims)} OPERATOR(${quoteIdent(schema)}.<=>) $1::${quoteIdent(schema)}.vector(${dims})`;
    const branches: string[] = [];
    if (scope.communityIds.length > 0) {
      params.push(scope.communityIds);
      branches.push(`(SELECT community_id, profile_id, ${distance} AS distance FROM search.documents
         WHERE ${this.predicate(dims, 'communities')} AND community_id = ANY($3::text[])
         ORDER BY ${distance} LIMIT ${Math.floor(limit)})`);
    }
    if (scope.includePublic) {
      branches.push(`(SELECT community_id, profile_id, ${distance} AS distance FROM search.documents
         WHERE ${this.predicate(dims, 'public')}
         ORDER BY ${distance} LIMIT ${Math.floor(limit)})`);
    }
    if (branches.length === 0) return [];
    // The floor applies to the neighbours found, not inside the scan: the index serves the order only.
    const sql = `SELECT community_id, profile_id FROM (${branches.join(' UNION ALL ')}) n
                  WHERE distance <= $2::float8
                  ORDER BY distance, profile_id, community_id LIMIT ${Math.floor(limit)}`;
    const run = async (q: Queryable) => {
      // Before 0.8.0 there is no iterative scan: a filtered branch may then come back short.
      if (pgvector.iterativeScan) await q.query(`SET LOCAL hnsw.iterative_scan = relaxed_order`);
      await q.query(`SET LOCAL hnsw.ef_search = ${Math.max(40, Math.min(1000, Math.floor(limit)))}`);
      return q.query<LegRow>(sql, params);
    };
    const database = db as Partial<Database>;
    return typeof database.transaction === 'function' ? database.transaction(run) : run(db);
  }
}
