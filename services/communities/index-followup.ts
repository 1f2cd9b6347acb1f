// A bulk add's last step, search indexing, made durable: the membership is in the roster (and so in
// reach of enrichment runs, which select from it) the moment its transaction commits, and the
// person's document in the community's search corpus must follow, or no search finds them. Each
// placed item writes a follow-up row (index-followup.repository.ts) in its membership's transaction
// (add-members.ts); the add indexes right after its commits and drops the rows, and the sweeper
// (task-sweeper.ts) retries what that attempt could not finish — the search service unreachable,
// the process dead between commit and call — so a fault after the roster write delays the document
// but never loses it. Indexing is an upsert of the person's current document, so doing it twice is
// harmless. A person erased before the attempt reads the membership is skipped (the erasure drops
// the row too); one erased while the attempt's index call runs has the document it wrote erased
// again once the call returns (indexed-non-members.ts), so no document outlives the erasure.
import { AddMemberStatus, type AddMemberResult } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import type { CommunitiesContext } from './communities-context.js';
import { createIndexFollowupRepository, type IndexFollowupRow } from './index-followup.repository.js';
import { indexMemberships } from './search-index.js';
import { backsOff } from './followup-backoff.js';

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Indexes these people's documents in the community and drops their follow-ups. True when done
 * (people no longer members are skipped: nothing is owed for them); false when indexing failed and
 * the follow-ups stay for the sweeper, their attempt counted. The rows are read before the
 * membership check and only those rows are dropped: a row written again meanwhile (the person
 * erased and added back while this ran) stays for its own attempt.
 */
export async function runIndexFollowups(context: CommunitiesContext, communityId: string, profileIds: string[], requestId?: string): Promise<boolean> {
  if (profileIds.length === 0) return true;
  const followups = createIndexFollowupRepository(context.deps.db);
  try {
    const owed = await followups.read(communityId, profileIds);
    const members = await followups.members(communityId, profileIds);
    await indexMemberships(context, communityId, members, requestId);
    await followups.removeAsRead(communityId, owed);
    return true;
  } catch (error) {
    context.deps.logger.warn({ err: error, requestId, communityId, people: profileIds.length }, 'search indexing after add failed; the sweeper retries it');
    await followups.fail(communityId, profileIds, message(error), backsOff(error)).catch(() => undefined);
    return false;
  }
}

/**
 * After a bulk add: indexes every person the add placed (added or already a member). A failure is
 * logged, not answered: the people are members, and their follow-ups stay for the sweeper.
 */
export async function indexAddedMembers(context: CommunitiesContext, communityId: string, results: AddMemberResult[], requestId: string): Promise<void> {
  const placed = results.filter((r) => r.status !== AddMemberStatus.ADD_MEMBER_STATUS_REJECTED && r.profileId).map((r) => r.profileId);
  await runIndexFollowups(context, communityId, [...new Set(placed)], requestId);
}

/** One pass over the follow-ups older than `graceMs` (younger ones are left to their inline attempt), a community at a time. */
export async function sweepIndexFollowups(context: CommunitiesContext, graceMs: number, shouldStop: () => boolean): Promise<void> {
  const due: IndexFollowupRow[] = await createIndexFollowupRepository(context.deps.db).due(graceMs, 100);
  const byCommunity = new Map<string, string[]>();
  for (const f of due) byCommunity.set(f.community_id, [...(byCommunity.get(f.community_id) ?? []), f.profile_id]);
  for (const [communityId, profileIds] of byCommunity) {
    if (shouldStop()) return;
    await runIndexFollowups(context, communityId, profileIds);
  }
}
