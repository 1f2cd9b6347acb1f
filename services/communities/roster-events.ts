// The roster's events (docs/WEBHOOKS.md), recorded in the transaction of the change they describe:
// member.added with the member read as the community sees the person (member-view.ts), and
// member.erased with the erasure's result.
import type { Queryable } from '../kit/db/database.js';
import { toMember, type MemberRow } from './communities-messages.js';
import { recordEvent } from './event-log.js';

/** member.added for a membership this transaction `tx` just made. */
export async function recordMemberAdded(tx: Queryable, communityId: string, profileId: string): Promise<void> {
  const rows = await tx.query<MemberRow>(
    `SELECT p.*, m.role, m.joined_at, m.supplied FROM communities.memberships m JOIN communities.profiles p ON p.id = m.profile_id
      WHERE m.community_id = $1 AND m.profile_id = $2`,
    [communityId, profileId],
  );
  if (rows[0]) await recordEvent(tx, communityId, 'member.added', { member: toMember(rows[0], communityId, 'caller') });
}

/**
 * member.erased for a membership this transaction `tx` just removed. `authAccountDeleted`: the
 * person was an unclaimed placeholder in no other community, whose auth account goes with them
 * (removed right after the commit, or by the durable task this transaction wrote).
 */
export async function recordMemberErased(tx: Queryable, communityId: string, profileId: string, authAccountDeleted: boolean): Promise<void> {
  await recordEvent(tx, communityId, 'member.erased', { erasure: { communityId, profileId, authAccountDeleted } });
}
