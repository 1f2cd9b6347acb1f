// The organizations a user manages (owner or admin role), as one SQL expression to read beside a
// credential: authentication hands them to services in the caller (`Caller.managed_organizations`),
// because reach needs them on most requests and asking identity again was a round trip of its own
// (`npm run bench`). Read in the same statement as the credential, so exactly as live.
import type { ManagedOrganizations } from '../../proto/gen/expertnet/common/v1/common.js';

/** SQL: the ids (text[], ordered) of the organizations the user `userId` (an SQL expression) manages; read as `managed_organization_ids`. */
export function managedOrganizationIds(userId: string): string {
  return `ARRAY(SELECT m.organization_id FROM identity.organization_members m
                 WHERE m.user_id = ${userId} AND m.role IN ('owner', 'admin') ORDER BY m.organization_id)`;
}

/** A credential's row read with `managedOrganizationIds`; null when no user stands behind the credential. */
export interface WithManagedOrganizations {
  managed_organization_ids: string[] | null;
}

/** Absent (services ask identity) when the row has no user or was read without them. */
export function toManagedOrganizations(row: Partial<WithManagedOrganizations>): ManagedOrganizations | undefined {
  return row.managed_organization_ids ? { organizationIds: row.managed_organization_ids } : undefined;
}
