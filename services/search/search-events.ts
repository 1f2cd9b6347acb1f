// The search's events (docs/WEBHOOKS.md): a job's end writes search.completed or search.failed to
// search.event_outbox in the same statement (SEARCH_JOBS.events); this relay sends them, each with
// the job as its poll shows it, to the event log the communities service keeps, visible to the key
// that started the search.
import { Caller } from '../../proto/gen/expertnet/common/v1/common.js';
import type { RecordedEvent } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { createOutboxRelay, type OutboxRow } from '../kit/events/outbox.js';
import { asService } from '../kit/grpc/acting.js';
import type { ServiceDeps } from '../kit/service-deps.js';
import type { JobRow } from './search-jobs.repository.js';
import { toJob } from './search-messages.js';

export const SEARCH_OUTBOX = 'search.event_outbox';

type Deps = Pick<ServiceDeps, 'db' | 'clients' | 'deadlineMs' | 'logger'>;

export function createSearchEventRelay(deps: Deps) {
  return createOutboxRelay({
    db: deps.db,
    table: SEARCH_OUTBOX,
    logger: deps.logger,
    async build(rows: OutboxRow[]): Promise<RecordedEvent[]> {
      const jobs = await deps.db.query<JobRow>('SELECT * FROM search.search_jobs WHERE id = ANY($1::text[])', [rows.map((r) => r.subject_id)]);
      const byId = new Map(jobs.map((j) => [j.id, j]));
      return rows.flatMap((row) => {
        const job = byId.get(row.subject_id);
        // A job is kept while its event waits (purgeExpired); one gone anyway has nothing to show.
        if (!job) return [];
        // The credential's owner (kept with the job's caller) receives the event at its webhook endpoints.
        const credentialOwner = Caller.fromJSON(job.caller ?? {}).owner;
        const event = { id: row.id, type: row.type, createdAt: row.created_at.toISOString(), search: toJob(job) };
        return [{ event, credentialId: job.credential_id, userId: '', communityId: '', credentialOwner }];
      });
    },
    async send(events) {
      await deps.clients.communities.recordEvents({ events }, asService('search', undefined, deps.deadlineMs));
    },
  });
}
