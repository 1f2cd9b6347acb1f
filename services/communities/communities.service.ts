// The communities service: the operator side (communities, profiles, memberships, write
// attestations, search re-index), the standing facts identity needs at mint, live reach, and — in
// their own files — roster reads (roster.handlers.ts), member writes (member-write.handlers.ts) and
// the enrichment service's reads and writes for its runs (enrichment-support.handlers.ts).
import { randomUUID } from 'node:crypto';
import {
  Access,
  CommunitiesServiceDefinition,
  Membership,
} from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { computeReach } from './reach.js';
import { createEnrichmentSupportHandlers } from './enrichment-support.handlers.js';
import { createMemberWriteHandlers } from './member-write.handlers.js';
import { startTaskSweeper } from './task-sweeper.js';
import { createRosterHandlers } from './roster.handlers.js';
import { indexMemberships, indexProfile, reindexAll } from './search-index.js';
import type { CommunitiesDeps, HandlerContext } from './handler-context.js';
import { ownerTypes, roles } from '../kit/enums.js';
import { domainError } from '../kit/grpc/errors.js';
import type { ServiceRegistration } from '../kit/grpc/server.js';
import { requireId } from '../kit/ids.js';
import { toCommunity, toProfile } from './community-messages.js';
import { requireCaller } from '../kit/grpc/require-caller.js';
import { createCommunityRepository, type CommunityRow, type MembershipRow, type ProfileRow } from './community.repository.js';


const orNull = (s: string) => (s === '' ? null : s);

function toMembership(row: MembershipRow): Membership {
  return Membership.fromPartial({
    communityId: row.community_id,
    profileId: row.profile_id,
    role: roles.toEnum(row.role),
    joinedAt: row.joined_at.toISOString(),
    sourceIdentifier: row.source_identifier,
  });
}

