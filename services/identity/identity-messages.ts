// Identity rows as proto messages: keys, grants, users and organizations, and the caller a
// credential stands for. One mapping for every handler and domain module of the service.
import { ApiKey, type GetSeedStateResponse, OAuthGrant, Organization, User } from '../../proto/gen/expertnet/identity/v1/identity_service.js';
import { Caller } from '../../proto/gen/expertnet/common/v1/common.js';
import type { LoggedRequest } from '../../proto/gen/expertnet/identity/v1/request_log.js';
import { credentialKinds, keyEnvironments, ownerTypes, plans, rateTiers, roles } from '../kit/enums.js';
import type { GrantRow } from './grant.repository.js';
import type { KeyRow } from './key.repository.js';
import { toManagedOrganizations, type WithManagedOrganizations } from './managed-organizations.js';
import type { RequestLogRow } from './request-log.repository.js';
import type { SeedRecordRow } from './seed-ledger.repository.js';
import type { OrganizationMemberRow, OrganizationRow, UserRow } from './user.repository.js';

export function toApiKey(row: KeyRow): ApiKey {
  return ApiKey.fromPartial({
    id: row.id,
    prefix: row.display_prefix,
    environment: keyEnvironments.toEnum(row.environment),
    owner: { type: ownerTypes.toEnum(row.owner_type), id: row.owner_id },
    ...credentialTerms(row),
    allowlist: row.allowlist === null ? undefined : { communityIds: row.allowlist },
    mintedByUserId: row.minted_by_user_id ?? '',
    name: row.name,
    expiresAt: row.expires_at?.toISOString(),
    replacedByKeyId: row.replaced_by ?? '',
  });
}

export function toUser(row: UserRow): User {
  return User.fromPartial({
    id: row.id,
    email: row.email ?? '',
    name: row.name,
    plan: plans.toEnum(row.plan),
    jitConsent: row.jit_consent,
    createdAt: row.created_at.toISOString(),
  });
}

/** What a key and a grant (in either of its shapes) show alike: scopes, rate and times. */
function credentialTerms(row: Pick<KeyRow & GrantRow, 'scopes' | 'rate_tier' | 'requested_rate' | 'created_at' | 'last_used_at' | 'revoked_at'>) {
  return {
    scopes: row.scopes,
    rateTier: rateTiers.toEnum(row.rate_tier),
    requestedRate: row.requested_rate,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at?.toISOString(),
    revokedAt: row.revoked_at?.toISOString(),
  };
}

export function toOAuthGrant(row: GrantRow): OAuthGrant {
  return OAuthGrant.fromPartial({ id: row.id, userId: row.user_id, clientId: row.client_id, ...credentialTerms(row) });
}

/** A grant as DescribeCredential shows it, in the shape of a key: no prefix, always live and personal. */
export function grantAsApiKey(row: GrantRow): ApiKey {
  return ApiKey.fromPartial({
    id: row.id,
    prefix: '',
    environment: keyEnvironments.toEnum('live'),
    owner: { type: ownerTypes.toEnum('user'), id: row.user_id },
    ...credentialTerms(row),
    mintedByUserId: row.user_id,
  });
}

/** The caller an access token stands for: the grant's user, the token's scopes, the grant's rate. */
export function callerOfGrant(row: GrantRow & WithManagedOrganizations, scopes: string[]): Caller {
  return Caller.fromPartial({
    credentialId: row.id,
    credential: credentialKinds.toEnum('oauth'),
    owner: { type: ownerTypes.toEnum('user'), id: row.user_id },
    userId: row.user_id,
    scopes,
    rateTier: rateTiers.toEnum(row.rate_tier),
    requestedRate: row.requested_rate,
    environment: keyEnvironments.toEnum('live'),
    managedOrganizations: toManagedOrganizations(row),
  });
}

/** The caller an API key stands for: its owner, scopes, allowlist and rate. */
export function callerOfKey(row: KeyRow & Partial<WithManagedOrganizations>): Caller {
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
    managedOrganizations: toManagedOrganizations(row),
  });
}

export function toOrganization(org: OrganizationRow, members: readonly OrganizationMemberRow[]): Organization {
  return Organization.fromPartial({
    id: org.id,
    name: org.name,
    jitConsent: org.jit_consent,
    members: members.map((m) => ({ userId: m.user_id, role: roles.toEnum(m.role), joinedAt: m.joined_at.toISOString() })),
  });
}

/** One organization a user belongs to, and the user's role in it. */
export function toUserOrganization(m: OrganizationMemberRow) {
  return {
    organizationId: m.organization_id,
    role: roles.toEnum(m.role),
    joinedAt: m.joined_at.toISOString(),
  };
}

/** What the seed ledger holds: the applied records, who seeded the store, whether it holds no user. */
export function toSeedState(state: { records: readonly SeedRecordRow[]; seededBy: string; storeEmpty: boolean }): GetSeedStateResponse {
  return {
    records: state.records.map((r) => ({ kind: r.kind, recordId: r.record_id, fingerprint: r.fingerprint })),
    seededBy: state.seededBy,
    storeEmpty: state.storeEmpty,
  };
}

export function toLoggedRequest(row: RequestLogRow): LoggedRequest {
  return {
    request: {
      credentialId: row.credential_id, credentialKind: credentialKinds.toEnum(row.credential_kind), at: row.at.toISOString(),
      surface: row.surface, method: row.method, path: row.path, tool: row.tool, status: row.status, latencyMs: row.latency_ms,
      requestId: row.request_id,
    },
    credentialName: row.credential_name,
    credentialLabel: row.credential_label,
  };
}
