// The runs' events (docs/WEBHOOKS.md): a run's end writes enrichment_run.* or
// self_enrichment_run.* to enrichment.event_outbox in the same statement (ENRICHMENT_RUNS.events);
// this relay sends them, each with the run as its poll shows it (built by run-page.ts, as the poll's
// answer is), to the event log the communities service keeps: a community run's visible to
// credentials reaching its community, a self run's to its person.
import type { RecordedEvent } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { createOutboxRelay, type OutboxRow } from '../kit/events/outbox.js';
import { asService } from '../kit/grpc/acting.js';
import type { ServiceDeps } from '../kit/service-deps.js';
import { runPage } from './run-page.js';
import { createRunsRepository } from './runs.repository.js';

type Deps = Pick<ServiceDeps, 'db' | 'clients' | 'deadlineMs' | 'logger'>;

export function createRunEventRelay(deps: Deps) {
  const runs = createRunsRepository(deps.db);
  return createOutboxRelay({
    db: deps.db,
    table: 'enrichment.event_outbox',
    logger: deps.logger,
    async build(rows: OutboxRow[]): Promise<RecordedEvent[]> {
      // The batch's runs read at once, not one after another.
      const built = await Promise.all(rows.map(async (row): Promise<RecordedEvent | undefined> => {
        const run = await runs.find(row.subject_id);
        if (!run) return undefined;
        const event = { id: row.id, type: row.type, createdAt: row.created_at.toISOString(), run: await runPage(runs, run) };
        return { event, credentialId: '', userId: run.kind === 'self' ? (run.user_id ?? '') : '', communityId: run.community_id ?? '' };
      }));
      return built.filter((e): e is RecordedEvent => e !== undefined);
    },
    async send(events) {
      await deps.clients.communities.recordEvents({ events }, asService('enrichment', undefined, deps.deadlineMs));
    },
  });
}
