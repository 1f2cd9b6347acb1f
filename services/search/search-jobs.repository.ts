// SQL for search jobs and the corpus. Nothing else: the rules live in search-jobs.ts and
// search.service.ts.
//
// Re-index runs (mark and sweep, migration 004): every document write stamps `touched_run` with the
// newest run there is, and pruning a run deletes the documents stamped below it. Both halves of
// that rule live here, beside each other, because they must agree.
//
// Claiming: a job is claimable while pending, or while running with an expired lease (its worker
// died). A claim bumps `attempts`, which is the job's fencing token: heartbeats, results and
// failures are stored only `WHERE attempts = <the token of that claim>`, so a worker that lost its
// lease can never overwrite the work of the claim that took over.
import type { DocumentRow } from './pipeline/pipeline.js';
import type { Queryable } from '../kit/db/database.js';

export type JobStatus = 'pending' | 'running' | 'complete' | 'failed';
export type JobScope = 'community' | 'all' | 'public';

/** A stored match (the API's match, before the edge names the fields). */
export interface StoredMatch {
  profileId: string;
  userId: string | null;
  name: string;
  headline: string | null;
  organization: string | null;
  location: string | null;
  avatarUrl: string | null;
  score: number;
  semanticScore: number;
  explanation: string | null;
  sharedCommunities: string[];
  /** Absent in jobs stored before the flag existed: read as false. */
  weakMatch?: boolean;
}

export interface JobRow {
  id: string;
  credential_id: string;
  caller: unknown;
  query: string;
  scope: JobScope;
  named_community_id: string | null;
  community_ids: string[];
  include_public: boolean;
  reach_ids: string[];
  result_limit: number;
  payer_type: string | null;
  payer_id: string | null;
  status: JobStatus;
  matches: StoredMatch[] | null;
  error: string | null;
  attempts: number;
  lease_until: Date | null;
  charged_at: Date | null;
  created_at: Date;
  finished_at: Date | null;
  expires_at: Date | null;
}

export interface NewJob {
  id: string;
  credentialId: string;
  caller: unknown;
  query: string;
  scope: JobScope;
  namedCommunityId: string | null;
  communityIds: string[];
  includePublic: boolean;
  reachIds: string[];
  limit: number;
  payer: { type: string; id: string } | null;
}

/** What indexing writes: a row of search.documents (the seam with ranking owns its shape). */
export type IndexedDocument = DocumentRow;

/** Jobs are kept this long after they finish, then answer 404 and are purged. */
export const JOB_RETENTION_SQL = "interval '1 hour'";

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

