// The identity service: authenticate credentials (API keys and OAuth access tokens), describe
// them, mint/list/revoke/roll/rename keys, create/list/revoke OAuth grants, keep users and organizations,
// placeholder accounts, the seed ledger, the request log and service accounts. Each handler delegates to the domain module named for
// what it does and maps the result with identity-messages.ts.
import { IdentityServiceDefinition } from '../../proto/gen/expertnet/identity/v1/identity_service.js';
import type { ServiceRegistration } from '../kit/grpc/server.js';
import { authenticate, describeCredential } from './authentication.js';
import { IDENTITY_ACCESS } from './identity-access.js';
import { createIdentityContext, type IdentityDeps, type IdentityOptions } from './identity-context.js';
import { toApiKey, toOAuthGrant, toOrganization, toSeedState, toUser, toUserOrganization } from './identity-messages.js';
import * as jitConsent from './jit-consent.js';
import * as keyManagement from './key-management.js';
import * as oauthGrants from './oauth-grants.js';
import { listKeysByPrefix } from './key-lookup.js';
import { listOrganizationKeys } from './organization-keys.js';
import { requireOwnKey, requireOwnPersonalKey, requireSelf } from './own-keys.js';
import { createPlaceholderAccount, deletePlaceholderAccount } from './placeholder-accounts.js';
import { listRequests, recordRequests } from './request-log.js';
import { recordSeedRecords } from './seed-ledger.js';
import { serviceAccountHandlers } from './service-account-handlers.js';
import { getUsage } from './usage-history.js';
import * as accounts from './users-and-organizations.js';
import * as webSessions from './web-sessions.js';

export function createIdentityService(deps: IdentityDeps, options: IdentityOptions = {}) {
  const context = createIdentityContext(deps, options);

  const implementation: ServiceRegistration<typeof IdentityServiceDefinition>['implementation'] = {
    async authenticate(request, ctx) {
      return authenticate(context, request, ctx);
    },

    async describeCredential(_request, ctx) {
      return describeCredential(context, ctx);
    },

    async mintKey(request, ctx) {
      requireSelf(ctx, request.userId);
      const { row, secret } = await keyManagement.mintKey(context, request, ctx);
      return { key: toApiKey(row), secret };
    },

    async importLegacyOrganizationKey(request) {
      return { key: toApiKey(await keyManagement.importLegacyOrganizationKey(context, request)) };
    },

    async listKeys(request, ctx) {
      requireSelf(ctx, request.userId);
      const page = await keyManagement.listKeys(context, request, ctx);
      return { keys: page.items.map(toApiKey), nextPageToken: page.nextPageToken };
    },

    async listOrganizationKeys(request, ctx) {
      return { organizations: await listOrganizationKeys(context, ctx, request.userId) };
    },

    async revokeKey(request, ctx) {
      await requireOwnKey(context, ctx, request.keyId);
      return { key: toApiKey(await keyManagement.revokeKey(context, request.keyId)) };
    },

    async rollKey(request, ctx) {
      await requireOwnPersonalKey(context, ctx, request.keyId);
      const { row, secret, previous } = await keyManagement.rollKey(context, request, ctx);
      return { key: toApiKey(row), secret, previous: toApiKey(previous) };
    },

    async renameKey(request, ctx) {
      await requireOwnPersonalKey(context, ctx, request.keyId);
      return { key: toApiKey(await keyManagement.renameKey(context, request)) };
    },

    async createGrant(request, ctx) {
      return { grant: toOAuthGrant(await oauthGrants.createGrant(context, request, ctx)) };
    },

    async issueAccessToken(request, ctx) {
      const { grant, token, expiresAt } = await oauthGrants.issueAccessToken(context, request, ctx);
      return { accessToken: token, grantId: grant.id, expiresAt: expiresAt.toISOString(), grant: toOAuthGrant(grant) };
    },

    async revokeGrant(request, ctx) {
      return { grant: toOAuthGrant(await oauthGrants.revokeGrant(context, ctx, request.grantId)) };
    },

    async listGrants(request, ctx) {
      const page = await oauthGrants.listGrants(context, ctx, request);
      return { grants: page.items.map(toOAuthGrant), nextPageToken: page.nextPageToken };
    },

    async upsertUser(request) {
      return { user: toUser(await accounts.upsertUser(context, request.user)) };
    },

    async getUser(request, ctx) {
      requireSelf(ctx, request.userId, 'account');
      return { user: toUser(await accounts.getUser(context, request.userId)) };
    },

    async listKeysByPrefix(request) {
      const page = await listKeysByPrefix(context, request);
      return { keys: page.items.map(toApiKey), nextPageToken: page.nextPageToken };
    },

    async listUsers(request) {
      const page = await accounts.listUsers(context, request);
      return { users: page.items.map(toUser), nextPageToken: page.nextPageToken };
    },

    async setUserPlan(request) {
      return { user: toUser(await accounts.setUserPlan(context, request.userId, request.plan)) };
    },

    async upsertOrganization(request) {
      const id = await accounts.upsertOrganization(context, request.organization);
      const { org, members } = await accounts.getOrganization(context, id);
      return { organization: toOrganization(org, members) };
    },

    async getOrganization(request) {
      const { org, members } = await accounts.getOrganization(context, request.organizationId);
      return { organization: toOrganization(org, members) };
    },

    async listUserOrganizations(request) {
      return { organizations: (await accounts.organizationsOfUser(context, request.userId)).map(toUserOrganization) };
    },

    async createPlaceholderAccount(request) {
      return { userId: await createPlaceholderAccount(context, request) };
    },

    async deletePlaceholderAccount(request) {
      return { deleted: await deletePlaceholderAccount(context, request) };
    },

    async getSeedState() {
      return toSeedState(await context.seedLedger.state());
    },

    async recordSeedRecords(request) {
      await recordSeedRecords(context.seedLedger, request);
      return {};
    },

    async createSignInLink(request) {
      return webSessions.createSignInLink(context, request);
    },

    async redeemSignInLink(request) {
      return webSessions.redeemSignInLink(context, request);
    },

    async signInWithProvider(request) {
      return webSessions.signInWithProvider(context, request);
    },

    async resolveSession(request) {
      return webSessions.resolveSession(context, request.sessionId);
    },

    async endSession(request) {
      return webSessions.endSession(context, request.sessionId);
    },

    async getUsage(request, ctx) {
      requireSelf(ctx, request.userId, 'usage');
      return getUsage(context, request);
    },

    async setJitConsent(request, ctx) {
      return { jitConsent: await jitConsent.setJitConsent(context, ctx, request) };
    },

    async listManagedOrganizations(request, ctx) {
      requireSelf(ctx, request.userId, 'account');
      return { organizations: await jitConsent.listManagedOrganizations(context, request.userId) };
    },

    async recordRequests(request) {
      return recordRequests(context, request);
    },

    async listRequests(request, ctx) {
      requireSelf(ctx, request.userId, 'requests');
      return listRequests(context, request);
    },

    ...serviceAccountHandlers(context),
  };

  const registration: ServiceRegistration<typeof IdentityServiceDefinition> = {
    definition: IdentityServiceDefinition,
    implementation,
    access: IDENTITY_ACCESS,
  };
  return { registration, stop: async () => void (await Promise.all([context.keyUsage.stop(), context.grantUsage.stop(), context.serviceAccountUsage.stop(), context.requestLogRetention.stop()])) };
}
