// Enrichment rows as proto messages: runs with their counts, their items, a person's stored
// enrichment data and when each member was enriched, and the depth enum by name. One mapping for
// every handler and domain module of the service.
import {
  Depth,
  RunItemStatus,
  RunKind,
  RunStatus,
  type EnrichedAt,
  type MemberEnrichment,
  type Run,
  type RunItem,
} from '../../proto/gen/expertnet/enrichment/v1/enrichment_service.js';
import type { Depth as DepthName } from './pipeline/index.js';
import type { EnrichmentDataRow, ItemRow, RunCounts, RunRow } from './runs.repository.js';

const DEPTHS: Record<DepthName, Depth> = { quick: Depth.DEPTH_QUICK, standard: Depth.DEPTH_STANDARD, deep: Depth.DEPTH_DEEP };

export function depthName(depth: Depth): DepthName | undefined {
  return (Object.keys(DEPTHS) as DepthName[]).find((d) => DEPTHS[d] === depth);
}

const STATUS: Record<RunRow['status'], RunStatus> = {
  queued: RunStatus.RUN_STATUS_QUEUED,
  running: RunStatus.RUN_STATUS_RUNNING,
  succeeded: RunStatus.RUN_STATUS_SUCCEEDED,
  failed: RunStatus.RUN_STATUS_FAILED,
};

const ITEM_STATUS: Record<ItemRow['status'], RunItemStatus> = {
  pending: RunItemStatus.RUN_ITEM_STATUS_PENDING,
  succeeded: RunItemStatus.RUN_ITEM_STATUS_SUCCEEDED,
  failed: RunItemStatus.RUN_ITEM_STATUS_FAILED,
  skipped: RunItemStatus.RUN_ITEM_STATUS_SKIPPED,
};

export function toRun(row: RunRow, counts: RunCounts): Run {
  return {
    runId: row.id,
    kind: row.kind === 'self' ? RunKind.RUN_KIND_SELF : RunKind.RUN_KIND_COMMUNITY,
    status: STATUS[row.status],
    depth: DEPTHS[row.depth],
    communityId: row.community_id ?? '',
    counts: { total: counts.total, succeeded: counts.succeeded, failed: counts.failed, skipped: counts.skipped },
    // The sum of the items' charges: a self run's metered charge is its one item's (markMetered).
    creditsCharged: counts.credits,
    createdAt: row.created_at.toISOString(),
    startedAt: row.started_at?.toISOString(),
    finishedAt: row.finished_at?.toISOString(),
  };
}

export function toItem(row: ItemRow): RunItem {
  return { profileId: row.profile_id, status: ITEM_STATUS[row.status], reason: row.reason ?? '', creditsCharged: row.credits_charged };
}

/** Stored enrichment data (a community's of a member, or a person's own) as its message. */
export function toMemberEnrichment(row: EnrichmentDataRow): MemberEnrichment {
  return { depth: DEPTHS[row.depth], enrichedAt: row.enriched_at.toISOString(), dataJson: JSON.stringify(row.data) };
}

/** When a member was enriched by the community. */
export function toEnrichedAt(row: { profile_id: string; enriched_at: Date }): EnrichedAt {
  return { profileId: row.profile_id, enrichedAt: row.enriched_at.toISOString() };
}
