// The enrichment tools: POST /v1/me/enrich, POST /v1/communities/{id}/enrich (two tools: the
// estimate is its dry run) and the two run polls (one tool, the community_id argument choosing).
import {
  EnrichmentRequest,
  getCommunityEnrichmentRunEndpoint,
  getSelfEnrichmentRunEndpoint,
  RunParams,
  RunPollQuery,
  startCommunityEnrichmentEndpoint,
  startSelfEnrichmentEndpoint,
} from '../../core/contract/enrichment.js';
import { ApiError } from '../../core/api-error.js';
import type { Edge } from '../../core/edge.js';
import { getEnrichmentRun, startCommunityEnrichment, startSelfEnrichment } from '../../core/enrichment.js';
import { defineTool, READ_ONLY, type ToolArgs, type ToolSpec } from '../tool-spec.js';
import { communityIdArg } from './arguments.js';

/** The community enrichment options: the REST body's fields but dry_run, which the tool chooses. */
const { dry_run: _chosenByTheTool, ...enrichmentOptions } = EnrichmentRequest.shape;
/** The REST request of a community start or estimate. */
const communityRun = (dryRun: boolean) => ({ community_id, ...options }: ToolArgs) => ({ params: { id: community_id }, body: { ...options, dry_run: dryRun } });
/** A run's state in one line, for a client following its progress (progress.ts). */
export function runProgressLine(run: { run_id: string; status: string; counts: { total: number; succeeded: number; failed: number; skipped: number } }): string {
  const { total, succeeded, failed, skipped } = run.counts;
  return `run ${run.run_id} ${run.status}: ${succeeded + failed + skipped} of ${total} people done (${succeeded} succeeded, ${failed} failed, ${skipped} skipped)`;
}

/** The service answered the other kind of outcome than asked for: a fault, never half a body. */
const unexpectedOutcome = () => new ApiError(500, 'internal', 'internal error');