export function createCommunitiesService(deps: CommunitiesDeps) {
  const repo = createCommunityRepository(deps.db);
  const context: HandlerContext = { deps, repo, reachDeps: { db: deps.db, clients: deps.clients, signer: deps.signer, deadlineMs: deps.deadlineMs } };

  async function communityOrThrow(id: string): Promise<CommunityRow> {
    const row = await repo.findCommunity(id);
    if (!row) throw domainError('not_found', `community ${id} not found`);
    return row;
  }

  const implementation: ServiceRegistration<typeof CommunitiesServiceDefinition>['implementation'] = {
    async upsertCommunity(request, ctx) {
      const c = request.community;
      if (!c || !c.name.trim()) throw domainError('invalid_request', 'community.name is required');
      if (!c.billingOwner?.id) throw domainError('invalid_request', 'community.billing_owner is required');
      const id = requireId(c.id, 'community.id');
      await deps.db.transaction(async (tx) => {
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
      return { community: toCommunity(await communityOrThrow(id)) };
    },

    async getCommunity(request) {
      return { community: toCommunity(await communityOrThrow(request.communityId)) };
    },

    async archiveCommunity(request) {
      if (!(await repo.setArchived(request.communityId, request.archived))) {
        throw domainError('not_found', `community ${request.communityId} not found`);
      }
      return { community: toCommunity(await communityOrThrow(request.communityId)) };
    },

    async setApiWrites(request, ctx) {
      await communityOrThrow(request.communityId);
      const actor = request.actor || (ctx.principal.kind === 'operator' ? ctx.principal.actor : 'unknown');
      const version = await deps.db.transaction((tx) =>
        createCommunityRepository(tx).attestWrites(request.communityId, request.enabled, actor),
      );
      return { community: toCommunity(await communityOrThrow(request.communityId)), attestationVersion: version };
    },

    async upsertProfile(request, ctx) {
      const p = request.profile;
      if (!p || !p.name.trim()) throw domainError('invalid_request', 'profile.name is required');
      const row: ProfileRow = {
        id: requireId(p.id, 'profile.id'),
        user_id: orNull(p.userId),
        placeholder_user_id: orNull(p.placeholderUserId),
        public: p.public,
        name: p.name,
        headline: orNull(p.headline),
        bio: orNull(p.bio),
        organization: orNull(p.organization),
        location: orNull(p.location),
        email: orNull(p.email),
        linkedin_url: orNull(p.linkedinUrl),
        orcid: orNull(p.orcid),
        avatar_url: orNull(p.avatarUrl),
      };
      await repo.upsertProfile(row);
      await indexProfile(context, row.id, ctx.requestId);
      return { profile: toProfile((await repo.findProfile(row.id))!, 'operator') };
    },

    async getProfile(request) {
      if (Boolean(request.profileId) === Boolean(request.userId)) throw domainError('invalid_request', 'give exactly one of profile_id and user_id');
      const row = request.profileId ? await repo.findProfile(request.profileId) : await repo.findProfileByUser(request.userId);
      if (!row) throw domainError('not_found', request.profileId ? `profile ${request.profileId} not found` : `user ${request.userId} has no profile`);
      return { profile: toProfile(row, 'operator') };
    },

    async getOwnProfile(_request, ctx) {
      const caller = requireCaller(ctx, 'profile:read');
      const row = caller.userId ? await repo.findProfileByUser(caller.userId) : undefined;
      if (!row) {
        throw domainError('not_found', caller.userId ? 'you have no profile yet' : 'an organization-owned key has no user, so no profile');
      }
      return { profile: toProfile(row, 'caller') };
    },

    async upsertMembership(request, ctx) {
      const m = request.membership;
      if (!m) throw domainError('invalid_request', 'membership is required');
      await communityOrThrow(m.communityId);
      if (!(await repo.findProfile(m.profileId))) throw domainError('invalid_request', `unknown profile ${m.profileId}`);
      const existing = await repo.findMembership(m.communityId, m.profileId);
      await repo.upsertMembership({
        community_id: m.communityId,
        profile_id: m.profileId,
        role: roles.toName(m.role, 'membership.role'),
        joined_at: m.joinedAt ? new Date(m.joinedAt) : new Date(),
        source_identifier: existing?.source_identifier ?? (m.sourceIdentifier || `src_${randomUUID()}`),
      });
      await indexMemberships(context, m.communityId, [m.profileId], ctx.requestId);
      return { membership: toMembership((await repo.findMembership(m.communityId, m.profileId))!) };
    },

    async getReach(request, ctx) {
      const caller = requireCaller(ctx);
      const access = request.access === Access.ACCESS_WRITE ? 'write' : 'read';
      const reach = await computeReach(context.reachDeps, caller, ctx.requestId);
      return { communityIds: [...reach[access]].sort() };
    },

    async reindexSearch(request, ctx) {
      const batchSize = request.batchSize === 0 ? 500 : request.batchSize;
      if (batchSize > 5000) throw domainError('invalid_request', 'batch_size is at most 5000');
      return reindexAll(context, batchSize, ctx.requestId);
    },

    ...createRosterHandlers(context),
    ...createMemberWriteHandlers(context),
    ...createEnrichmentSupportHandlers(context),

    async getUserStanding(request) {
      const [managesCommunity, managedOrganizationOwnsCommunity] = await Promise.all([
        repo.userManagesCommunity(request.userId),
        repo.anyOrganizationOwnsCommunity(request.managedOrganizationIds),
      ]);
      return { managesCommunity, managedOrganizationOwnsCommunity };
    },
  };

  const registration: ServiceRegistration<typeof CommunitiesServiceDefinition> = {
    definition: CommunitiesServiceDefinition,
    implementation,
    access: {
      upsertCommunity: ['operator'],
      getCommunity: ['operator', 'service'],
      archiveCommunity: ['operator'],
      upsertProfile: ['operator'],
      getProfile: ['operator', 'service'],
      upsertMembership: ['operator'],
      getUserStanding: ['service', 'operator'],
      getReach: ['caller', 'service'],
      listMembers: ['caller'],
      getMember: ['caller'],
      getOwnProfile: ['caller'],
      addMembers: ['caller'],
      removeMember: ['caller'],
      setApiWrites: ['operator'],
      listConsentRequests: ['operator'],
      resolveConsentRequest: ['operator'],
      authorizeWrite: ['caller'],
      getMembership: ['operator', 'service'],
      // The enrichment service sizes a community run with it.
      countMembers: ['operator', 'service'],
      reindexSearch: ['operator'],
      // The enrichment service's reads and writes for its runs.
      scanMembers: ['service'],
      indexEnrichedMembers: ['service'],
      applyOwnEnrichment: ['service'],
    },
  };
  // Finishes placeholder-account work and erasure follow-ups an add or erasure could not (task-sweeper.ts).
  const sweeper = startTaskSweeper(context, { atStart: true });
  return { registration, stop: () => sweeper.stop() };
}
