// Enrichment for the REST and MCP surfaces: start a self-enrichment run, start (or estimate) a
// community run, and poll either — the enrichment service asked as the caller (it re-checks the
// scope, write gating, reach, funds and the cooldown). Shapes: docs/API-DECISIONS.md.
import type { GetRunResponse } from '../../proto/gen/expertnet/enrichment/v1/enrichment_service.js';
import { fromRemote } from './api-error.js';
import type { z } from 'zod';
import type { CommunityRunStarted, DryRunEstimate, EnrichmentRequest, EnrichmentRunPoll } from './contract/enrichment.js';
import type { CallerContext, Edge } from './edge.js';
import { DEPTH_VALUES, runItemView, runView, type RunView } from './enrichment-view.js';

export type DryRunView = z.output<typeof DryRunEstimate>;
export type CommunityRunStartView = z.output<typeof CommunityRunStarted>;
export type RunPollView = z.output<typeof EnrichmentRunPoll>;

/** A run's poll (also the data of a run's events). */
export function runPollView(answer: GetRunResponse): RunPollView {
  return { ...runView(answer.run), items: answer.items.map(runItemView), next_items_after: answer.nextItemsAfter || null };
}

export type CommunityStartOutcome = { dryRun: true; estimate: DryRunView } | { dryRun: false; run: CommunityRunStartView };

export async function startSelfEnrichment(edge: Edge, ctx: CallerContext): Promise<RunView> {
  try {
    const { run } = await edge.clients.enrichment.startSelfRun({}, await edge.as(ctx));
    return runView(run);
  } catch (error) {
    throw fromRemote(error);
  }
}

export async function startCommunityEnrichment(
  edge: Edge,
  ctx: CallerContext,
  communityId: string,
  input: EnrichmentRequest,
): Promise<CommunityStartOutcome> {
  try {
    const answer = await edge.clients.enrichment.startCommunityRun(
      {
        communityId,
        depth: input.depth ? DEPTH_VALUES[input.depth] : 0,
        profileIds: input.profile_ids ?? [],
        joinedSince: input.joined_since,
        includeAlreadyEnriched: input.include_already_enriched ?? false,
        workflowKey: input.workflow_key ?? '',
        dryRun: input.dry_run ?? false,
      },
      await edge.as(ctx),
    );
    if (answer.estimate) {
      const e = answer.estimate;
      return {
        dryRun: true,
        estimate: {
          eligible_count: e.eligibleCount,
          total_members: e.totalMembers,
          estimated_max_credits_per_profile: e.estimatedMaxCreditsPerProfile ?? null,
          estimated_max_credits: e.estimatedMaxCredits ?? null,
        },
      };
    }
    return { dryRun: false, run: { ...runView(answer.run), eligible_count: answer.eligibleCount } };
  } catch (error) {
    throw fromRemote(error);
  }
}

/** A run poll: a community's run when communityId is given, else one of the caller's self runs. */
export async function getEnrichmentRun(
  edge: Edge,
  ctx: CallerContext,
  runId: string,
  options: { communityId?: string; itemsAfter?: string | undefined } = {},
): Promise<RunPollView> {
  try {
    const answer = await edge.clients.enrichment.getRun(
      { runId, communityId: options.communityId ?? '', itemsAfter: options.itemsAfter ?? '' },
      await edge.as(ctx),
    );
    return runPollView(answer);
  } catch (error) {
    throw fromRemote(error);
  }
}
