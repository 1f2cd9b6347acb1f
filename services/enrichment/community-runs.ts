// Starting a community enrichment run (docs/ENRICHMENT.md): the request rules, write gating (asked
// of communities as the caller), who the run is about, the estimate, and funds before work.
//
// Who a run is about: the members matching the filters (`profile_ids`, `joined_since`). Of them,
// the eligible ones are those this community has not already enriched at the run's depth or a
// deeper one (any depth for a dry run without depth), unless `include_already_enriched`. Every
// person named or selected becomes an item: eligible ones pending, the others skipped with the
// reason (already enriched; not a member), so the poll accounts for each of them.
//
// Overlapping runs (docs/ENRICHMENT.md): a person is reserved for one run per community and tier
// while their item is pending. The run claims its eligible people in the transaction that creates
// its items, then — with the claims held — checks again who is already enriched; people another run
// holds become skipped items and are not counted eligible, so no two runs charge one person at one
// tier, whatever the timing and even with include_already_enriched.
import { Caller } from '../../proto/gen/expertnet/common/v1/common.js';
import type { DryRunEstimate, Run, StartCommunityRunRequest } from '../../proto/gen/expertnet/enrichment/v1/enrichment_service.js';
import { asCallerOf, asService } from '../kit/grpc/acting.js';
import type { ServiceContext } from '../kit/grpc/server.js';
import { domainError, relayOrUnavailable } from '../kit/grpc/errors.js';
import { newId, requireId } from '../kit/ids.js';
import { ownerTypes } from '../kit/enums.js';
import type { ServiceDeps } from '../kit/service-deps.js';
import type { EnrichmentContext } from './enrichment-context.js';
import { depthName } from './enrichment-messages.js';
import type { Depth } from './pipeline/index.js';
import { chargeOperation, scanMembers } from './run-effects.js';
import { runPage } from './run-page.js';
import { createRunsRepository, DEPTH_ORDER, depthsFrom, type NewItem, type NewRun, type RunRow } from './runs.repository.js';

export const WORKFLOW_KEY = 'smart_enrich';
export const PROFILE_IDS_MAX = 10_000;

type Deps = Pick<ServiceDeps, 'db' | 'clients' | 'signer' | 'deadlineMs'>;

interface RunInput {
  communityId: string;
  depth: Depth | undefined;
  profileIds: string[];
  joinedSince: string | undefined;
  includeAlreadyEnriched: boolean;
  dryRun: boolean;
}

/** The request rules (the edge's schema refuses the same, first). */
function runInput(request: StartCommunityRunRequest): RunInput {
  const communityId = requireId(request.communityId, 'community_id');
  if (request.workflowKey !== '' && request.workflowKey !== WORKFLOW_KEY) {
    throw domainError('invalid_request', `workflow_key must be ${WORKFLOW_KEY} (the only workflow offered)`);
  }
  const depth = request.depth === 0 ? undefined : depthName(request.depth);
  if (request.depth !== 0 && !depth) throw domainError('invalid_request', `depth must be one of ${DEPTH_ORDER.join(', ')}`);
  // Starting needs a priced tier; an estimate without depth only counts people.
  if (!depth && !request.dryRun) {
    throw domainError('invalid_request', `depth is required to start a run (${DEPTH_ORDER.join(', ')}); only a dry run may omit it`);
  }
  if (request.profileIds.length > PROFILE_IDS_MAX) throw domainError('invalid_request', `profile_ids holds at most ${PROFILE_IDS_MAX} ids`);
  const profileIds = [...new Set(request.profileIds.map((id) => requireId(id, 'profile_ids[]')))];
  return { communityId, depth, profileIds, joinedSince: request.joinedSince, includeAlreadyEnriched: request.includeAlreadyEnriched, dryRun: request.dryRun };
}

interface Selection {
  totalMembers: number;
  eligible: string[];
  items: NewItem[];
}

async function select(deps: Deps, input: RunInput, requestId: string): Promise<Selection> {
  const members: string[] = [];
  const totalMembers = await scanMembers(
    deps,
    { communityId: input.communityId, profileIds: input.profileIds, joinedSince: input.joinedSince },
    (page) => {
      for (const m of page) if (m.profile) members.push(m.profile.id);
    },
    requestId,
  );

  const repo = createRunsRepository(deps.db);
  const enriched = input.includeAlreadyEnriched
    ? new Set<string>()
    : await repo.enrichedAmong(input.communityId, members, input.depth ? depthsFrom(input.depth) : [...DEPTH_ORDER]);
  // Held by an open run at this tier (any tier for an estimate without depth): not eligible now.
  const reserved = await repo.reservedAmong(input.communityId, members, input.depth ? [input.depth] : [...DEPTH_ORDER]);
  const items: NewItem[] = members.map((id) =>
    enriched.has(id)
      ? { profileId: id, skippedBecause: alreadyEnriched(input.depth) }
      : reserved.has(id)
        ? { profileId: id, skippedBecause: HELD_BY_ANOTHER_RUN }
        : { profileId: id },
  );
  const found = new Set(members);
  for (const id of input.profileIds) if (!found.has(id)) items.push({ profileId: id, skippedBecause: 'not a member of this community' });
  return { totalMembers, eligible: members.filter((id) => !enriched.has(id) && !reserved.has(id)), items };
}

const alreadyEnriched = (depth: Depth | undefined) => `already enriched by this community at ${depth ?? 'some'} depth or deeper`;
const HELD_BY_ANOTHER_RUN = 'being enriched at this depth by another run of this community';