export function createSearchJobsRepository(db: Queryable) {
  return {
    async insert(job: NewJob): Promise<JobRow> {
      const rows = await db.query<JobRow>(
        `INSERT INTO search.search_jobs (id, credential_id, caller, query, scope, named_community_id, community_ids,
                                         include_public, reach_ids, result_limit, payer_type, payer_id)
         VALUES ($1, $2, $3::jsonb, $4, $5, $6, $7::text[], $8, $9::text[], $10, $11, $12)
         RETURNING *`,
        [job.id, job.credentialId, JSON.stringify(job.caller), job.query, job.scope, job.namedCommunityId, job.communityIds,
          job.includePublic, job.reachIds, job.limit, job.payer?.type ?? null, job.payer?.id ?? null],
      );
      return rows[0]!;
    },

    /** The job, when this credential started it and it has not expired. */
    async findForCredential(id: string, credentialId: string): Promise<JobRow | undefined> {
      const rows = await db.query<JobRow>(
        `SELECT * FROM search.search_jobs
          WHERE id = $1 AND credential_id = $2 AND (expires_at IS NULL OR expires_at > now())`,
        [id, credentialId],
      );
      return rows[0];
    },

    /** Jobs waiting for a worker or being worked on (the queue depth). */
    async countOpen(): Promise<number> {
      const rows = await db.query<{ n: number }>(`SELECT count(*)::int8 AS n FROM search.search_jobs WHERE status IN ('pending', 'running')`);
      return rows[0]?.n ?? 0;
    },

    async find(id: string): Promise<JobRow | undefined> {
      return (await db.query<JobRow>('SELECT * FROM search.search_jobs WHERE id = $1', [id]))[0];
    },

    /**
     * Claims one job (this one when `id` is given, else the oldest claimable) for `leaseMs`.
     * Undefined when there is none, or another worker holds it.
     */
    async claim(leaseMs: number, maxAttempts: number, id?: string): Promise<JobRow | undefined> {
      const rows = await db.query<JobRow>(
        `UPDATE search.search_jobs j
            SET status = 'running', attempts = j.attempts + 1, lease_until = now() + ($1::int * interval '1 millisecond')
          WHERE j.id = (
                SELECT id FROM search.search_jobs
                 WHERE (status = 'pending' OR (status = 'running' AND lease_until < now()))
                   AND attempts < $2 AND ($3::text IS NULL OR id = $3::text)
                 ORDER BY created_at
                 LIMIT 1
                   FOR UPDATE SKIP LOCKED)
        RETURNING j.*`,
        [leaseMs, maxAttempts, id ?? null],
      );
      return rows[0];
    },

    /** Running jobs whose worker died on their last allowed attempt: failed. Returns their ids. */
    async giveUpAbandoned(maxAttempts: number): Promise<string[]> {
      const rows = await db.query<{ id: string }>(
        `UPDATE search.search_jobs
            SET status = 'failed', error = 'the search worker stopped too many times', lease_until = NULL,
                finished_at = now(), expires_at = now() + ${JOB_RETENTION_SQL}
          WHERE status = 'running' AND lease_until < now() AND attempts >= $1
        RETURNING id`,
        [maxAttempts],
      );
      return rows.map((r) => r.id);
    },

    /** Extends the lease of this claim; false when the claim was lost (expired and taken over). */
    async heartbeat(id: string, attempt: number, leaseMs: number): Promise<boolean> {
      const rows = await db.query(
        `UPDATE search.search_jobs SET lease_until = now() + ($3::int * interval '1 millisecond')
          WHERE id = $1 AND status = 'running' AND attempts = $2 RETURNING id`,
        [id, attempt, leaseMs],
      );
      return rows.length === 1;
    },

    /** Stores the result of this claim; undefined when the claim was lost. */
    async complete(id: string, attempt: number, matches: StoredMatch[]): Promise<JobRow | undefined> {
      const rows = await db.query<JobRow>(
        `UPDATE search.search_jobs
            SET status = 'complete', matches = $3::jsonb, lease_until = NULL, finished_at = now(),
                expires_at = now() + ${JOB_RETENTION_SQL}
          WHERE id = $1 AND status = 'running' AND attempts = $2
        RETURNING *`,
        [id, attempt, JSON.stringify(matches)],
      );
      return rows[0];
    },

    async fail(id: string, attempt: number, error: string): Promise<JobRow | undefined> {
      const rows = await db.query<JobRow>(
        `UPDATE search.search_jobs
            SET status = 'failed', error = $3, lease_until = NULL, finished_at = now(), expires_at = now() + ${JOB_RETENTION_SQL}
          WHERE id = $1 AND status = 'running' AND attempts = $2
        RETURNING *`,
        [id, attempt, error],
      );
      return rows[0];
    },

    async markCharged(id: string): Promise<void> {
      await db.query('UPDATE search.search_jobs SET charged_at = now() WHERE id = $1 AND charged_at IS NULL', [id]);
    },

    /** Complete jobs whose charge has not been recorded (a crash or billing outage after storing). */
    async uncharged(limit: number): Promise<JobRow[]> {
      return db.query<JobRow>(
        `SELECT * FROM search.search_jobs WHERE status = 'complete' AND charged_at IS NULL ORDER BY finished_at LIMIT $1`,
        [limit],
      );
    },

    async purgeExpired(): Promise<number> {
      return (await db.query('DELETE FROM search.search_jobs WHERE expires_at <= now() RETURNING id')).length;
    },

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
     * Writes documents; a null enrichment_text keeps the text the document holds. Each write is
     * stamped with the newest re-index run (0 before any): a document written after a run began —
     * by the run or by any other path — is never swept by that run. One statement for the batch,
     * in key order: the term statistics (migration 007) are updated once for it, and two writers
     * lock rows in the same order. A document named twice is written once, as the later one (with
     * the earlier enrichment text when the later has none, as two writes in a row would leave it).
     */
    async upsertDocuments(docs: IndexedDocument[]): Promise<number> {
      const byKey = new Map<string, IndexedDocument>();
      for (const d of docs) {
        const key = JSON.stringify([d.community_id, d.profile_id]);
        const earlier = byKey.get(key);
        byKey.set(key, earlier && d.enrichment_text === null ? { ...d, enrichment_text: earlier.enrichment_text } : d);
      }
      const rows = [...byKey.values()].sort((x, y) =>
        x.community_id < y.community_id ? -1 : x.community_id > y.community_id ? 1 : x.profile_id < y.profile_id ? -1 : x.profile_id > y.profile_id ? 1 : 0,
      );
      if (rows.length === 0) return docs.length;
      const column = <K extends keyof IndexedDocument>(k: K) => rows.map((d) => d[k]);
      await db.query(
        `INSERT INTO search.documents (community_id, profile_id, user_id, name, headline, bio, organization, location,
                                       avatar_url, enrichment_text, updated_at, touched_run)
         SELECT d.community_id, d.profile_id, d.user_id, d.name, d.headline, d.bio, d.organization, d.location,
                d.avatar_url, d.enrichment_text, now(), (SELECT coalesce(max(id), 0) FROM search.reindex_runs)
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[])
                WITH ORDINALITY AS d(community_id, profile_id, user_id, name, headline, bio, organization, location, avatar_url, enrichment_text, n)
          ORDER BY d.n
         ON CONFLICT (community_id, profile_id) DO UPDATE SET
           user_id = EXCLUDED.user_id, name = EXCLUDED.name, headline = EXCLUDED.headline, bio = EXCLUDED.bio,
           organization = EXCLUDED.organization, location = EXCLUDED.location, avatar_url = EXCLUDED.avatar_url,
           enrichment_text = COALESCE(EXCLUDED.enrichment_text, search.documents.enrichment_text), updated_at = now(),
           touched_run = EXCLUDED.touched_run`,
        [
          column('community_id'), column('profile_id'), column('user_id'), column('name'), column('headline'), column('bio'),
          column('organization'), column('location'), column('avatar_url'), column('enrichment_text'),
        ],
      );
      return docs.length;
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
      const rows = await db.query<{ n: number }>(
        `WITH gone AS (DELETE FROM search.documents WHERE touched_run < $1 RETURNING 1)
         SELECT count(*)::int AS n FROM gone`,
        [run],
      );
      const removed = rows[0]?.n ?? 0;
      await db.query('UPDATE search.reindex_runs SET pruned_at = now(), removed = $2 WHERE id = $1', [run, removed]);
      return removed;
    },

    async removePublicDocument(profileId: string): Promise<number> {
      return (await db.query(`DELETE FROM search.documents WHERE community_id = '' AND profile_id = $1 RETURNING profile_id`, [profileId])).length;
    },
  };
}

export type SearchJobsRepository = ReturnType<typeof createSearchJobsRepository>;
