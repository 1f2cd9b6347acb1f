// The communities service: the operator side (communities, profiles, memberships, write
// attestations, the consent queue, search re-index), the standing facts identity needs at mint,
// live reach, roster reads, member writes, and the enrichment service's reads and writes for its
// runs. Each handler delegates to the domain module named for what it does and maps the result
// with communities-messages.ts.
import { Access, CommunitiesServiceDefinition } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { domainError } from '../kit/grpc/errors.js';
import { requireCaller } from '../kit/grpc/require-caller.js';
import type { ServiceRegistration } from '../kit/grpc/server.js';
import { createCommunitiesContext, type CommunitiesDeps } from './communities-context.js';
import { toCommunity, toConsentRequest, toMembership, toProfile } from './communities-messages.js';
import * as records from './community-records.js';
import { listCommunities } from './community-listing.js';
import * as consentQueue from './consent-queue.js';
import * as enrichmentSupport from './enrichment-support.js';
import * as eventLog from './event-log.js';
import { OPERATOR_WEBHOOK_ACCESS, operatorWebhookHandlers } from './operator-webhooks.js';
import { WEBHOOK_ENDPOINT_ACCESS, webhookEndpointHandlers } from './webhook-endpoints.js';
import * as memberships from './memberships.js';
import * as memberWrites from './member-writes.js';
import * as ownerRights from './owner-rights.js';
import * as profiles from './profiles.js';
import { computeReach } from './reach.js';
import * as roster from './roster.js';
import { startTaskSweeper } from './task-sweeper.js';
import { listUserReach } from './user-reach.js';
import { reindexAll } from './search-index.js';
import { startWebhookDelivery, type WebhookDeliveryOptions } from './webhook-worker.js';

