// SQL for the search corpus (search.documents) and its re-index runs. Nothing else: the rules live
// in indexing.ts and search-jobs.ts, and ranking reads the corpus through ./pipeline.
//
// Re-index runs (mark and sweep, migration 004): every document write stamps `touched_run` with the
// newest run there is, and pruning a run deletes the documents stamped below it. Both halves of
// that rule live here, beside each other, because they must agree.
//
// Lock order: every write of documents first takes the lock of each corpus it writes (lockCorpora),
// in one order, for the rest of its transaction. The BM25 statistics triggers (migration 007) then
// lock corpus and term rows under it; without it, an upsert — whose new and updated rows fire two
// statistics passes, each in key order but not in one order together — deadlocked against a
// concurrent writer of the same corpora (term-stats.test.ts).
import type { DocumentRow, PreparedVectors } from './pipeline/pipeline.js';
import { type DocumentKey, documentKey, NO_VECTORS } from './pipeline/vectors.js';
import type { Queryable } from '../kit/db/database.js';

/** What indexing writes: a row of search.documents (the seam with ranking owns its shape). */
export type IndexedDocument = DocumentRow;

/**
 * The documents as one write leaves them, in key order: a document named twice is written once,
 * as the later one (with the earlier enrichment text when the later has none, as two writes in a
 * row would leave it).
 */
export function distinctDocuments(docs: readonly IndexedDocument[]): IndexedDocument[] {
  const byKey = new Map<string, IndexedDocument>();
  for (const d of docs) {
    const key = documentKey(d);
    const earlier = byKey.get(key);
    byKey.set(key, earlier && d.enrichment_text === null ? { ...d, enrichment_text: earlier.enrichment_text } : d);
  }
  return [...byKey.values()].sort((x, y) =>
    x.community_id < y.community_id ? -1 : x.community_id > y.community_id ? 1 : x.profile_id < y.profile_id ? -1 : x.profile_id > y.profile_id ? 1 : 0,
  );
}

/** A re-index run as GetReindexRun reports it. */
export interface ReindexRunRow {
  id: number;
  started_at: Date;
  updated_at: Date;
  expected_documents: number;
  indexed_documents: number;
  embedded_documents: number;
  pruned_at: Date | null;
  removed: number | null;
}

/** The advisory lock space of corpus locks (the pair's first key; the second is the corpus's hash). */
const CORPUS_LOCK_SPACE = 7_400_201;

