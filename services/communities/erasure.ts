// Community-scoped erasure (docs/COMMUNITIES.md), a saga over the services that hold data about
// the person for this community. Every step is idempotent and the membership goes last, so a call
// that fails part-way leaves the membership in place and a retry runs every step again and
// completes:
//   1. search:      this community's documents (embeddings) of the person;
//   2. enrichment:  this community's enrichment data of the person;
//   3. communities: one transaction — the membership (with the community's source identifier),
//                   an add's pending search indexing of the person here (index-followup.ts),
//                   a durable follow-up for step 4, and, for an unclaimed placeholder now in no
//                   community, its profile row plus a durable task to delete its auth account;
//   4. search and enrichment: once more, for a document indexed or a run's items created while
//                   steps 1-3 ran (a run started between steps 2 and 3 selected the person while
//                   still a member; erasing again marks its item erased, so the run never writes the
//                   data back). Attempted right away; what fails (or a crash) is left to the
//                   sweeper through its follow-up row (erasure-followup.ts), never lost;
//   5. identity:    the placeholder's auth account, best effort (a failure leaves the task to the
//                   sweeper and answers auth_account_deleted = false; the erasure is complete).
// A claimed person's account and profile are never touched; other communities' data is untouched.
import type { CommunitiesContext } from './communities-context.js';
import { domainError } from '../kit/grpc/errors.js';
import { createErasureFollowupRepository } from './erasure-followup.repository.js';
import { runErasureFollowup } from './erasure-followup.js';
import { createIndexFollowupRepository } from './index-followup.repository.js';
import { createMemberWriteRepository } from './member-write.repository.js';
import { runDeleteAccount } from './placeholders.js';
import { asCommunitiesService, relayOrUnavailable } from './remote.js';
import { recordMemberErased } from './roster-events.js';

export interface ErasureOutcome {
  authAccountDeleted: boolean;
}

/** Erases a member; the caller has passed write gating. not_found when the person is not a member. */
export async function eraseMember(
  context: CommunitiesContext,
  communityId: string,
  profileId: string,
  requestId: string,
): Promise<ErasureOutcome> {
  const { deps } = context;
  const log = deps.logger.child({ requestId, communityId, profileId });
  const options = await asCommunitiesService(context, requestId);
  if (!(await context.repo.findMembership(communityId, profileId))) {
    // A retry after a crash between the membership's removal and step 4 lands here: what an index
    // call or a run wrote meanwhile is erased now rather than at the sweeper's next pass (both steps
    // are idempotent and touch only this community's data of this person), then the answer is the
    // 404 of a non-member.
    await deps.clients.search.eraseDocuments({ communityId, profileId }, options).catch(relayOrUnavailable);
    await deps.clients.enrichment.eraseMemberEnrichment({ communityId, profileId }, options).catch(relayOrUnavailable);
    await createErasureFollowupRepository(deps.db).remove(communityId, profileId);
    throw domainError('not_found', `profile ${profileId} is not a member of community ${communityId}`);
  }

  const search = await deps.clients.search.eraseDocuments({ communityId, profileId }, options).catch(relayOrUnavailable);
  log.info({ step: 'search', erased: search.erased }, 'erasure step done');
  const enrichment = await deps.clients.enrichment.eraseMemberEnrichment({ communityId, profileId }, options).catch(relayOrUnavailable);
  log.info({ step: 'enrichment', erased: enrichment.erased }, 'erasure step done');

  const removed = await deps.db.transaction(async (tx) => {
    const writes = createMemberWriteRepository(tx);
    // Locked first: a concurrent add of this person (any community) waits, or finds no profile.
    const profile = await writes.lockProfile(profileId);
    const deleted = await writes.deleteMembership(communityId, profileId);
    await createIndexFollowupRepository(tx).remove(communityId, [profileId]);
    await createErasureFollowupRepository(tx).add(communityId, profileId);
    const orphan = Boolean(profile && !profile.user_id && !(await writes.hasAnyMembership(profileId)));
    // Its event, once: only the erasure that removed the membership records it.
    if (deleted) await recordMemberErased(tx, communityId, profileId, orphan);
    if (!profile || !orphan) return { deleted, cleanup: undefined };
    // An unclaimed placeholder in no community any more: its profile carries only what the
    // communities supplied, so it goes; its auth account follows through a durable task.
    await writes.deleteOrphanPlaceholder(profileId);
    await writes.deleteTask('create_account', profileId);
    await writes.addTask('delete_account', profileId, profile.placeholder_user_id);
    return { deleted, cleanup: { userId: profile.placeholder_user_id } };
  });
  // deleted is false only when a concurrent erasure removed the membership first: complete too.
  log.info({ step: 'membership', deleted: removed.deleted, placeholderRemoved: Boolean(removed.cleanup) }, 'erasure step done');

  // Once more, now that no one can index the person here any longer (indexing checks the
  // membership): a document an enrichment run or an add indexed between step 1 and the membership's
  // removal goes too. A failure leaves the follow-up to the sweeper; the answer does not wait for it.
  await runErasureFollowup(context, communityId, profileId, requestId);

  let authAccountDeleted = false;
  if (removed.cleanup) {
    authAccountDeleted = (await runDeleteAccount(context, profileId, removed.cleanup.userId, requestId)) ?? false;
    log.info({ step: 'auth_account', deleted: authAccountDeleted }, 'erasure step done');
  }
  return { authAccountDeleted };
}
