// Enrichment runs: self-enrichment of the caller's own profile (POST /v1/me/enrich) and
// community enrichment over members (POST /v1/communities/{id}/enrich, with a dry-run estimate),
// each with its run poll.
import { z } from 'zod';
import { CommunityParams } from './members.js';
import { communityId, defineEndpoint, Depth, Id, IdempotencyKey, profileId, Timestamp } from './schemas.js';

const runId = () => Id.describe('Run id.');

export const RunParams = z.object({ run_id: runId() });
export const RunPollQuery = z.strictObject({
  items_after: profileId().optional().describe('List the items after this profile id (the `next_items_after` of the previous poll).'),
});
export const CommunityRunParams = z.object({ id: communityId(), run_id: runId() });

export const EnrichmentRun = z
  .object({
    run_id: runId(),
    kind: z.enum(['self', 'community']).describe('Self-enrichment of the caller, or enrichment of community members.'),
    community_id: communityId().nullable().describe('The community of a community run; null for a self run.'),
    status: z
      .enum(['queued', 'running', 'succeeded', 'failed'])
      .describe('`queued` and `running` are in progress; `succeeded` and `failed` are final.'),
    depth: Depth.nullable().describe('Depth tier of the run; null when none applies.'),
    counts: z
      .object({
        total: z.number().int().min(0).describe('Profiles selected for the run.'),
        succeeded: z.number().int().min(0).describe('Profiles enriched.'),
        failed: z.number().int().min(0).describe('Profiles whose enrichment failed.'),
        skipped: z.number().int().min(0).describe('Profiles left out, each with its reason (already enriched, not a member, erased meanwhile).'),
      })
      .describe('Progress of the run, per profile.'),
    credits_charged: z.number().int().min(0).describe('Credits charged for the run so far.'),
    created_at: Timestamp.describe('When the run was accepted.'),
    started_at: Timestamp.nullable().describe('When work started; null while queued.'),
    finished_at: Timestamp.nullable().describe('When the run reached a final status; null before.'),
  })
  .describe('An enrichment run and its progress.');

export const RunItem = z
  .object({
    profile_id: profileId(),
    status: z.enum(['pending', 'succeeded', 'failed', 'skipped']).describe('`pending` until the run reaches the person.'),
    reason: z.string().nullable().describe('Why the person failed or was skipped; null otherwise.'),
    credits_charged: z.number().int().min(0).describe('Credits charged for this person (the flat tier price once enriched).'),
  })
  .describe('One person of a run.');

export const CommunityRunStarted = EnrichmentRun.extend({
  eligible_count: z.number().int().min(0).describe('Members the run will enrich (the others selected are skipped, with reasons).'),
}).describe('A community enrichment run, just queued.');

export const EnrichmentRunPoll = EnrichmentRun.extend({
  items: z.array(RunItem).describe('Up to 100 of the run’s people in profile id order, after `items_after`.'),
  next_items_after: profileId().nullable().describe('Pass as `items_after` for the next items; null when there are no more.'),
}).describe('An enrichment run, its progress and a page of its people.');

/** POST /v1/me/enrich takes no options: the run is always about the caller. */
export const SelfEnrichmentRequest = z
  .strictObject({})
  .describe('No options: a self-enrichment run always targets the caller. The body may be omitted or `{}`.');

export const EnrichmentRequest = z
  .strictObject({
    depth: Depth.optional().describe('Depth tier, which sets the flat price per enriched person. Required to start a run; a dry run without it only counts people.'),
    profile_ids: z
      .array(profileId())
      .max(10_000)
      .optional()
      .describe('Enrich only these people (at most 10,000). A person who is not a member is listed in the run as skipped.'),
    joined_since: Timestamp.optional().describe('Enrich only members who joined at or after this time.'),
    include_already_enriched: z
      .boolean()
      .optional()
      .describe('Also enrich members this community already enriched at this depth or a deeper one (by default they are skipped).'),
    workflow_key: z.literal('smart_enrich').optional().describe('The enrichment workflow; `smart_enrich` is the only one offered.'),
    dry_run: z.boolean().optional().describe('When true nothing is started: the answer is a 200 estimate.'),
  })
  .describe('Community enrichment options. Every field is optional and they combine; the body may be omitted. Unknown fields are refused.');
export type EnrichmentRequest = z.infer<typeof EnrichmentRequest>;

export const DryRunEstimate = z
  .object({
    eligible_count: z.number().int().min(0).describe('Members the run would enrich.'),
    total_members: z.number().int().min(0).describe('Members of the community.'),
    estimated_max_credits_per_profile: z
      .number()
      .int()
      .min(0)
      .nullable()
      .describe('Charge per enriched profile: the flat price of the depth tier. Null without `depth` or for an unpriced tier.'),
    estimated_max_credits: z
      .number()
      .int()
      .min(0)
      .nullable()
      .describe('Total charge if every eligible member is enriched. Null under the same conditions.'),
  })
  .describe('Estimate of a community enrichment run (dry run). The figures are exact flat per-tier charges despite "max" in their names.');