export function createSearchCorpusRepository(db: Queryable) {
  /** Locks these corpora ('' = public) until the transaction ends, in hash order (equal hashes are one lock). */
  const lockCorpora = async (corpora: readonly string[]): Promise<void> => {
    if (corpora.length === 0) return;
    await db.query(
      `SELECT pg_advisory_xact_lock(${CORPUS_LOCK_SPACE}, h)
         FROM (SELECT DISTINCT hashtext(c) AS h FROM unnest($1::text[]) AS c ORDER BY h OFFSET 0) AS locks`,
      [[...new Set(corpora)]],
    );
  };
  return {
    /** Of these profiles, those with a document in the given corpora (community ids; '' = public). */
    async profilesInCorpora(profileIds: string[], corpora: string[]): Promise<Set<string>> {
      if (profileIds.length === 0 || corpora.length === 0) return new Set();
      const rows = await db.query<{ profile_id: string }>(
        `SELECT DISTINCT profile_id FROM search.documents WHERE profile_id = ANY($1::text[]) AND community_id = ANY($2::text[])`,
        [profileIds, corpora],
      );
      return new Set(rows.map((r) => r.profile_id));
    },

    /** Per profile, which of the given communities hold it (its memberships the caller may read). */
    async communitiesOf(profileIds: string[], communityIds: string[]): Promise<Map<string, string[]>> {
      const result = new Map<string, string[]>();
      if (profileIds.length === 0 || communityIds.length === 0) return result;
      const rows = await db.query<{ profile_id: string; community_id: string }>(
        `SELECT profile_id, community_id FROM search.documents
          WHERE profile_id = ANY($1::text[]) AND community_id = ANY($2::text[]) AND community_id <> ''
          ORDER BY community_id`,
        [profileIds, communityIds],
      );
      for (const r of rows) result.set(r.profile_id, [...(result.get(r.profile_id) ?? []), r.community_id]);
      return result;
    },

    /**
     * Writes documents (`distinctDocuments` of them) with the vectors prepared for them; a null
     * enrichment_text keeps the text the document holds. Each write is stamped with the newest
     * re-index run (0 before any): a document written after a run began — by the run or by any
     * other path — is never swept by that run. One statement for the batch, in key order: the term
     * statistics (migration 007) are updated once for it, and two writers lock rows in the same
     * order. A prepared vector is stored with its text (migration 011), unless the document keeps
     * an enrichment text the vector was not made from. Call inside a transaction (lock order,
     * above). Returns the documents written that hold no vector of `vectors.model`.
     *
     * Documents the store holds are updated, the others inserted: an INSERT … ON CONFLICT DO UPDATE
     * runs the row trigger that derives the text columns (migration 010) for the row it tries to
     * insert, and again for the update it turns into, so every document already held had its text
     * analysed twice. The insert keeps its ON CONFLICT for a document inserted by a concurrent
     * writer that holds no corpus lock.
     */
    async upsertDocuments(docs: IndexedDocument[], vectors: PreparedVectors = NO_VECTORS): Promise<DocumentKey[]> {
      const rows = distinctDocuments(docs);
      if (rows.length === 0) return [];
      const column = <K extends keyof IndexedDocument>(k: K) => rows.map((d) => d[k]);
      await lockCorpora(column('community_id'));
      // Whether a prepared vector is stored (`given` is the row as written, `held` the row as it was).
      const vectorKept = (given: string, held: string) =>
        `${given}.embedding IS NOT NULL AND (${given}.enrichment_text IS NOT NULL OR ${held}.enrichment_text IS NULL)`;
      return db.query<DocumentKey>(
        `WITH given AS MATERIALIZED (
           SELECT d.*, (SELECT coalesce(max(id), 0) FROM search.reindex_runs) AS touched_run
             FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[])
                  WITH ORDINALITY AS d(community_id, profile_id, user_id, name, headline, bio, organization, location, avatar_url, enrichment_text, embedding, n)),
         updated AS (
           UPDATE search.documents AS held SET
             user_id = given.user_id, name = given.name, headline = given.headline, bio = given.bio,
             organization = given.organization, location = given.location, avatar_url = given.avatar_url,
             enrichment_text = COALESCE(given.enrichment_text, held.enrichment_text), updated_at = now(),
             touched_run = given.touched_run,
             embedding = CASE WHEN ${vectorKept('given', 'held')} THEN given.embedding::real[] ELSE held.embedding END,
             embedding_model = CASE WHEN ${vectorKept('given', 'held')} THEN $12 ELSE held.embedding_model END
             FROM given
            WHERE held.community_id = given.community_id AND held.profile_id = given.profile_id
           RETURNING held.community_id, held.profile_id, held.embedding IS NOT NULL AND held.embedding_model = $12 AS vectored),
         inserted AS (
           INSERT INTO search.documents (community_id, profile_id, user_id, name, headline, bio, organization, location,
                                         avatar_url, enrichment_text, updated_at, touched_run, embedding, embedding_model)
           SELECT d.community_id, d.profile_id, d.user_id, d.name, d.headline, d.bio, d.organization, d.location,
                  d.avatar_url, d.enrichment_text, now(), d.touched_run,
                  d.embedding::real[], CASE WHEN d.embedding IS NOT NULL THEN $12 END
             FROM given AS d
            WHERE NOT EXISTS (SELECT 1 FROM updated u WHERE u.community_id = d.community_id AND u.profile_id = d.profile_id)
            ORDER BY d.n
           ON CONFLICT (community_id, profile_id) DO UPDATE SET
             user_id = EXCLUDED.user_id, name = EXCLUDED.name, headline = EXCLUDED.headline, bio = EXCLUDED.bio,
             organization = EXCLUDED.organization, location = EXCLUDED.location, avatar_url = EXCLUDED.avatar_url,
             enrichment_text = COALESCE(EXCLUDED.enrichment_text, search.documents.enrichment_text), updated_at = now(),
             touched_run = EXCLUDED.touched_run,
             embedding = CASE WHEN ${vectorKept('EXCLUDED', 'search.documents')} THEN EXCLUDED.embedding ELSE search.documents.embedding END,
             embedding_model = CASE WHEN ${vectorKept('EXCLUDED', 'search.documents')} THEN EXCLUDED.embedding_model ELSE search.documents.embedding_model END
           RETURNING community_id, profile_id, embedding IS NOT NULL AND embedding_model = $12 AS vectored)
         SELECT community_id, profile_id FROM updated WHERE NOT vectored
         UNION ALL
         SELECT community_id, profile_id FROM inserted WHERE NOT vectored`,
        [
          column('community_id'), column('profile_id'), column('user_id'), column('name'), column('headline'), column('bio'),
          column('organization'), column('location'), column('avatar_url'), column('enrichment_text'),
          rows.map((d) => vectors.byKey.get(documentKey(d)) ?? null), vectors.model,
        ],
      );
    },

    /**
     * Opens a re-index run; its id is the mark documents written from now on carry (or a newer one).
     * `expectedDocuments` (0: not known) is only for progress reports.
     */
    async beginReindexRun(expectedDocuments = 0): Promise<number> {
      return (await db.query<{ id: number }>('INSERT INTO search.reindex_runs (expected_documents) VALUES ($1) RETURNING id', [expectedDocuments]))[0]!.id;
    },

    /** Counts a run's indexed batch: its documents, and how many of them got a new vector. */
    async recordReindexProgress(run: number, indexed: number, embedded: number): Promise<void> {
      await db.query(
        `UPDATE search.reindex_runs
            SET indexed_documents = indexed_documents + $2, embedded_documents = embedded_documents + $3, updated_at = now()
          WHERE id = $1`,
        [run, indexed, embedded],
      );
    },

    /** A run's progress (the newest run when `run` is 0); undefined when there is none. */
    async findReindexRun(run: number): Promise<ReindexRunRow | undefined> {
      const rows = await db.query<ReindexRunRow>(
        `SELECT id::int AS id, started_at, updated_at, expected_documents::float8 AS expected_documents,
                indexed_documents::float8 AS indexed_documents, embedded_documents::float8 AS embedded_documents, pruned_at, removed
           FROM search.reindex_runs WHERE ($1::bigint = 0 OR id = $1) ORDER BY id DESC LIMIT 1`,
        [run],
      );
      return rows[0];
    },

    /**
     * The run, locked for the rest of the transaction: FOR SHARE by the run's batches (they may
     * write concurrently), FOR UPDATE by its prune — so no batch of a run writes after its sweep.
     */
    async lockReindexRun(run: number, mode: 'share' | 'update'): Promise<{ id: number; pruned_at: Date | null; removed: number | null } | undefined> {
      const rows = await db.query<{ id: number; pruned_at: Date | null; removed: number | null }>(
        `SELECT id, pruned_at, removed FROM search.reindex_runs WHERE id = $1 FOR ${mode === 'share' ? 'SHARE' : 'UPDATE'}`,
        [run],
      );
      return rows[0];
    },

    /**
     * The sweep: deletes every document not written since the run began (stamped below it), and
     * records the run as pruned. A document being rewritten concurrently is re-checked by PostgreSQL
     * once its writer commits, and kept. Call inside a transaction, after lockReindexRun(run, 'update').
     */
    async pruneReindexRun(run: number): Promise<number> {
      // Every corpus (the sweep may reach any); one made after this read holds only newer documents.
      await lockCorpora((await db.query<{ community_id: string }>('SELECT community_id FROM search.corpus_stats')).map((r) => r.community_id));
      const rows = await db.query<{ n: number }>(
        `WITH gone AS (DELETE FROM search.documents WHERE touched_run < $1 RETURNING 1)
         SELECT count(*)::int AS n FROM gone`,
        [run],
      );
      const removed = rows[0]?.n ?? 0;
      await db.query('UPDATE search.reindex_runs SET pruned_at = now(), removed = $2 WHERE id = $1', [run, removed]);
      return removed;
    },

    /** Call inside a transaction (lock order, above). */
    async removePublicDocument(profileId: string): Promise<number> {
      await lockCorpora(['']);
      return (await db.query(`DELETE FROM search.documents WHERE community_id = '' AND profile_id = $1 RETURNING profile_id`, [profileId])).length;
    },

    /** A community's document of a person (its erasure); the public corpus ('') is never named here. Call inside a transaction. */
    async eraseCommunityDocument(communityId: string, profileId: string): Promise<number> {
      await lockCorpora([communityId]);
      return (await db.query('DELETE FROM search.documents WHERE community_id = $1 AND profile_id = $2 RETURNING profile_id', [communityId, profileId])).length;
    },
  };
}

export type SearchCorpusRepository = ReturnType<typeof createSearchCorpusRepository>;
