// The operator settings payer resolution reads (migration 002): each user's saved global-search
// wallet, and how organizations cover charges named to their communities.
import type { Queryable } from '../kit/db/database.js';
import type { Owner } from './ledger.repository.js';

export interface FundingRow {
  organization_id: string;
  /** '' for the organization-wide setting. */
  community_id: string;
  standing_funding: boolean;
  delegation_budget_per_month: number;
}

export function createPayerSettings(db: Queryable) {
  return {
    async globalPreference(userId: string): Promise<Owner | undefined> {
      const rows = await db.query<{ wallet_owner_type: Owner['type']; wallet_owner_id: string }>(
        'SELECT wallet_owner_type, wallet_owner_id FROM billing.global_search_preferences WHERE user_id = $1',
        [userId],
      );
      const row = rows[0];
      return row && { type: row.wallet_owner_type, id: row.wallet_owner_id };
    },

    /** Saves the user's global-search wallet; undefined clears it. */
    async setGlobalPreference(userId: string, wallet: Owner | undefined): Promise<void> {
      if (!wallet) {
        await db.query('DELETE FROM billing.global_search_preferences WHERE user_id = $1', [userId]);
        return;
      }
      await db.query(
        `INSERT INTO billing.global_search_preferences (user_id, wallet_owner_type, wallet_owner_id) VALUES ($1, $2, $3)
         ON CONFLICT (user_id) DO UPDATE SET wallet_owner_type = EXCLUDED.wallet_owner_type,
           wallet_owner_id = EXCLUDED.wallet_owner_id, updated_at = now()`,
        [userId, wallet.type, wallet.id],
      );
    },

    /**
     * The setting in force for one of the organization's communities: the community's own row when
     * there is one, else the organization-wide row, else none.
     */
    async fundingFor(organizationId: string, communityId: string): Promise<FundingRow | undefined> {
      const rows = await db.query<FundingRow>(
        `SELECT organization_id, community_id, standing_funding, delegation_budget_per_month
           FROM billing.organization_funding
          WHERE organization_id = $1 AND community_id IN ($2, '')
          ORDER BY community_id DESC LIMIT 1`,
        [organizationId, communityId],
      );
      return rows[0];
    },

    async setFunding(row: FundingRow): Promise<void> {
      await db.query(
        `INSERT INTO billing.organization_funding (organization_id, community_id, standing_funding, delegation_budget_per_month)
         VALUES ($1, $2, $3, $4)
         ON CONFLICT (organization_id, community_id) DO UPDATE SET standing_funding = EXCLUDED.standing_funding,
           delegation_budget_per_month = EXCLUDED.delegation_budget_per_month, updated_at = now()`,
        [row.organization_id, row.community_id, row.standing_funding, row.delegation_budget_per_month],
      );
    },
  };
}

export type PayerSettings = ReturnType<typeof createPayerSettings>;