const IdempotencyHeaders = z.object({ 'idempotency-key': IdempotencyKey.optional() });

export const startSelfEnrichmentEndpoint = defineEndpoint({
  method: 'POST',
  path: '/v1/me/enrich',
  operationId: 'startSelfEnrichment',
  tag: 'Enrichment',
  summary: "Enrich the caller's own profile",
  description:
    "Starts a self-enrichment run on the caller's own profile; it can target nobody else. Owners on a paid plan are charged 1 credit; others are not charged but may run it once per 30 days. `Idempotency-Key` is ignored: a retried call may start a second run.",
  scope: 'self:enrich',
  mcpTools: ['enrich_my_profile'],
  body: { schema: SelfEnrichmentRequest, required: false },
  success: { 202: { description: 'The run is queued; poll the `Location`.', body: EnrichmentRun } },
  errors: {
    400: { description: 'The body is unreadable (`bad_request`) or carries fields (`invalid_request`).' },
    402: { description: 'Credit enforcement is armed and the payer cannot cover the run. The body names the payer.' },
    403: { description: 'The credential lacks `self:enrich` (a plain read key does not have it).' },
    404: { description: 'The caller has no profile of its own.' },
    413: { description: 'The body is larger than 1 MiB.' },
    429: {
      description:
        'The rate limit is exhausted (wait `Retry-After`), or an owner without a paid plan is inside the 30-day cooldown (`error.available_at` says when the next run is possible).',
    },
  },
});

export const getSelfEnrichmentRunEndpoint = defineEndpoint({
  method: 'GET',
  path: '/v1/me/enrich/runs/{run_id}',
  operationId: 'getSelfEnrichmentRun',
  tag: 'Enrichment',
  summary: 'Poll a self-enrichment run',
  description: "Returns the status and progress of one of the caller's self-enrichment runs.",
  scope: 'self:enrich',
  mcpTools: ['get_enrichment_run'],
  params: RunParams,
  query: RunPollQuery,
  success: { 200: { description: 'The run and a page of its people.', body: EnrichmentRunPoll } },
  errors: {
    400: { description: 'An invalid `items_after`.' },
    403: { description: 'The credential lacks `self:enrich`.' },
    404: { description: 'No such run for this caller.' },
  },
});

export const startCommunityEnrichmentEndpoint = defineEndpoint({
  method: 'POST',
  path: '/v1/communities/{id}/enrich',
  operationId: 'startCommunityEnrichment',
  tag: 'Enrichment',
  summary: 'Enrich community members',
  description:
    "Starts an enrichment run over members of a community the caller controls, or with `dry_run` only estimates it. Each enriched profile is charged the flat price of the run's depth tier to the community's billing owner. Honors `Idempotency-Key`.",
  scope: 'enrich:write',
  mcpTools: ['estimate_community_enrichment', 'start_community_enrichment'],
  params: CommunityParams,
  headers: IdempotencyHeaders,
  idempotent: true,
  body: { schema: EnrichmentRequest, required: false },
  success: {
    200: { description: 'Dry run: nothing was started.', body: DryRunEstimate },
    202: { description: 'The run is queued; poll the `Location`.', body: CommunityRunStarted },
  },
  errors: {
    400: {
      description:
        'The body is unreadable (`bad_request`) or breaks a rule (`invalid_request`): an invalid or unknown field, a start without `depth`, or an invalid `Idempotency-Key`.',
    },
    402: { description: "Credit enforcement is armed and the community's billing owner cannot cover the run. The body names the payer." },
    403: {
      description:
        'The credential lacks `enrich:write`, the community is outside its reach or archived, or the key is neither owned by the community’s billing owner nor (for a personal key) held by a community admin.',
    },
    409: { description: 'A call with the same `Idempotency-Key` is still in progress; retry after `Retry-After`.' },
    413: { description: 'The body is larger than 1 MiB.' },
    422: {
      description:
        'Writes through the API are not enabled for this community (`unprocessable`), or they need the owner’s consent, which has now been requested (`owner_consent_required`; retry once approved). Also: the `Idempotency-Key` was already used with a different body (`unprocessable`).',
    },
  },
});

export const getCommunityEnrichmentRunEndpoint = defineEndpoint({
  method: 'GET',
  path: '/v1/communities/{id}/enrich/runs/{run_id}',
  operationId: 'getCommunityEnrichmentRun',
  tag: 'Enrichment',
  summary: 'Poll a community enrichment run',
  description: 'Returns the status and progress of an enrichment run of this community.',
  scope: 'enrich:read',
  mcpTools: ['get_enrichment_run'],
  params: CommunityRunParams,
  query: RunPollQuery,
  success: { 200: { description: 'The run and a page of its people.', body: EnrichmentRunPoll } },
  errors: {
    400: { description: 'An invalid `items_after`.' },
    403: { description: 'The credential lacks `enrich:read`, or the community is outside its reach or archived.' },
    404: { description: 'No such run in this community.' },
  },
});
