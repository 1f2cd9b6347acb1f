// Communities as the operator keeps them: upsert one (with its billing owner and the write
// attestation, in one transaction), read, archive, attest or withdraw API writes; and the
// standing facts identity needs when it decides a new credential's rate tier.
import type { Community } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { ownerTypes } from '../kit/enums.js';
import { domainError } from '../kit/grpc/errors.js';
import type { ServiceContext } from '../kit/grpc/server.js';
import { requireId } from '../kit/ids.js';
import { clampPageSize, pageOf } from '../kit/paging.js';
import { actorNameOf } from './actor-name.js';
import type { CommunitiesContext } from './communities-context.js';
import { createCommunityRepository, type CommunityRow } from './community.repository.js';

/** The actor an operator call records: the one named in the request, else the operator's. */
function actorOf(ctx: ServiceContext, named = ''): string {
  return named || (ctx.principal.kind === 'operator' ? ctx.principal.actor : 'unknown');
}

export async function getCommunity(context: CommunitiesContext, id: string): Promise<CommunityRow> {
  const row = await context.repo.findCommunity(id);
  if (!row) throw domainError('not_found', `community ${id} not found`);
  return row;
}

/** Creates or updates a community and records its API-writes attestation; returns its id. */
export async function upsertCommunity(context: CommunitiesContext, c: Community | undefined, ctx: ServiceContext): Promise<string> {
  if (!c || !c.name.trim()) throw domainError('invalid_request', 'community.name is required');
  if (!c.billingOwner?.id) throw domainError('invalid_request', 'community.billing_owner is required');
  const id = requireId(c.id, 'community.id');
  await context.deps.db.transaction(async (tx) => {
    const r = createCommunityRepository(tx);
    await r.upsertCommunity({
      id,
      name: c.name,
      owner_type: ownerTypes.toName(c.billingOwner!.type, 'community.billing_owner.type'),
      owner_id: c.billingOwner!.id,
      archived: c.archived,
    });
    await r.attestWrites(id, c.apiWrites, ctx.principal.kind === 'operator' ? ctx.principal.actor : 'seed');
  });
  return id;
}

/** One page of every community (archived ones too) with its member count, in id order. */
export async function listAllCommunities(context: CommunitiesContext, request: { pageSize: number; pageToken: string }) {
  const limit = clampPageSize(request.pageSize);
  return pageOf(await context.repo.listCommunities(limit + 1, request.pageToken), limit, (c) => c.id);
}

export async function archiveCommunity(context: CommunitiesContext, communityId: string, archived: boolean): Promise<void> {
  if (!(await context.repo.setArchived(communityId, archived))) {
    throw domainError('not_found', `community ${communityId} not found`);
  }
}

/** Attests (or withdraws) API writes for a community; returns the new attestation version. */
export async function setApiWrites(
  context: CommunitiesContext,
  request: { communityId: string; enabled: boolean; actor: string; actorName: string },
  ctx: ServiceContext,
): Promise<number> {
  const actorName = actorNameOf(request.actorName);
  await getCommunity(context, request.communityId);
  const actor = actorOf(ctx, request.actor);
  return context.deps.db.transaction((tx) => createCommunityRepository(tx).attestWrites(request.communityId, request.enabled, actor, actorName));
}

/** Whether the user manages a community, and whether an organization the user manages owns one. */
export async function userStanding(context: CommunitiesContext, request: { userId: string; managedOrganizationIds: string[] }) {
  const [managesCommunity, managedOrganizationOwnsCommunity] = await Promise.all([
    context.repo.userManagesCommunity(request.userId),
    context.repo.anyOrganizationOwnsCommunity(request.managedOrganizationIds),
  ]);
  return { managesCommunity, managedOrganizationOwnsCommunity };
}
