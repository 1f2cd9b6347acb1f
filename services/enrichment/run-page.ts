// A run as its poll shows it (docs/ENRICHMENT.md): the run with its counts and a page of its items.
// One builder for every answer that carries a run: the poll (run-polls.ts), the start handlers
// (community-runs.ts, self-runs.ts) and the run's events (run-events.ts), whose data is the run as
// the poll reads it. It takes the runs repository, not the service context, so the event relay the
// context builds can use it without importing the context back.
import type { GetRunResponse } from '../../proto/gen/expertnet/enrichment/v1/enrichment_service.js';
import { toItem, toRun } from './enrichment-messages.js';
import type { RunRow, RunsRepository } from './runs.repository.js';

/** Items listed per page. */
const ITEMS_PAGE = 100;

/** The run with its counts, and its items after `itemsAfter` (a profile id; '' from the start). */
export async function runPage(runs: Pick<RunsRepository, 'counts' | 'items'>, row: RunRow, itemsAfter = ''): Promise<GetRunResponse> {
  const [counts, items] = await Promise.all([runs.counts(row.id), runs.items(row.id, itemsAfter, ITEMS_PAGE)]);
  return {
    run: toRun(row, counts),
    items: items.map(toItem),
    nextItemsAfter: items.length === ITEMS_PAGE ? items[items.length - 1]!.profile_id : '',
  };
}
