// The identity service: authenticate credentials (API keys and OAuth access tokens), describe
// them, mint/list/revoke keys, create/list/revoke OAuth grants, and keep users and organizations.
// Handlers check who may act, then delegate to the repositories.
import {
  ApiKey,
  IdentityServiceDefinition,
  OAuthGrant,
  Organization,
  User,
} from '../../proto/gen/expertnet/identity/v1/identity_service.js';
import { Caller, CredentialKind } from '../../proto/gen/expertnet/common/v1/common.js';
import { isUniqueViolation } from '../kit/db/database.js';
import { credentialKinds, keyEnvironments, ownerTypes, plans, rateTiers, roles } from '../kit/enums.js';
import { callAs } from '../kit/grpc/client.js';
import { domainError, relayRemoteError } from '../kit/grpc/errors.js';
import type { ServiceContext, ServiceRegistration } from '../kit/grpc/server.js';
import { createAccessTokens, DEFAULT_TTL_SECONDS, type AccessTokens, type OAuthOptions } from './access-token.js';
import { newId, requireId } from '../kit/ids.js';
import { clampPageSize, pageOf } from '../kit/paging.js';
import type { ServiceDeps } from '../kit/service-deps.js';
import { checkSecret, displayPrefixOf, generateSecret, hashSecret } from './api-key-secret.js';
import { createGrantRepository, type GrantRow } from './grant.repository.js';
import { createKeyRepository, type DescribedKeyRow, type KeyRow } from './key.repository.js';
import { rateTierFor, scopesWithPreset, validAllowlist, validRequestedRate, validScopes } from './key-minting.js';
import { createUsageRecorder, utcDay } from './usage-recorder.js';
import { createUsageStore, GRANT_USAGE, KEY_USAGE } from './usage-store.js';
import { createPlaceholderRepository } from './placeholder.repository.js';
import { createSeedLedgerHandlers } from './seed-ledger.js';
import { createUserRepository, type UserRow } from './user.repository.js';

export type IdentityDeps = Pick<ServiceDeps, 'db' | 'pepper' | 'clients' | 'signer' | 'deadlineMs' | 'logger'>;

export interface IdentityOptions {
  /** OAuth access tokens (docs/OAUTH.md). Absent: OAuth is off and every access token is refused. */
  oauth?: OAuthOptions;
}

/** An OAuth client id: 1-200 visible ASCII characters (URLs allowed). Empty means "local". */
const CLIENT_ID_PATTERN = /^[\x21-\x7e]{1,200}$/;

export function toApiKey(row: KeyRow): ApiKey {
  return ApiKey.fromPartial({
    id: row.id,
    prefix: row.display_prefix,
    environment: keyEnvironments.toEnum(row.environment),
    owner: { type: ownerTypes.toEnum(row.owner_type), id: row.owner_id },
    scopes: row.scopes,
    allowlist: row.allowlist === null ? undefined : { communityIds: row.allowlist },
    rateTier: rateTiers.toEnum(row.rate_tier),
    requestedRate: row.requested_rate,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at?.toISOString(),
    revokedAt: row.revoked_at?.toISOString(),
    mintedByUserId: row.minted_by_user_id ?? '',
  });
}

function toUser(row: UserRow): User {
  return User.fromPartial({
    id: row.id,
    email: row.email ?? '',
    name: row.name,
    plan: plans.toEnum(row.plan),
    jitConsent: row.jit_consent,
    createdAt: row.created_at.toISOString(),
  });
}

export function toOAuthGrant(row: GrantRow): OAuthGrant {
  return OAuthGrant.fromPartial({
    id: row.id,
    userId: row.user_id,
    clientId: row.client_id,
    scopes: row.scopes,
    rateTier: rateTiers.toEnum(row.rate_tier),
    requestedRate: row.requested_rate,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at?.toISOString(),
    revokedAt: row.revoked_at?.toISOString(),
  });
}

