// What a signed-in user (the settings web app's `user` principal) may do as a community's billing
// owner: see the communities they control — owned by the user, or by an organization the user owns
// or administers — switch API writes and work the consent queue of those only. Anything else is
// refused (forbidden, naming the community). The operator may act on every community.
import type { ControlledCommunity } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { domainError } from '../kit/grpc/errors.js';
import type { ServiceContext } from '../kit/grpc/server.js';
import type { CommunitiesContext } from './communities-context.js';
import { toCommunity } from './communities-messages.js';
import type { CommunityRow } from './community.repository.js';
import { createMemberWriteRepository } from './member-write.repository.js';
import { managedOrganizations } from './reach.js';

async function controls(context: CommunitiesContext, userId: string, community: CommunityRow, requestId: string): Promise<boolean> {
  if (community.owner_type === 'user') return community.owner_id === userId;
  return (await managedOrganizations(context.reachDeps, userId, requestId)).includes(community.owner_id);
}

/**
 * Refuses a signed-in user who does not control the community; answers the actor to record
 * (`user:ID`), or '' for the operator (who names its own).
 */
export async function requireControl(context: CommunitiesContext, ctx: ServiceContext, communityId: string): Promise<string> {
  if (ctx.principal.kind !== 'user') return '';
  const userId = ctx.principal.userId;
  const community = communityId ? await context.repo.findCommunity(communityId) : undefined;
  if (!community || !(await controls(context, userId, community, ctx.requestId))) {
    throw domainError('forbidden', `you are not the billing owner of community ${communityId || '(none named)'}, nor manage its organization`);
  }
  return `user:${userId}`;
}

/** The same for a consent request: the user must control its community. */
export async function requireConsentControl(context: CommunitiesContext, ctx: ServiceContext, consentRequestId: string): Promise<string> {
  if (ctx.principal.kind !== 'user') return '';
  const found = await createMemberWriteRepository(context.deps.db).findConsentRequest(consentRequestId);
  if (!found) throw domainError('not_found', `consent request ${consentRequestId} not found`);
  return requireControl(context, ctx, found.community_id);
}

export async function listControlledCommunities(context: CommunitiesContext, ctx: ServiceContext, userId: string): Promise<ControlledCommunity[]> {
  if (ctx.principal.kind === 'user' && ctx.principal.userId !== userId) throw domainError('forbidden', 'a signed-in user sees only their own communities');
  const orgs = await managedOrganizations(context.reachDeps, userId, ctx.requestId);
  const rows = await context.deps.db.query<CommunityRow & { attestations: Array<{ version: number; enabled: boolean; actor: string; actor_name: string; created_at: string }> | null }>(
    `SELECT c.id, c.name, c.owner_type, c.owner_id, c.archived, c.created_at,
            coalesce((SELECT a.enabled FROM communities.write_attestations a WHERE a.community_id = c.id ORDER BY a.version DESC LIMIT 1), false) AS api_writes,
            (SELECT json_agg(json_build_object('version', a.version, 'enabled', a.enabled, 'actor', a.actor, 'actor_name', a.actor_name, 'created_at', a.created_at) ORDER BY a.version DESC)
               FROM communities.write_attestations a WHERE a.community_id = c.id) AS attestations
     FROM communities.communities c
     WHERE (c.owner_type = 'user' AND c.owner_id = $1) OR (c.owner_type = 'organization' AND c.owner_id = ANY($2::text[]))
     ORDER BY c.name, c.id`,
    [userId, orgs],
  );
  return rows.map((row) => ({
    community: toCommunity({ ...row, created_at: new Date(row.created_at) }),
    attestations: (row.attestations ?? []).map((a) => ({
      version: a.version, enabled: a.enabled, actor: a.actor, actorName: a.actor_name, recordedAt: new Date(a.created_at).toISOString(),
    })),
  }));
}
