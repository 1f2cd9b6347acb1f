// Enrichment messages → the JSON the contract publishes, shared by the member read, the own
// profile and the run endpoints.
import { Depth, RunItemStatus, RunKind, RunStatus, type MemberEnrichment, type Run, type RunItem } from '../../proto/gen/expertnet/enrichment/v1/enrichment_service.js';
import type { z } from 'zod';
import { ApiError } from './api-error.js';
import type { EnrichmentRun, RunItem as RunItemSchema } from './contract/enrichment.js';
import type { Depth as DepthSchema, MemberEnrichment as MemberEnrichmentSchema } from './contract/schemas.js';

export type DepthName = z.output<typeof DepthSchema>;
export type MemberEnrichmentView = z.output<typeof MemberEnrichmentSchema>;
export type RunView = z.output<typeof EnrichmentRun>;
export type RunItemView = z.output<typeof RunItemSchema>;

export const DEPTH_NAMES: Partial<Record<Depth, DepthName>> = {
  [Depth.DEPTH_QUICK]: 'quick',
  [Depth.DEPTH_STANDARD]: 'standard',
  [Depth.DEPTH_DEEP]: 'deep',
};

export const DEPTH_VALUES: Record<DepthName, Depth> = { quick: Depth.DEPTH_QUICK, standard: Depth.DEPTH_STANDARD, deep: Depth.DEPTH_DEEP };

/** A stored fault (not the caller's): answered as an internal error, never half a body. */
const internal = () => new ApiError(500, 'internal', 'internal error');

export function enrichmentView(e: MemberEnrichment | undefined): MemberEnrichmentView | null {
  if (!e) return null;
  const depth = DEPTH_NAMES[e.depth];
  const data: unknown = JSON.parse(e.dataJson || '{}');
  // The contract publishes an object; anything else is a fault of the stored data, not the caller's.
  if (!depth || !e.enrichedAt || typeof data !== 'object' || data === null || Array.isArray(data)) throw internal();
  return { depth, enriched_at: e.enrichedAt, data: data as Record<string, unknown> };
}

const RUN_STATUS: Partial<Record<RunStatus, RunView['status']>> = {
  [RunStatus.RUN_STATUS_QUEUED]: 'queued',
  [RunStatus.RUN_STATUS_RUNNING]: 'running',
  [RunStatus.RUN_STATUS_SUCCEEDED]: 'succeeded',
  [RunStatus.RUN_STATUS_FAILED]: 'failed',
};

const ITEM_STATUS: Partial<Record<RunItemStatus, RunItemView['status']>> = {
  [RunItemStatus.RUN_ITEM_STATUS_PENDING]: 'pending',
  [RunItemStatus.RUN_ITEM_STATUS_SUCCEEDED]: 'succeeded',
  [RunItemStatus.RUN_ITEM_STATUS_FAILED]: 'failed',
  [RunItemStatus.RUN_ITEM_STATUS_SKIPPED]: 'skipped',
};

export function runView(run: Run | undefined): RunView {
  const status = run && RUN_STATUS[run.status];
  if (!run || !status || !run.counts || !run.createdAt) throw internal();
  return {
    run_id: run.runId,
    kind: run.kind === RunKind.RUN_KIND_SELF ? 'self' : 'community',
    community_id: run.communityId || null,
    status,
    depth: DEPTH_NAMES[run.depth] ?? null,
    counts: { total: run.counts.total, succeeded: run.counts.succeeded, failed: run.counts.failed, skipped: run.counts.skipped },
    credits_charged: run.creditsCharged,
    created_at: run.createdAt,
    started_at: run.startedAt ?? null,
    finished_at: run.finishedAt ?? null,
  };
}

export function runItemView(item: RunItem): RunItemView {
  const status = ITEM_STATUS[item.status];
  if (!status) throw internal();
  return { profile_id: item.profileId, status, reason: item.reason || null, credits_charged: item.creditsCharged };
}
