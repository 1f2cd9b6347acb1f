// The erasure's last step (erasure.ts, step 4), made durable: once the membership is gone, this
// community's search documents and enrichment data of the person are erased once more, for what an
// index call or a run wrote while the erasure ran. Its row (erasure-followup.repository.ts) is
// written in the membership's removal transaction; the erasure attempts it right after the commit
// and the sweeper (task-sweeper.ts) retries what that attempt could not finish — so a crash or an
// unreachable service delays it but never loses it. Both erases are idempotent.
import type { CommunitiesContext } from './communities-context.js';
import { createErasureFollowupRepository, type ErasureFollowupRow } from './erasure-followup.repository.js';
import { asCommunitiesService } from './remote.js';
import { backsOff } from './followup-backoff.js';

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Erases the person's documents and enrichment data in the community again and drops the follow-up.
 * True when done (or no longer owed: the person was added back meanwhile, so what is indexed now is
 * the new membership's); false when an erase failed and the follow-up stays for the sweeper.
 */
export async function runErasureFollowup(context: CommunitiesContext, communityId: string, profileId: string, requestId?: string): Promise<boolean> {
  const { deps } = context;
  const followups = createErasureFollowupRepository(deps.db);
  const log = deps.logger.child({ requestId, communityId, profileId });
  try {
    if (await context.repo.findMembership(communityId, profileId)) {
      await followups.remove(communityId, profileId);
      return true;
    }
    const options = await asCommunitiesService(context, requestId);
    const search = await deps.clients.search.eraseDocuments({ communityId, profileId }, options);
    log.info({ step: 'search_again', erased: search.erased }, 'erasure step done');
    const enrichment = await deps.clients.enrichment.eraseMemberEnrichment({ communityId, profileId }, options);
    log.info({ step: 'enrichment_again', erased: enrichment.erased }, 'erasure step done');
    await followups.remove(communityId, profileId);
    return true;
  } catch (error) {
    log.warn({ err: error }, 'erasure: the second erase failed; the sweeper retries it');
    await followups.fail(communityId, profileId, message(error), backsOff(error)).catch(() => undefined);
    return false;
  }
}

/** One pass over the follow-ups older than `graceMs` (younger ones are left to their inline attempt). */
export async function sweepErasureFollowups(context: CommunitiesContext, graceMs: number, shouldStop: () => boolean): Promise<void> {
  const due: ErasureFollowupRow[] = await createErasureFollowupRepository(context.deps.db).due(graceMs, 100);
  for (const followup of due) {
    if (shouldStop()) return;
    await runErasureFollowup(context, followup.community_id, followup.profile_id);
  }
}