/** A grant as DescribeCredential shows it, in the shape of a key: no prefix, always live and personal. */
function grantAsApiKey(row: GrantRow): ApiKey {
  return ApiKey.fromPartial({
    id: row.id,
    prefix: '',
    environment: keyEnvironments.toEnum('live'),
    owner: { type: ownerTypes.toEnum('user'), id: row.user_id },
    scopes: row.scopes,
    rateTier: rateTiers.toEnum(row.rate_tier),
    requestedRate: row.requested_rate,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at?.toISOString(),
    revokedAt: row.revoked_at?.toISOString(),
    mintedByUserId: row.user_id,
  });
}

/** The caller an access token stands for: the grant's user, the token's scopes, the grant's rate. */
function callerOfGrant(row: GrantRow, scopes: string[]): Caller {
  return Caller.fromPartial({
    credentialId: row.id,
    credential: credentialKinds.toEnum('oauth'),
    owner: { type: ownerTypes.toEnum('user'), id: row.user_id },
    userId: row.user_id,
    scopes,
    rateTier: rateTiers.toEnum(row.rate_tier),
    requestedRate: row.requested_rate,
    environment: keyEnvironments.toEnum('live'),
  });
}

function callerOf(row: KeyRow): Caller {
  return Caller.fromPartial({
    credentialId: row.id,
    credential: credentialKinds.toEnum('api_key'),
    owner: { type: ownerTypes.toEnum(row.owner_type), id: row.owner_id },
    userId: row.owner_type === 'user' ? row.owner_id : '',
    scopes: row.scopes,
    allowlist: row.allowlist === null ? undefined : { communityIds: row.allowlist },
    rateTier: rateTiers.toEnum(row.rate_tier),
    requestedRate: row.requested_rate,
    environment: keyEnvironments.toEnum(row.environment),
  });
}

