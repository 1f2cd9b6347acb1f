// The erasure's second erase is durable: when the inline attempt fails (search or enrichment
// unreachable) the follow-up stays, with its attempt counted, and the sweeper finishes it; a person
// added back to the community meanwhile is not erased by a stale follow-up.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { communitiesContext } from '../../test/helpers/communities-context.js';
import { openTestDatabase } from '../../test/helpers/stores.js';
import type { Database } from '../kit/db/database.js';
import type { ServiceClients } from '../kit/grpc/client.js';
import { createErasureFollowupRepository } from './erasure-followup.repository.js';
import { runErasureFollowup } from './erasure-followup.js';
import type { CommunitiesContext } from './communities-context.js';
import { createMemberWriteRepository } from './member-write.repository.js';
import { startTaskSweeper } from './task-sweeper.js';
import { ClientError, Status } from 'nice-grpc';

describe('erasure follow-ups', () => {
  let db: Database;
  let close: () => Promise<void>;
  let context: CommunitiesContext;
  let searchDown = false;
  const erased: string[] = []; // "service:community:profile", in call order

  beforeAll(async () => {
    ({ db, close } = await openTestDatabase('pglite'));
    const search = {
      async eraseDocuments({ communityId, profileId }: { communityId: string; profileId: string }) {
        if (searchDown) throw new ClientError('/expertnet.search.v1.SearchService/EraseDocuments', Status.UNAVAILABLE, 'connection refused');
        erased.push(`search:${communityId}:${profileId}`);
        return { erased: 1 };
      },
    };
    const enrichment = {
      async eraseMemberEnrichment({ communityId, profileId }: { communityId: string; profileId: string }) {
        erased.push(`enrichment:${communityId}:${profileId}`);
        return { erased: 1 };
      },
    };
    context = communitiesContext(db, { search, enrichment } as unknown as Partial<ServiceClients>);
    await db.query(`INSERT INTO communities.communities (id, name, owner_type, owner_id) VALUES ('c_one', 'One', 'user', 'u_owner')`);
  }, 60_000);
  afterAll(async () => close());
  beforeEach(() => {
    searchDown = false;
    erased.length = 0;
  });

  const followups = () =>
    db.query<{ community_id: string; profile_id: string; attempts: number; last_error: string | null }>(
      'SELECT community_id, profile_id, attempts, last_error FROM communities.erasure_followups ORDER BY profile_id',
    );

  it('keeps a follow-up whose erase failed in an outage, counts the attempt, and the next sweep finishes it', async () => {
    await createErasureFollowupRepository(db).add('c_one', 'p_gone');
    searchDown = true;
    expect(await runErasureFollowup(context, 'c_one', 'p_gone')).toBe(false);
    expect(await followups()).toEqual([{ community_id: 'c_one', profile_id: 'p_gone', attempts: 1, last_error: expect.stringContaining('UNAVAILABLE') }]);
    expect(erased).toEqual([]);

    // An outage, not a refusal: no backoff (followup-backoff.ts), due at the next sweep.
    expect(await db.query(`SELECT next_attempt_at FROM communities.erasure_followups`)).toEqual([{ next_attempt_at: null }]);
    searchDown = false;
    const sweeper = startTaskSweeper(context, { intervalMs: 60_000, graceMs: 0 });
    await sweeper.sweep();
    await sweeper.stop();
    expect(erased).toEqual(['search:c_one:p_gone', 'enrichment:c_one:p_gone']);
    expect(await followups()).toEqual([]);
  });

  it('leaves a follow-up younger than the grace period to its inline attempt', async () => {
    await createErasureFollowupRepository(db).add('c_one', 'p_young');
    const sweeper = startTaskSweeper(context, { intervalMs: 60_000, graceMs: 60_000 });
    await sweeper.sweep();
    await sweeper.stop();
    expect(erased).toEqual([]);
    expect((await followups()).map((f) => f.profile_id)).toEqual(['p_young']);
    await createErasureFollowupRepository(db).remove('c_one', 'p_young');
  });

  it('drops, without erasing, a follow-up of a person who is a member again', async () => {
    const writes = createMemberWriteRepository(db);
    await writes.insertProfile({ id: 'p_back', name: 'Back Again', headline: null, bio: null, organization: null, location: null, email: 'back@example.org', linkedin_url: null, orcid: null });
    await createErasureFollowupRepository(db).add('c_one', 'p_back');
    await writes.insertMembershipIfAbsent('c_one', 'p_back', 'member', 'back@example.org', { name: 'Back Again', headline: null, bio: null, organization: null, location: null, email: 'back@example.org', linkedin_url: null, orcid: null });
    expect(await runErasureFollowup(context, 'c_one', 'p_back')).toBe(true);
    expect(erased).toEqual([]);
    expect(await followups()).toEqual([]);
  });
});
