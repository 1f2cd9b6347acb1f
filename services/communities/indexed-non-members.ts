// Closes the race between indexing a member's document and erasing them. An index call reads the
// membership, then the profile, then upserts in the search service, which can take seconds; an
// erasure can run all its steps, its second erase included (erasure.ts), in that gap, and the
// upsert would land after it. So once an index call has returned, the membership is read again and
// the document of anyone no longer a member is erased here. Whichever commits first is covered:
// an erasure whose membership removal lands before this read is seen by it; one landing after it
// runs its own second erase after the upsert. An erase that fails here is left to the sweeper
// through an erasure follow-up (erasure-followup.ts), which also erases this community's
// enrichment data of the person: idempotent, and owed anyway once they are no longer a member.
import type { CommunitiesContext } from './communities-context.js';
import { createErasureFollowupRepository } from './erasure-followup.repository.js';
import { createIndexFollowupRepository } from './index-followup.repository.js';
import { asCommunitiesService } from './remote.js';

/** Erases the community's documents of the people just indexed who are no longer its members. */
export async function eraseIndexedNonMembers(context: CommunitiesContext, communityId: string, indexed: string[], requestId: string | undefined): Promise<void> {
  if (indexed.length === 0) return;
  const { deps } = context;
  const members = new Set(await createIndexFollowupRepository(deps.db).members(communityId, indexed));
  const gone = indexed.filter((id) => !members.has(id));
  if (gone.length === 0) return;
  const options = await asCommunitiesService(context, requestId);
  for (const profileId of gone) {
    try {
      await deps.clients.search.eraseDocuments({ communityId, profileId }, options);
    } catch (error) {
      deps.logger.warn({ err: error, requestId, communityId, profileId }, 'a document indexed for a person erased meanwhile could not be erased; the sweeper retries it');
      await createErasureFollowupRepository(deps.db).add(communityId, profileId);
    }
  }
}