export function createIdentityService(deps: IdentityDeps, options: IdentityOptions = {}) {
  const keys = createKeyRepository(deps.db);
  const grants = createGrantRepository(deps.db);
  const users = createUserRepository(deps.db);
  const placeholders = createPlaceholderRepository(deps.db);
  const usage = createUsageRecorder(createUsageStore(deps.db, KEY_USAGE), (err) => deps.logger.error({ err }, 'usage flush failed'));
  const grantUsage = createUsageRecorder(createUsageStore(deps.db, GRANT_USAGE), (err) => deps.logger.error({ err }, 'grant usage flush failed'));
  const accessTokens: AccessTokens | undefined = options.oauth ? createAccessTokens(options.oauth) : undefined;

  async function organizationView(id: string): Promise<Organization> {
    const org = await users.findOrganization(id);
    if (!org) throw domainError('not_found', `organization ${id} not found`);
    const members = await users.organizationMembers(id);
    return Organization.fromPartial({
      id: org.id,
      name: org.name,
      jitConsent: org.jit_consent,
      members: members.map((m) => ({ userId: m.user_id, role: roles.toEnum(m.role), joinedAt: m.joined_at.toISOString() })),
    });
  }

  async function privilegeFacts(user: UserRow, ctx: ServiceContext) {
    const managed = (await users.organizationsOfUser(user.id))
      .filter((m) => m.role === 'owner' || m.role === 'admin')
      .map((m) => m.organization_id);
    const options = await callAs(deps.signer, { kind: 'service', service: 'identity' }, ctx.requestId, deps.deadlineMs);
    const standing = await deps.clients.communities
      .getUserStanding({ userId: user.id, managedOrganizationIds: managed }, options)
      .catch(relayRemoteError);
    return {
      plan: user.plan,
      managesCommunity: standing.managesCommunity,
      managedOrganizationOwnsCommunity: standing.managedOrganizationOwnsCommunity,
    };
  }

  /** The rate tier of a new personal credential (a key or an OAuth grant): decided now, then stored. */
  async function rateTierOf(user: UserRow, ctx: ServiceContext) {
    return rateTierFor(await privilegeFacts(user, ctx));
  }

  /** Creates a grant for a user's consent to one client; the tier is decided now, like a key's. */
  async function createGrant(
    request: { userId: string; scopes: string[]; clientId: string; requestedRate: number },
    ctx: ServiceContext,
  ): Promise<GrantRow> {
    const user = await users.findUser(request.userId);
    if (!user) throw domainError('invalid_request', `unknown user ${request.userId}; grants are always personal`);
    const clientId = request.clientId || 'local';
    if (!CLIENT_ID_PATTERN.test(clientId)) throw domainError('invalid_request', 'client_id must be 1-200 visible ASCII characters');
    const scopes = validScopes(request.scopes);
    const requestedRate = validRequestedRate(request.requestedRate);
    return grants.insert({
      id: newId('grant'),
      user_id: user.id,
      client_id: clientId,
      scopes,
      rate_tier: await rateTierOf(user, ctx),
      requested_rate: requestedRate,
    });
  }

  /**
   * The grant behind an access token presented to `resource` (the edge's; '' is the REST API),
   * re-checked against live state: the token verifies for that resource's audience, its grant
   * exists, is not revoked and belongs to its subject, and its scopes are within the grant's.
   */
  async function grantOfAccessToken(token: string, resource: string): Promise<{ grant: GrantRow; scopes: string[] }> {
    if (!accessTokens) throw domainError('unauthorized', 'access tokens are not accepted: OAuth is not configured');
    if (resource && !accessTokens.audiences.includes(resource)) {
      // The edge and identity disagree on a resource URL: every token on that surface is refused.
      deps.logger.warn({ resource, served: accessTokens.audiences }, 'access token presented for a resource identity does not serve (check MCP_RESOURCE_URL)');
    }
    const claims = await accessTokens.verify(token, resource);
    const grant = await grants.findById(claims.grantId);
    if (!grant || grant.revoked_at || grant.user_id !== claims.userId) {
      throw domainError('unauthorized', 'access token grant is revoked or unknown');
    }
    if (claims.scopes.some((s) => !grant.scopes.includes(s))) {
      throw domainError('unauthorized', 'access token scopes exceed its grant');
    }
    return { grant, scopes: claims.scopes };
  }

  /** A live key's description; requests counted in this process and not yet stored are added. */
  function describedKey(row: DescribedKeyRow, today: string) {
    const unflushed = usage.unflushed(row.id, today);
    return {
      key: toApiKey(row),
      owner: { type: ownerTypes.toEnum(row.owner_type), id: row.owner_id, name: row.owner_name ?? '' },
      usage: { requestsToday: row.today + unflushed, requestsThisMonth: row.month + unflushed },
    };
  }

  async function describeGrant(caller: Caller) {
    const row = await grants.findById(caller.credentialId);
    if (!row || row.revoked_at || row.user_id !== caller.userId) {
      throw domainError('unauthorized', 'access token grant is revoked or unknown');
    }
    const today = utcDay(new Date());
    const stored = await grants.usage(row.id, today);
    const unflushed = grantUsage.unflushed(row.id, today);
    return {
      key: grantAsApiKey(row),
      owner: { type: ownerTypes.toEnum('user'), id: row.user_id, name: (await users.findUser(row.user_id))?.name ?? '' },
      usage: { requestsToday: stored.today + unflushed, requestsThisMonth: stored.month + unflushed },
    };
  }

  /** A verbatim secret (seed files) must be well-formed; otherwise a fresh one is generated. */
  function secretFor(requested: string, environment: 'live' | 'test'): { secret: string; environment: 'live' | 'test' } {
    if (!requested) return { secret: generateSecret(environment), environment };
    const env = checkSecret(requested);
    if (!env) throw domainError('invalid_request', 'secret is not a well-formed key (prefix, length or checksum)');
    return { secret: requested, environment: env };
  }

  /**
   * Inserts a key. When its id exists (a seed applied again) the grants a seed may change are
   * updated and `reapplied` is true; a different owner, or a different verbatim secret, is refused.
   */
  async function insertOrReapply(
    row: Omit<KeyRow, 'created_at' | 'last_used_at' | 'revoked_at'>,
    secretWasGiven: boolean,
  ): Promise<{ row: KeyRow; reapplied: boolean }> {
    try {
      const inserted = await keys.insert(row);
      if (inserted) return { row: inserted, reapplied: false };
    } catch (error) {
      if (isUniqueViolation(error)) throw domainError('invalid_request', 'that secret is already in use by another key');
      throw error;
    }
    const existing = (await keys.findById(row.id))!;
    if (existing.owner_type !== row.owner_type || existing.owner_id !== row.owner_id ||
        (secretWasGiven && existing.secret_hash !== row.secret_hash)) {
      throw domainError('invalid_request', `key ${row.id} already exists with another secret or owner`);
    }
    return { row: await keys.updateGrants(row.id, row.scopes, row.allowlist, row.requested_rate), reapplied: true };
  }

  const implementation: ServiceRegistration<typeof IdentityServiceDefinition>['implementation'] = {
    async authenticate(request) {
      if (Boolean(request.apiKey) === Boolean(request.accessToken)) {
        throw domainError('invalid_request', 'send exactly one of api_key and access_token');
      }
      if (request.accessToken) {
        const { grant, scopes } = await grantOfAccessToken(request.accessToken, request.resource);
        grantUsage.record(grant.id);
        const caller = callerOfGrant(grant, scopes);
        return { caller, description: request.describe ? await describeGrant(caller) : undefined };
      }
      const refused = domainError('unauthorized', 'invalid or revoked API key');
      if (!checkSecret(request.apiKey)) throw refused;
      const secretHash = hashSecret(request.apiKey, deps.pepper);
      if (request.describe) {
        // One statement finds the live key and describes it.
        const today = utcDay(new Date());
        const row = await keys.describe({ secretHash }, today);
        if (!row) throw refused;
        usage.record(row.id);
        return { caller: callerOf(row), description: describedKey(row, today) };
      }
      const row = await keys.findActiveByHash(secretHash);
      if (!row) throw refused;
      usage.record(row.id);
      return { caller: callerOf(row) };
    },

    async describeCredential(_request, ctx) {
      if (ctx.principal.kind !== 'caller') throw domainError('forbidden', 'needs a caller');
      if (ctx.principal.caller.credential === CredentialKind.CREDENTIAL_KIND_OAUTH) return describeGrant(ctx.principal.caller);
      const today = utcDay(new Date());
      const row = await keys.describe({ id: ctx.principal.caller.credentialId }, today);
      if (!row) throw domainError('unauthorized', 'invalid or revoked API key');
      return describedKey(row, today);
    },

    async mintKey(request, ctx) {
      const isOperator = ctx.principal.kind === 'operator';
      if ((request.secret || request.id) && !isOperator) {
        throw domainError('forbidden', 'only an operator may fix a key id or secret');
      }
      const user = await users.findUser(request.userId);
      if (!user) throw domainError('invalid_request', `unknown user ${request.userId}; keys are always personal`);
      const scopes = validScopes(scopesWithPreset(request.preset, request.scopes));
      const allowlist = validAllowlist(request.allowlist?.communityIds);
      const requestedRate = validRequestedRate(request.requestedRate);
      const wanted = request.environment ? keyEnvironments.toName(request.environment, 'environment') : 'live';
      const { secret, environment } = secretFor(request.secret, wanted);
      const tier = await rateTierOf(user, ctx);
      const { row, reapplied } = await insertOrReapply({
        id: request.id ? requireId(request.id, 'id') : newId('key'),
        secret_hash: hashSecret(secret, deps.pepper),
        display_prefix: displayPrefixOf(secret),
        environment,
        owner_type: 'user',
        owner_id: user.id,
        minted_by_user_id: user.id,
        scopes,
        allowlist,
        rate_tier: tier,
        requested_rate: requestedRate,
      }, Boolean(request.secret));
      // A re-applied key keeps its original secret, which is never shown again.
      return { key: toApiKey(row), secret: reapplied ? '' : secret };
    },

    async importLegacyOrganizationKey(request) {
      const org = await users.findOrganization(request.organizationId);
      if (!org) throw domainError('invalid_request', `unknown organization ${request.organizationId}`);
      const environment = checkSecret(request.secret);
      if (!environment) throw domainError('invalid_request', 'a legacy key needs a well-formed secret');
      const { row } = await insertOrReapply({
        id: requireId(request.id, 'id'),
        secret_hash: hashSecret(request.secret, deps.pepper),
        display_prefix: displayPrefixOf(request.secret),
        environment,
        owner_type: 'organization',
        owner_id: org.id,
        minted_by_user_id: request.mintedByUserId || null,
        scopes: validScopes(request.scopes),
        allowlist: validAllowlist(request.allowlist?.communityIds),
        rate_tier: rateTierFor('organization'),
        requested_rate: validRequestedRate(request.requestedRate),
      }, true);
      return { key: toApiKey(row) };
    },

    async listKeys(request) {
      const limit = clampPageSize(request.pageSize);
      const page = pageOf(await keys.listMintedBy(request.userId, limit + 1, request.pageToken), limit, (k) => k.id);
      return { keys: page.items.map(toApiKey), nextPageToken: page.nextPageToken };
    },

    async revokeKey(request) {
      const row = await keys.revoke(request.keyId);
      if (!row) throw domainError('not_found', `key ${request.keyId} not found`);
      return { key: toApiKey(row) };
    },

    async createGrant(request, ctx) {
      return { grant: toOAuthGrant(await createGrant(request, ctx)) };
    },

    async issueAccessToken(request, ctx) {
      if (!accessTokens) throw domainError('unprocessable', 'OAuth is not configured: no access tokens can be issued');
      if (accessTokens.mode === 'external') {
        throw domainError('unprocessable', 'access tokens come from the external identity provider (OAUTH_JWKS_URL); use CreateGrant');
      }
      const ttlSeconds = request.ttlSeconds || DEFAULT_TTL_SECONDS;
      if (ttlSeconds > accessTokens.maxLifetimeSeconds) {
        throw domainError('invalid_request', `ttl_seconds must be 1 to ${accessTokens.maxLifetimeSeconds}`);
      }
      // Checked before the grant is created: a refused request leaves nothing behind.
      const audience = accessTokens.audienceFor(request.resource);
      const grant = await createGrant(request, ctx);
      const issued = await accessTokens.issue({
        userId: grant.user_id, scopes: grant.scopes, grantId: grant.id, clientId: grant.client_id, ttlSeconds, audience,
      });
      return {
        accessToken: issued.token,
        grantId: grant.id,
        expiresAt: issued.expiresAt.toISOString(),
        grant: toOAuthGrant(grant),
      };
    },

    async revokeGrant(request) {
      const row = await grants.revoke(request.grantId);
      if (!row) throw domainError('not_found', `grant ${request.grantId} not found`);
      return { grant: toOAuthGrant(row) };
    },

    async listGrants(request) {
      const limit = clampPageSize(request.pageSize);
      const page = pageOf(await grants.listOfUser(request.userId, limit + 1, request.pageToken), limit, (g) => g.id);
      return { grants: page.items.map(toOAuthGrant), nextPageToken: page.nextPageToken };
    },

    async upsertUser(request) {
      const u = request.user;
      if (!u) throw domainError('invalid_request', 'user is required');
      if (!u.name.trim()) throw domainError('invalid_request', 'user.name is required');
      try {
        const row = await users.upsertUser({
          id: requireId(u.id, 'user.id'),
          email: u.email || null,
          name: u.name,
          plan: u.plan ? plans.toName(u.plan, 'user.plan') : 'free',
          jit_consent: u.jitConsent,
        });
        return { user: toUser(row) };
      } catch (error) {
        if (isUniqueViolation(error)) throw domainError('invalid_request', `email ${u.email} belongs to another user`);
        throw error;
      }
    },

    async getUser(request) {
      const row = await users.findUser(request.userId);
      if (!row) throw domainError('not_found', `user ${request.userId} not found`);
      return { user: toUser(row) };
    },

    async setUserPlan(request) {
      const row = await users.setPlan(request.userId, plans.toName(request.plan, 'plan'));
      if (!row) throw domainError('not_found', `user ${request.userId} not found`);
      return { user: toUser(row) };
    },

    async upsertOrganization(request) {
      const o = request.organization;
      if (!o || !o.name.trim()) throw domainError('invalid_request', 'organization.name is required');
      const id = requireId(o.id, 'organization.id');
      for (const m of o.members) {
        if (!(await users.findUser(m.userId))) throw domainError('invalid_request', `unknown user ${m.userId}`);
        roles.toName(m.role, 'members.role');
      }
      await deps.db.transaction(async (tx) => {
        const repo = createUserRepository(tx);
        await repo.upsertOrganization({ id, name: o.name, jit_consent: o.jitConsent });
        for (const m of o.members) {
          await repo.upsertOrganizationMember({
            organization_id: id,
            user_id: m.userId,
            role: roles.toName(m.role, 'members.role'),
            joined_at: m.joinedAt ? new Date(m.joinedAt) : new Date(),
          });
        }
      });
      return { organization: await organizationView(id) };
    },

    async getOrganization(request) {
      return { organization: await organizationView(request.organizationId) };
    },

    async listUserOrganizations(request) {
      const rows = await users.organizationsOfUser(request.userId);
      return {
        organizations: rows.map((m) => ({
          organizationId: m.organization_id,
          role: roles.toEnum(m.role),
          joinedAt: m.joined_at.toISOString(),
        })),
      };
    },

    // Placeholder auth accounts of unclaimed profiles added through the API (services/communities).
    async createPlaceholderAccount(request) {
      const profileId = requireId(request.profileId, 'profile_id');
      const email = request.email.trim().toLowerCase() || null;
      const name = request.name.trim().slice(0, 300) || 'Unclaimed profile';
      const userId = await placeholders.ensure({ id: newId('u'), profileId, email, name });
      return { userId };
    },

    async deletePlaceholderAccount(request) {
      if (!request.userId && !request.profileId) throw domainError('invalid_request', 'give user_id or profile_id');
      // Only rows marked as placeholders are candidates: a real (claimed) account is never deleted.
      const deleted = await placeholders.remove(request.userId || null, request.profileId || null);
      return { deleted: deleted > 0 };
    },

    ...createSeedLedgerHandlers(deps.db),
  };

  const registration: ServiceRegistration<typeof IdentityServiceDefinition> = {
    definition: IdentityServiceDefinition,
    implementation,
    access: {
      authenticate: ['edge'],
      describeCredential: ['caller'],
      mintKey: ['operator'],
      listKeys: ['operator'],
      revokeKey: ['operator'],
      importLegacyOrganizationKey: ['operator'],
      upsertUser: ['operator'],
      getUser: ['operator', 'service'],
      setUserPlan: ['operator'],
      upsertOrganization: ['operator'],
      getOrganization: ['operator', 'service'],
      listUserOrganizations: ['operator', 'service'],
      createPlaceholderAccount: ['service'],
      deletePlaceholderAccount: ['service'],
      createGrant: ['operator'],
      issueAccessToken: ['operator'],
      revokeGrant: ['operator'],
      listGrants: ['operator'],
      getSeedState: ['operator'],
      recordSeedRecords: ['operator'],
    },
  };
  return { registration, stop: async () => void (await Promise.all([usage.stop(), grantUsage.stop()])) };
}
