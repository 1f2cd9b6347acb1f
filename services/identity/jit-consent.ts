// Just-in-time write consent as the settings web app switches it: a user's own, or an
// organization's by its owners and admins. The communities service reads it when a write reaches a
// community whose API writes are off (docs/COMMUNITIES.md): a community a user owns follows the
// user's setting, one an organization owns follows the organization's.
import type { ManagedOrganization, SetJitConsentRequest } from '../../proto/gen/expertnet/identity/v1/self_service.js';
import { roles } from '../kit/enums.js';
import { domainError } from '../kit/grpc/errors.js';
import type { ServiceContext } from '../kit/grpc/server.js';
import type { IdentityContext } from './identity-context.js';
import { managerMemberships } from './organization-keys.js';
import { requireSelf } from './own-keys.js';
import { setJitConsent as setUserJitConsent } from './users-and-organizations.js';

/** Sets the user's own setting, or (organization_id) an organization's; returns it as stored. */
export async function setJitConsent(context: IdentityContext, ctx: ServiceContext, request: SetJitConsentRequest): Promise<boolean> {
  if (!request.organizationId) {
    requireSelf(ctx, request.userId, 'account');
    return (await setUserJitConsent(context, request.userId, request.enabled)).jit_consent;
  }
  const notFound = () => domainError('not_found', `organization ${request.organizationId} not found`);
  if (ctx.principal.kind === 'user') {
    requireSelf(ctx, request.userId, 'account');
    // Not a manager of it: answered as not found, so the organization's existence is not revealed.
    const managed = await listManagedOrganizations(context, request.userId);
    if (!managed.some((o) => o.organizationId === request.organizationId)) throw notFound();
  }
  const row = await context.users.setOrganizationJitConsent(request.organizationId, request.enabled);
  if (!row) throw notFound();
  return row.jit_consent;
}

/** The organizations the user owns or administers, by name, with their settings. */
export async function listManagedOrganizations(context: IdentityContext, userId: string): Promise<ManagedOrganization[]> {
  const memberships = await managerMemberships(context, userId);
  const organizations = await Promise.all(memberships.map(async (m): Promise<ManagedOrganization[]> => {
    const org = await context.users.findOrganization(m.organization_id);
    return org ? [{ organizationId: org.id, name: org.name, role: roles.toEnum(m.role), jitConsent: org.jit_consent }] : [];
  }));
  return organizations
    .flat()
    .sort((a, b) => a.name.localeCompare(b.name) || a.organizationId.localeCompare(b.organizationId));
}
