// SQL for OAuth grants and their usage. Nothing else.
import type { Queryable } from '../kit/db/database.js';
import { managedOrganizationIds, type WithManagedOrganizations } from './managed-organizations.js';
import { GRANT_USAGE, storedUsage } from './usage-store.js';

export interface GrantRow {
  id: string;
  user_id: string;
  client_id: string;
  scopes: string[];
  rate_tier: 'restricted' | 'standard';
  requested_rate: number;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

export type NewGrant = Omit<GrantRow, 'created_at' | 'last_used_at' | 'revoked_at'>;

export function createGrantRepository(db: Queryable) {
  return {
    async insert(grant: NewGrant): Promise<GrantRow> {
      const rows = await db.query<GrantRow>(
        `INSERT INTO identity.oauth_grants (id, user_id, client_id, scopes, rate_tier, requested_rate)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
        [grant.id, grant.user_id, grant.client_id, grant.scopes, grant.rate_tier, grant.requested_rate],
      );
      return rows[0]!;
    },

    async findById(id: string): Promise<GrantRow | undefined> {
      const rows = await db.query<GrantRow>('SELECT * FROM identity.oauth_grants WHERE id = $1', [id]);
      return rows[0];
    },

    /** The grant as authentication reads it: with the organizations its user manages. */
    async findForAuthentication(id: string): Promise<(GrantRow & WithManagedOrganizations) | undefined> {
      const rows = await db.query<GrantRow & WithManagedOrganizations>(
        `SELECT g.*, ${managedOrganizationIds('g.user_id')} AS managed_organization_ids FROM identity.oauth_grants g WHERE g.id = $1`,
        [id],
      );
      return rows[0];
    },

    async listOfUser(userId: string, limit: number, afterId: string): Promise<GrantRow[]> {
      return db.query<GrantRow>(
        'SELECT * FROM identity.oauth_grants WHERE user_id = $1 AND id > $2 ORDER BY id LIMIT $3',
        [userId, afterId, limit],
      );
    },

    async revoke(id: string): Promise<GrantRow | undefined> {
      const rows = await db.query<GrantRow>(
        'UPDATE identity.oauth_grants SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 RETURNING *',
        [id],
      );
      return rows[0];
    },

    /** Stored request counts for a UTC day and its month. */
    async usage(grantId: string, day: string): Promise<{ today: number; month: number }> {
      return storedUsage(db, GRANT_USAGE, grantId, day);
    },
  };
}

export type GrantRepository = ReturnType<typeof createGrantRepository>;