/**
 * Creates the run with its people (one transaction): claims the eligible ones, re-checks those
 * claimed against this community's enrichment data (a run that finished one of them before the
 * claim is seen now), and writes every item. Returns the run and how many people it will enrich.
 */
async function createRun(deps: Deps, run: NewRun, input: RunInput, selection: Selection): Promise<{ run: RunRow; eligibleCount: number }> {
  return deps.db.transaction(async (tx) => {
    const repo = createRunsRepository(tx);
    const row = await repo.insertRun(run);
    const claimed = await repo.reserve(run.id, input.communityId, run.depth, selection.eligible);
    const enriched = input.includeAlreadyEnriched ? new Set<string>() : await repo.enrichedAmong(input.communityId, [...claimed], depthsFrom(run.depth));
    await repo.unreserve(run.id, [...enriched]);
    const eligible = new Set(selection.eligible);
    const items = selection.items.map((item): NewItem => {
      if (!eligible.has(item.profileId)) return item;
      if (!claimed.has(item.profileId)) return { profileId: item.profileId, skippedBecause: HELD_BY_ANOTHER_RUN };
      if (enriched.has(item.profileId)) return { profileId: item.profileId, skippedBecause: alreadyEnriched(run.depth) };
      return item;
    });
    await repo.insertItems(run.id, items);
    return { run: row, eligibleCount: claimed.size - enriched.size };
  });
}

async function rateOf(deps: Deps, depth: Depth | undefined, ctx: ServiceContext): Promise<number | undefined> {
  if (!depth) return undefined;
  const options = asCallerOf(ctx, deps.deadlineMs, deps.signer);
  const { rates } = await deps.clients.billing.listRates({}, options);
  return rates.find((r) => r.operation === chargeOperation(depth))?.creditsPerUnit;
}

type Started = { estimate: DryRunEstimate } | { run: RunRow; eligibleCount: number };

async function startOrEstimate(deps: Deps, caller: Caller, request: StartCommunityRunRequest, ctx: ServiceContext): Promise<Started> {
  const { requestId } = ctx;
  const input = runInput(request);
  const asCaller = asCallerOf(ctx, deps.deadlineMs, deps.signer);
  // Write gating, live: scope and write reach first, before anything is read; an estimate changes
  // nothing, so it needs neither the API-write attestation nor queues a consent request.
  await deps.clients.communities.authorizeWrite({ communityId: input.communityId, operation: 'enrichment.start', reachOnly: true, target: '', description: '' }, asCaller);

  const selection = await select(deps, input, requestId);
  const rate = await rateOf(deps, input.depth, ctx);
  if (!input.dryRun) {
    // Then the attestation, or an approval of this very run (its target, fingerprinted by the
    // communities service), queuing it in words when the owner's consent is needed. An approval
    // starts the run once: it was given for the eligible people and credits its description named,
    // so the same request later queues a new one with the count and estimate as they are then.
    const target = JSON.stringify({
      depth: input.depth, profile_ids: [...input.profileIds].sort(), joined_since: input.joinedSince ?? null,
      include_already_enriched: input.includeAlreadyEnriched,
    });
    const credits = rate === undefined ? '' : `, estimated ${rate * selection.eligible.length} credits`;
    const description = `enrichment run at depth ${input.depth}: ${selection.eligible.length} eligible of ${selection.totalMembers} members${credits}`;
    await deps.clients.communities.authorizeWrite(
      { communityId: input.communityId, operation: 'enrichment.start', reachOnly: false, target, description }, asCaller);
  }
  if (input.dryRun) {
    return {
      estimate: {
        eligibleCount: selection.eligible.length,
        totalMembers: selection.totalMembers,
        estimatedMaxCreditsPerProfile: rate,
        estimatedMaxCredits: rate === undefined ? undefined : rate * selection.eligible.length,
      },
    };
  }

  const depth = input.depth!;
  let payer: { type: string; id: string } | null = null;
  if (selection.eligible.length > 0) {
    // Funds before work for the whole run (402 naming the payer when enforcement is on); the payer
    // billing resolves (the community's billing owner) is kept for the per-person charges.
    const ownCall = asService('enrichment', requestId, deps.deadlineMs);
    const funds = await deps.clients.billing.checkFunds(
      { operation: chargeOperation(depth), communityId: input.communityId, units: selection.eligible.length, caller },
      ownCall,
    );
    const resolved = funds.payer?.payer;
    if (resolved?.id) payer = { type: ownerTypes.toName(resolved.type, 'payer.type'), id: resolved.id };
  }
  return createRun(
    deps,
    {
      id: newId('run'),
      kind: 'community',
      communityId: input.communityId,
      credentialId: caller.credentialId,
      caller: Caller.toJSON(caller),
      depth,
      payer,
    },
    input,
    selection,
  );
}

export type StartOutcome = { estimate: DryRunEstimate } | { run: Run | undefined; eligibleCount: number };

/** Starts a community run (its work starts here and now) and answers it as accepted, or answers the estimate of a dry run. */
export async function startCommunityRun(context: EnrichmentContext, caller: Caller, request: StartCommunityRunRequest, ctx: ServiceContext): Promise<StartOutcome> {
  const { requestId } = ctx;
  const outcome = await startOrEstimate(context.deps, caller, request, ctx).catch(relayOrUnavailable);
  if ('estimate' in outcome) return outcome;
  context.deps.logger.info({ requestId, runId: outcome.run.id, depth: outcome.run.depth, eligible: outcome.eligibleCount }, 'enrichment run started');
  const { run } = await runPage(context.runs, outcome.run);
  context.kick(outcome.run.id);
  return { run, eligibleCount: outcome.eligibleCount };
}
