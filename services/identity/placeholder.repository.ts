// SQL of placeholder auth accounts: the identity.users rows standing for unclaimed profiles that a
// community added through the API (placeholder_profile_id set). Nothing here touches a real user.
import type { Queryable } from '../kit/db/database.js';

export function createPlaceholderRepository(db: Queryable) {
  return {
    /** Creates the profile's placeholder account unless it exists; returns its id either way. */
    async ensure(account: { id: string; profileId: string; email: string | null; name: string }): Promise<string> {
      await db.query(
        `INSERT INTO identity.users (id, email, name, plan, jit_consent, placeholder_profile_id)
         VALUES ($1, $2, $3, 'free', false, $4)
         ON CONFLICT (placeholder_profile_id) DO NOTHING`,
        [account.id, account.email, account.name, account.profileId],
      );
      const rows = await db.query<{ id: string }>('SELECT id FROM identity.users WHERE placeholder_profile_id = $1', [account.profileId]);
      return rows[0]!.id;
    },

    /** Deletes placeholder accounts by id and/or profile; never a user without a placeholder profile. */
    async remove(userId: string | null, profileId: string | null): Promise<number> {
      const rows = await db.query(
        `DELETE FROM identity.users
          WHERE placeholder_profile_id IS NOT NULL AND (id = $1 OR placeholder_profile_id = $2)
          RETURNING id`,
        [userId, profileId],
      );
      return rows.length;
    },
  };
}
