// Legacy organization-owned keys as the settings web app shows them: read-only, to the managers
// (owner or admin) of the owning organization, who may also revoke them. Membership in the
// organization alone gives no right to its keys.
import type { OrganizationKeys } from '../../proto/gen/expertnet/identity/v1/identity_service.js';
import { domainError } from '../kit/grpc/errors.js';
import type { ServiceContext } from '../kit/grpc/server.js';
import type { IdentityContext } from './identity-context.js';
import { toApiKey } from './identity-messages.js';

/** The user's memberships as an owner or admin: the organizations they manage. */
export async function managerMemberships(context: IdentityContext, userId: string) {
  return (await context.users.organizationsOfUser(userId)).filter((m) => m.role === 'owner' || m.role === 'admin');
}

/** The organizations the user owns or administers. */
export async function managedOrganizationIds(context: IdentityContext, userId: string): Promise<string[]> {
  return (await managerMemberships(context, userId)).map((m) => m.organization_id);
}

export async function listOrganizationKeys(context: IdentityContext, ctx: ServiceContext, userId: string): Promise<OrganizationKeys[]> {
  if (ctx.principal.kind === 'user' && ctx.principal.userId !== userId) {
    throw domainError('forbidden', "a signed-in user sees only the keys of organizations they manage");
  }
  const managed = await managedOrganizationIds(context, userId);
  const keys = await context.keys.listOwnedByOrganizations(managed);
  const byOrganization = new Map<string, OrganizationKeys>();
  for (const row of keys) {
    let entry = byOrganization.get(row.owner_id);
    if (!entry) {
      const org = await context.users.findOrganization(row.owner_id);
      entry = { organizationId: row.owner_id, organizationName: org?.name ?? row.owner_id, keys: [] };
      byOrganization.set(row.owner_id, entry);
    }
    entry.keys.push(toApiKey(row));
  }
  return [...byOrganization.values()].sort((a, b) => a.organizationName.localeCompare(b.organizationName) || a.organizationId.localeCompare(b.organizationId));
}