export function enrichmentTools(edge: Edge, withIdempotency: boolean): ToolSpec[] {
  return [
    defineTool({
      name: 'enrich_my_profile',
      title: 'Enrich my own profile',
      description:
        'Starts a self-enrichment run on the profile of the user behind this credential (it can target nobody else): the standard tier, from the person’s own data plus ORCID and OpenAlex, written onto the own profile (see get_my_profile). ' +
        'Answers the queued run; poll it with get_enrichment_run (run_id only, no community_id) until status is succeeded or failed. ' +
        'NOT idempotent: every call starts a new run, and an owner on a paid plan is charged 1 credit per run, so do not call it again to retry or to check progress. ' +
        'An owner without a paid plan is not charged but may start one run per 30 days: another call inside that window fails with rate_limited and `available_at` (when the next run is possible). ' +
        'Needs scope self:enrich. Fails with not_found when the user has no profile, forbidden for an organization key (no own profile).',
      endpoint: () => startSelfEnrichmentEndpoint,
      input: {},
      request: (args) => ({ body: args }),
      // Each call starts (and may charge) a new run.
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false, title: 'Enrich my own profile' },
      run: async (ctx, _input, progress) => {
        const run = await startSelfEnrichment(edge, ctx);
        progress.report(runProgressLine(run));
        return run;
      },
    }),
    defineTool({
      name: 'estimate_community_enrichment',
      title: 'Estimate a community enrichment run',
      description:
        'Estimates a community enrichment run without starting or charging anything (a dry run): eligible_count (members the run would enrich, of total_members) and the exact cost, ' +
        'estimated_max_credits_per_profile (the flat price of the depth tier) and estimated_max_credits (that price × eligible_count). Without depth it only counts people and the estimates are null. ' +
        'Takes the same options as start_community_enrichment: call it first, with the options you mean to start with. ' +
        'Needs scope enrich:write and a community the credential may write to (otherwise forbidden); unlike a start it needs no API write attestation.',
      endpoint: () => startCommunityEnrichmentEndpoint,
      input: { community_id: communityIdArg, ...enrichmentOptions },
      request: communityRun(true),
      // A dry run changes nothing.
      annotations: { ...READ_ONLY, title: 'Estimate a community enrichment run' },
      run: async (ctx, { params, body }) => {
        const outcome = await startCommunityEnrichment(edge, ctx, params.id, body);
        if (!outcome.dryRun) throw unexpectedOutcome();
        return outcome.estimate;
      },
    }),
    defineTool({
      name: 'start_community_enrichment',
      title: 'Enrich community members',
      description:
        'Starts an enrichment run over members of a community the credential controls, and answers the queued run with eligible_count; poll it with get_enrichment_run (with community_id) until status is succeeded or failed. ' +
        'depth is required (quick, standard or deep; without it the call fails with invalid_request). It sets a flat price per enriched person (by default quick 1, standard 3, deep 8 credits), charged to the community’s billing owner as each person is enriched; people skipped or whose enrichment failed are not charged. ' +
        'Call estimate_community_enrichment first with the same options: it gives the exact total without charging. ' +
        'By default every member not yet enriched at that depth or a deeper one is included; narrow with profile_ids or joined_since, or add include_already_enriched. ' +
        'NOT idempotent: every call starts (and charges for) a new run. ' +
        (withIdempotency
          ? 'Pass an `idempotency_key` to make a retry safe: the same key with the same arguments within 48 hours returns the first run instead of starting another. '
          : '') +
        'Needs scope enrich:write; communities whose API writes are not enabled answer unprocessable or owner_consent_required; a payer that cannot cover the run may be refused with insufficient_credits, naming the payer.',
      endpoint: () => startCommunityEnrichmentEndpoint,
      input: { community_id: communityIdArg, ...enrichmentOptions },
      request: communityRun(false),
      // Not idempotent: each call starts (and charges for) a new run.
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false, title: 'Enrich community members' },
      run: async (ctx, { params, body }, progress) => {
        const outcome = await startCommunityEnrichment(edge, ctx, params.id, body);
        if (outcome.dryRun) throw unexpectedOutcome();
        progress.report(runProgressLine(outcome.run));
        return outcome.run;
      },
    }),
    defineTool({
      name: 'get_enrichment_run',
      title: 'Poll an enrichment run',
      description:
        'Reports an enrichment run: status (queued or running: poll again in a few seconds; succeeded or failed: final), counts of people, credits charged so far, and up to 100 of its people with their status and reason. ' +
        'For a community run (from start_community_enrichment) pass its community_id: needs scope enrich:read and a community within reach. ' +
        'For your own self-enrichment run (from enrich_my_profile) omit community_id: needs scope self:enrich. ' +
        'A run asked for the wrong way (a community run without its community_id, another community, another caller’s self run) or an unknown id fails with not_found. ' +
        'When next_items_after is not null, pass it as items_after for the next people.',
      endpoint: (args) => (args.community_id === undefined ? getSelfEnrichmentRunEndpoint : getCommunityEnrichmentRunEndpoint),
      input: {
        run_id: RunParams.shape.run_id.describe('Run id, as answered by enrich_my_profile or start_community_enrichment.'),
        community_id: communityIdArg.optional().describe('The community of a community run (its `community_id`); omit it for a self-enrichment run.'),
        ...RunPollQuery.shape,
      },
      request: ({ community_id, run_id, ...query }) => ({ params: community_id === undefined ? { run_id } : { id: community_id, run_id }, query }),
      annotations: { ...READ_ONLY, title: 'Poll an enrichment run' },
      run: async (ctx, { params, query }, progress) => {
        const run = await getEnrichmentRun(edge, ctx, params.run_id, { communityId: 'id' in params ? (params.id as string) : undefined, itemsAfter: query.items_after });
        progress.report(runProgressLine(run));
        return run;
      },
    }),
  ];
}
