// SQL for search jobs (search.search_jobs). Nothing else: the rules live in search-jobs.ts and
// search-requests.ts; the corpus is search-corpus.repository.ts. Jobs are a leased queue
// (kit/jobs/leased-queue.ts): claims, heartbeats and a job's end are fenced by its `attempts`.
import type { Match } from '../../proto/gen/expertnet/search/v1/search_service.js';
import type { Queryable } from '../kit/db/database.js';
import { createLeasedQueue, type LeasedTable, type LeasePolicy } from '../kit/jobs/leased-queue.js';

export type JobStatus = 'pending' | 'running' | 'complete' | 'failed';
export type JobScope = 'community' | 'all' | 'public';

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
  /** The matches of a complete job, as the JSON of their messages (read them with Match.fromJSON). */
  matches: Match[] | null;
  error: string | null;
  attempts: number;
  lease_until: Date | null;
  charged_at: Date | null;
  created_at: Date;
  finished_at: Date | null;
  expires_at: Date | null;
  /** The request that started the search; null for jobs from before it was kept. */
  request_id: string | null;
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
  /** The starting request's id (X-Request-Id), handed on to the charge. */
  requestId?: string;
}

/** Jobs are kept this long after they finish, then answer 404 and are purged. */
const JOB_RETENTION_SQL = "interval '1 hour'";

/** Search jobs as a leased queue: pending until claimed; a finished job expires after its retention. */
export const SEARCH_JOBS: LeasedTable = {
  table: 'search.search_jobs',
  waiting: 'pending',
  abandoned: { status: 'failed', error: 'the search worker stopped too many times' },
  onEnd: `expires_at = now() + ${JOB_RETENTION_SQL}`,
  // Its event, in the statement that ends it (docs/WEBHOOKS.md).
  events: { outbox: 'search.event_outbox', type: `CASE status WHEN 'complete' THEN 'search.completed' WHEN 'failed' THEN 'search.failed' END` },
};

export function createSearchJobQueue(db: Queryable, policy: LeasePolicy) {
  return createLeasedQueue<JobRow>(db, SEARCH_JOBS, policy);
}

export function createSearchJobsRepository(db: Queryable) {
  return {
    async insert(job: NewJob): Promise<JobRow> {
      const rows = await db.query<JobRow>(
        `INSERT INTO search.search_jobs (id, credential_id, caller, query, scope, named_community_id, community_ids,
                                         include_public, reach_ids, result_limit, payer_type, payer_id, request_id)
         VALUES ($1, $2, $3::jsonb, $4, $5, $6, $7::text[], $8, $9::text[], $10, $11, $12, $13)
         RETURNING *`,
        [job.id, job.credentialId, JSON.stringify(job.caller), job.query, job.scope, job.namedCommunityId, job.communityIds,
          job.includePublic, job.reachIds, job.limit, job.payer?.type ?? null, job.payer?.id ?? null, job.requestId || null],
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

    async find(id: string): Promise<JobRow | undefined> {
      return (await db.query<JobRow>('SELECT * FROM search.search_jobs WHERE id = $1', [id]))[0];
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
      // A job whose event still waits for the relay is kept until it is sent (its data is the job).
      return (
        await db.query(
          `DELETE FROM search.search_jobs j WHERE expires_at <= now()
              AND NOT EXISTS (SELECT 1 FROM search.event_outbox o WHERE o.subject_id = j.id) RETURNING id`,
        )
      ).length;
    },
  };
}

export type SearchJobsRepository = ReturnType<typeof createSearchJobsRepository>;