export function createCommunitiesService(deps: CommunitiesDeps, options: { webhookAllowPrivateUrls?: boolean; webhooks?: WebhookDeliveryOptions } = {}) {
  const context = createCommunitiesContext(deps);

  const implementation: ServiceRegistration<typeof CommunitiesServiceDefinition>['implementation'] = {
    async upsertCommunity(request, ctx) {
      const id = await records.upsertCommunity(context, request.community, ctx);
      return { community: toCommunity(await records.getCommunity(context, id)) };
    },

    async getCommunity(request) {
      return { community: toCommunity(await records.getCommunity(context, request.communityId)) };
    },

    async listAllCommunities(request) {
      const page = await records.listAllCommunities(context, request);
      return { communities: page.items.map((row) => ({ community: toCommunity(row), memberCount: row.member_count })), nextPageToken: page.nextPageToken };
    },

    async archiveCommunity(request) {
      await records.archiveCommunity(context, request.communityId, request.archived);
      return { community: toCommunity(await records.getCommunity(context, request.communityId)) };
    },

    async setApiWrites(request, ctx) {
      const actor = await ownerRights.requireControl(context, ctx, request.communityId);
      const version = await records.setApiWrites(context, actor ? { ...request, actor } : request, ctx);
      return { community: toCommunity(await records.getCommunity(context, request.communityId)), attestationVersion: version };
    },

    async upsertProfile(request, ctx) {
      return { profile: toProfile(await profiles.upsertProfile(context, request.profile, ctx.requestId), 'operator') };
    },

    async getProfile(request) {
      return { profile: toProfile(await profiles.getProfile(context, request), 'operator') };
    },

    async getOwnProfile(_request, ctx) {
      return { profile: toProfile(await profiles.getOwnProfile(context, ctx), 'caller') };
    },

    async upsertMembership(request, ctx) {
      return { membership: toMembership(await memberships.upsertMembership(context, request.membership, ctx.requestId)) };
    },

    async getMembership(request) {
      return { membership: toMembership(await memberships.getMembership(context, request)) };
    },

    async countMembers(request) {
      return { count: await memberships.countMembers(context, request.communityId) };
    },

    async getUserStanding(request) {
      return records.userStanding(context, request);
    },

    async getReach(request, ctx) {
      const caller = requireCaller(ctx);
      const access = request.access === Access.ACCESS_WRITE ? 'write' : 'read';
      const reach = await computeReach(context.reachDeps, caller, ctx.requestId);
      return { communityIds: [...reach[access]].sort() };
    },

    async listCommunities(request, ctx) {
      return listCommunities(context, request, ctx);
    },

    async reindexSearch(request, ctx) {
      const batchSize = request.batchSize === 0 ? 500 : request.batchSize;
      if (batchSize > 5000) throw domainError('invalid_request', 'batch_size is at most 5000');
      return reindexAll(context, batchSize, ctx.requestId);
    },

    listMembers: (request, ctx) => roster.listMembers(context, request, ctx),

    async getMember(request, ctx) {
      return roster.getMember(context, request, ctx);
    },

    async addMembers(request, ctx) {
      return { results: await memberWrites.addMembers(context, request, ctx) };
    },

    async removeMember(request, ctx) {
      const authAccountDeleted = await memberWrites.removeMember(context, request, ctx);
      return { communityId: request.communityId, profileId: request.profileId, authAccountDeleted };
    },

    async authorizeWrite(request, ctx) {
      return { community: toCommunity(await memberWrites.authorizeWrite(context, request, ctx)) };
    },

    async listConsentRequests(request, ctx) {
      await ownerRights.requireControl(context, ctx, request.communityId);
      const { requests, nextPageToken } = await consentQueue.listConsentRequests(context, request);
      return { requests: requests.map(toConsentRequest), nextPageToken };
    },

    async resolveConsentRequest(request, ctx) {
      const actor = await ownerRights.requireConsentControl(context, ctx, request.consentRequestId);
      if (actor) request = { ...request, actor };
      return { request: toConsentRequest(await consentQueue.resolveConsentRequest(context, request, ctx)) };
    },

    async listControlledCommunities(request, ctx) {
      return { communities: await ownerRights.listControlledCommunities(context, ctx, request.userId) };
    },

    async listUserReach(request, ctx) {
      return { communities: await listUserReach(context, ctx, request.userId) };
    },

    async scanMembers(request) {
      return enrichmentSupport.scanMembers(context, request);
    },

    async indexEnrichedMembers(request, ctx) {
      return { indexed: await enrichmentSupport.indexEnrichedMembers(context, request, ctx.requestId) };
    },

    async applyOwnEnrichment(request, ctx) {
      return { profile: await enrichmentSupport.applyOwnEnrichment(context, request, ctx.requestId) };
    },
    ...eventLog.eventHandlers(context), ...webhookEndpointHandlers(context, { allowPrivate: options.webhookAllowPrivateUrls === true }), ...operatorWebhookHandlers(context),
  };

  const registration: ServiceRegistration<typeof CommunitiesServiceDefinition> = {
    definition: CommunitiesServiceDefinition,
    implementation,
    access: {
      upsertCommunity: ['operator'],
      getCommunity: ['operator', 'service'],
      archiveCommunity: ['operator'],
      listAllCommunities: ['operator'],
      upsertProfile: ['operator'],
      getProfile: ['operator', 'service'],
      upsertMembership: ['operator'],
      getUserStanding: ['service', 'operator'],
      getReach: ['caller', 'service'],
      listCommunities: ['caller', 'direct'],
      listMembers: ['caller', 'direct'],
      getMember: ['caller', 'direct'],
      getOwnProfile: ['caller', 'direct'],
      addMembers: ['caller', 'direct'],
      removeMember: ['caller', 'direct'],
      setApiWrites: ['operator', 'user'],
      listConsentRequests: ['operator', 'user'],
      resolveConsentRequest: ['operator', 'user'],
      listControlledCommunities: ['operator', 'user'],
      // The settings web app (the user's own) and identity at mint (re-checking an allowlist).
      listUserReach: ['operator', 'user', 'service'],
      authorizeWrite: ['caller'],
      getMembership: ['operator', 'service'],
      // The enrichment service sizes a community run with it.
      countMembers: ['operator', 'service'],
      reindexSearch: ['operator'],
      // The enrichment service's reads and writes for its runs.
      scanMembers: ['service'],
      indexEnrichedMembers: ['service'],
      applyOwnEnrichment: ['service'],
      ...eventLog.EVENT_ACCESS, ...WEBHOOK_ENDPOINT_ACCESS, ...OPERATOR_WEBHOOK_ACCESS,
    },
    // A bulk add answers each item on its own: an item's unstorable text rejects that item (add-members.ts).
    itemized: { addMembers: 'members' },
  };
  // Finishes the work adds and erasures left undone (task-sweeper.ts); sends webhook deliveries (webhook-worker.ts).
  const workers = [startTaskSweeper(context, { atStart: true }), startWebhookDelivery(context, options.webhookAllowPrivateUrls === true, options.webhooks)];
  return { registration, stop: async () => void (await Promise.all(workers.map((w) => w.stop()))) };
}
