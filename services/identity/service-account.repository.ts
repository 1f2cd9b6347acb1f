// SQL for service accounts (migration 009). Nothing else.
import type { Queryable } from '../kit/db/database.js';
import { managedOrganizationIds, type WithManagedOrganizations } from './managed-organizations.js';
import { SERVICE_ACCOUNT_USAGE, storedUsage } from './usage-store.js';

export interface ServiceAccountRow {
  id: string;
  name: string;
  owner_type: 'user' | 'organization';
  owner_id: string;
  scopes: string[];
  community_ids: string[];
  /** Null for an account that authenticates with its key only. */
  secret_hash: string | null;
  /** The public JWK of private_key_jwt (migration 010); null for a secret only. */
  public_jwk: Record<string, unknown> | null;
  rate_tier: 'restricted' | 'standard';
  requested_rate: number;
  created_by: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

export type NewServiceAccount = Omit<ServiceAccountRow, 'created_at' | 'last_used_at' | 'revoked_at'>;

export function createServiceAccountRepository(db: Queryable) {
  return {
    async insert(account: NewServiceAccount): Promise<ServiceAccountRow> {
      const rows = await db.query<ServiceAccountRow>(
        `INSERT INTO identity.service_accounts
           (id, name, owner_type, owner_id, scopes, community_ids, secret_hash, public_jwk, rate_tier, requested_rate, created_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11) RETURNING *`,
        [account.id, account.name, account.owner_type, account.owner_id, account.scopes, account.community_ids,
          account.secret_hash, account.public_jwk === null ? null : JSON.stringify(account.public_jwk), account.rate_tier, account.requested_rate, account.created_by],
      );
      return rows[0]!;
    },

    async findById(id: string): Promise<ServiceAccountRow | undefined> {
      const rows = await db.query<ServiceAccountRow>('SELECT * FROM identity.service_accounts WHERE id = $1', [id]);
      return rows[0];
    },

    /** The account as authentication reads it: with the organizations its owning user manages (none for an organization's). */
    async findForAuthentication(id: string): Promise<(ServiceAccountRow & WithManagedOrganizations) | undefined> {
      const rows = await db.query<ServiceAccountRow & WithManagedOrganizations>(
        `SELECT s.*, CASE WHEN s.owner_type = 'user' THEN ${managedOrganizationIds('s.owner_id')} END AS managed_organization_ids
           FROM identity.service_accounts s WHERE s.id = $1`,
        [id],
      );
      return rows[0];
    },

    async listOfOwner(ownerType: string, ownerId: string, limit: number, afterId: string): Promise<ServiceAccountRow[]> {
      return db.query<ServiceAccountRow>(
        'SELECT * FROM identity.service_accounts WHERE owner_type = $1 AND owner_id = $2 AND id > $3 ORDER BY id LIMIT $4',
        [ownerType, ownerId, afterId, limit],
      );
    },

    async revoke(id: string): Promise<ServiceAccountRow | undefined> {
      const rows = await db.query<ServiceAccountRow>(
        'UPDATE identity.service_accounts SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 RETURNING *',
        [id],
      );
      return rows[0];
    },

    /**
     * Records a client assertion's `jti` as used until `expiresAt`; false when it was used before
     * (a replay). Rows past their expiry are deleted on the way.
     */
    async useAssertion(serviceAccountId: string, jti: string, expiresAt: Date): Promise<boolean> {
      await db.query('DELETE FROM identity.service_account_assertions WHERE expires_at < now()', []);
      const rows = await db.query<{ jti: string }>(
        `INSERT INTO identity.service_account_assertions (service_account_id, jti, expires_at) VALUES ($1, $2, $3)
         ON CONFLICT DO NOTHING RETURNING jti`,
        [serviceAccountId, jti, expiresAt],
      );
      return rows.length === 1;
    },

    /** Stored call counts for a UTC day and its month. */
    async usage(id: string, day: string): Promise<{ today: number; month: number }> {
      return storedUsage(db, SERVICE_ACCOUNT_USAGE, id, day);
    },

    /** A token was issued to it: when it was last used, as the screens show. */
    async touch(id: string): Promise<void> {
      await db.query('UPDATE identity.service_accounts SET last_used_at = now() WHERE id = $1', [id]);
    },
  };
}

export type ServiceAccountRepository = ReturnType<typeof createServiceAccountRepository>;
