// SQL for users, organizations and their members. Nothing else.
import type { Queryable } from '../kit/db/database.js';
import type { PlanName, RoleName } from '../kit/enums.js';

export interface UserRow {
  id: string;
  email: string | null;
  name: string;
  plan: PlanName;
  jit_consent: boolean;
  created_at: Date;
}

export interface OrganizationRow {
  id: string;
  name: string;
  jit_consent: boolean;
}

export interface OrganizationMemberRow {
  organization_id: string;
  user_id: string;
  role: RoleName;
  joined_at: Date;
}

export function createUserRepository(db: Queryable) {
  return {
    async upsertUser(u: Omit<UserRow, 'created_at'>): Promise<UserRow> {
      const rows = await db.query<UserRow>(
        `INSERT INTO identity.users (id, email, name, plan, jit_consent) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (id) DO UPDATE SET email = EXCLUDED.email, name = EXCLUDED.name, plan = EXCLUDED.plan,
           jit_consent = EXCLUDED.jit_consent
         RETURNING id, email, name, plan, jit_consent, created_at`,
        [u.id, u.email, u.name, u.plan, u.jit_consent],
      );
      return rows[0]!;
    },

    async findUser(id: string): Promise<UserRow | undefined> {
      const rows = await db.query<UserRow>(
        'SELECT id, email, name, plan, jit_consent, created_at FROM identity.users WHERE id = $1',
        [id],
      );
      return rows[0];
    },

    /**
     * Users after `afterId` in id order (keyset paging); with a query, only those whose name or
     * email contains it, ignoring case (strpos, not LIKE: the text is never a pattern).
     */
    async listUsers(limit: number, afterId: string, query = ''): Promise<UserRow[]> {
      return db.query<UserRow>(
        `SELECT id, email, name, plan, jit_consent, created_at FROM identity.users
          WHERE id > $1 AND ($3 = '' OR strpos(lower(name), lower($3)) > 0 OR strpos(lower(coalesce(email, '')), lower($3)) > 0)
          ORDER BY id LIMIT $2`,
        [afterId, limit, query],
      );
    },

    async setPlan(id: string, plan: PlanName): Promise<UserRow | undefined> {
      const rows = await db.query<UserRow>(
        'UPDATE identity.users SET plan = $2 WHERE id = $1 RETURNING id, email, name, plan, jit_consent, created_at',
        [id, plan],
      );
      return rows[0];
    },

    /** The user's just-in-time write consent alone (the settings web app's switch). */
    async setJitConsent(id: string, enabled: boolean): Promise<UserRow | undefined> {
      const rows = await db.query<UserRow>(
        'UPDATE identity.users SET jit_consent = $2 WHERE id = $1 RETURNING id, email, name, plan, jit_consent, created_at',
        [id, enabled],
      );
      return rows[0];
    },

    async upsertOrganization(o: OrganizationRow): Promise<OrganizationRow> {
      const rows = await db.query<OrganizationRow>(
        `INSERT INTO identity.organizations (id, name, jit_consent) VALUES ($1, $2, $3)
         ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, jit_consent = EXCLUDED.jit_consent
         RETURNING id, name, jit_consent`,
        [o.id, o.name, o.jit_consent],
      );
      return rows[0]!;
    },

    /** An organization's just-in-time write consent alone (the settings web app's switch). */
    async setOrganizationJitConsent(id: string, enabled: boolean): Promise<OrganizationRow | undefined> {
      const rows = await db.query<OrganizationRow>(
        'UPDATE identity.organizations SET jit_consent = $2 WHERE id = $1 RETURNING id, name, jit_consent',
        [id, enabled],
      );
      return rows[0];
    },

    async findOrganization(id: string): Promise<OrganizationRow | undefined> {
      const rows = await db.query<OrganizationRow>('SELECT id, name, jit_consent FROM identity.organizations WHERE id = $1', [id]);
      return rows[0];
    },

    async upsertOrganizationMember(m: OrganizationMemberRow): Promise<void> {
      await db.query(
        `INSERT INTO identity.organization_members (organization_id, user_id, role, joined_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (organization_id, user_id) DO UPDATE SET role = EXCLUDED.role, joined_at = EXCLUDED.joined_at`,
        [m.organization_id, m.user_id, m.role, m.joined_at],
      );
    },

    async organizationMembers(organizationId: string): Promise<OrganizationMemberRow[]> {
      return db.query<OrganizationMemberRow>(
        'SELECT * FROM identity.organization_members WHERE organization_id = $1 ORDER BY joined_at, user_id',
        [organizationId],
      );
    },

    async organizationsOfUser(userId: string): Promise<OrganizationMemberRow[]> {
      return db.query<OrganizationMemberRow>(
        'SELECT * FROM identity.organization_members WHERE user_id = $1 ORDER BY joined_at, organization_id',
        [userId],
      );
    },
  };
}

export type UserRepository = ReturnType<typeof createUserRepository>;
