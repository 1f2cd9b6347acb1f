// Reach, computed live on every call (never cached past a revocation, a role change or an
// archive). A community outside reach is always 403 — unknown, archived, or simply not the caller's.
// The roster reads check it for their one community inside their own statement (readReach).
//
// Personal key (a user behind it):
//   read  = communities the user belongs to in any role, those the user owns directly, and those
//           owned by an organization the user manages (owner/admin);
//   write = communities where the user is admin or owner (membership role), owns directly, or
//           manages the owning organization (delegated admin).
// Legacy organization-owned key: ownership only — its organization's communities, for read and
// write; it never inherits the personal rights of the user who minted it.
// Both: archived communities are out; an allowlist narrows, never widens.
import type { Caller } from '../../proto/gen/expertnet/common/v1/common.js';
import { OwnerType } from '../../proto/gen/expertnet/common/v1/common.js';
import type { Queryable } from '../kit/db/database.js';
import type { ServiceClients } from '../kit/grpc/client.js';
import { asService } from '../kit/grpc/acting.js';
import { domainError, relayRemoteError } from '../kit/grpc/errors.js';
import { Role } from '../../proto/gen/expertnet/common/v1/common.js';
import type { CommunityRow, ReadReach } from './community.repository.js';

export type Access = 'read' | 'write';

export interface Reach {
  read: Set<string>;
  write: Set<string>;
}

export interface ReachDeps {
  db: Queryable;
  clients: ServiceClients;
  deadlineMs: number;
}

export async function managedOrganizations(deps: ReachDeps, userId: string, requestId: string): Promise<string[]> {
  const options = asService('communities', requestId, deps.deadlineMs);
  const { organizations } = await deps.clients.identity.listUserOrganizations({ userId }, options).catch(relayRemoteError);
  return organizations.filter((o) => o.role === Role.ROLE_OWNER || o.role === Role.ROLE_ADMIN).map((o) => o.organizationId);
}

function narrowed(ids: Iterable<string>, caller: Caller): Set<string> {
  const set = new Set(ids);
  if (!caller.allowlist) return set;
  const allowed = new Set(caller.allowlist.communityIds);
  return new Set([...set].filter((id) => allowed.has(id)));
}

export async function computeReach(deps: ReachDeps, caller: Caller, requestId: string): Promise<Reach> {
  if (caller.owner?.type === OwnerType.OWNER_TYPE_ORGANIZATION) {
    const owned = await deps.db.query<{ id: string }>(
      `SELECT id FROM communities.communities WHERE owner_type = 'organization' AND owner_id = $1 AND NOT archived`,
      [caller.owner.id],
    );
    const ids = owned.map((r) => r.id);
    return { read: narrowed(ids, caller), write: narrowed(ids, caller) };
  }
  if (!caller.userId) return { read: new Set(), write: new Set() };
  // Identity reads them with the credential when it authenticates the request; asked for otherwise.
  const orgs = caller.managedOrganizations?.organizationIds ?? (await managedOrganizations(deps, caller.userId, requestId));
  const rows = await deps.db.query<{ id: string; can_write: boolean }>(
    `SELECT c.id, bool_or(src.can_write) AS can_write
       FROM (
         SELECT m.community_id AS id, m.role IN ('admin', 'owner') AS can_write
           FROM communities.memberships m JOIN communities.profiles p ON p.id = m.profile_id
          WHERE p.user_id = $1
         UNION ALL
         SELECT id, true FROM communities.communities WHERE owner_type = 'user' AND owner_id = $1
         UNION ALL
         SELECT id, true FROM communities.communities WHERE owner_type = 'organization' AND owner_id = ANY($2::text[])
       ) src JOIN communities.communities c ON c.id = src.id
      WHERE NOT c.archived
      GROUP BY c.id`,
    [caller.userId, orgs],
  );
  return {
    read: narrowed(rows.map((r) => r.id), caller),
    write: narrowed(rows.filter((r) => r.can_write).map((r) => r.id), caller),
  };
}

/**
 * The caller's read reach as the roster reads check it for one community in their own statement
 * (one round trip instead of two; the rules of computeReach above, in community.repository.ts
 * IN_READ_REACH). `false` when nothing can put the community in reach: an allowlist leaving it
 * out, a personal credential without a user.
 */
export async function readReach(deps: ReachDeps, caller: Caller, communityId: string, requestId: string): Promise<ReadReach | false> {
  if (caller.allowlist && !caller.allowlist.communityIds.includes(communityId)) return false;
  if (caller.owner?.type === OwnerType.OWNER_TYPE_ORGANIZATION) return { organizationId: caller.owner.id };
  const userId = caller.userId;
  if (!userId) return false;
  const orgs = caller.managedOrganizations?.organizationIds ?? (await managedOrganizations(deps, userId, requestId));
  return { userId, managedOrganizations: orgs };
}

/** The refusal of a community outside the caller's `access` reach. */
export function outsideReach(communityId: string, access: Access): Error {
  return domainError('forbidden', `community ${communityId} is outside this credential's ${access} reach`);
}

/**
 * Refuses (403) a community outside the caller's read (or write) reach. Reach holds only existing,
 * unarchived communities, so a read that needs nothing of the community but its id asks no more.
 */
export async function requireReach(deps: ReachDeps, caller: Caller, communityId: string, access: Access, requestId: string): Promise<void> {
  const reach = await computeReach(deps, caller, requestId);
  if (!reach[access].has(communityId)) throw outsideReach(communityId, access);
}

/** The community, when the caller may read (or write) it; otherwise 403, whatever the reason. */
export async function requireCommunityAccess(
  deps: ReachDeps,
  caller: Caller,
  communityId: string,
  access: Access,
  requestId: string,
  findCommunity: (id: string) => Promise<CommunityRow | undefined>,
): Promise<CommunityRow> {
  await requireReach(deps, caller, communityId, access, requestId);
  const community = await findCommunity(communityId);
  // Archived (or gone) since the reach was read: refused the same way.
  if (!community || community.archived) throw outsideReach(communityId, access);
  return community;
}
