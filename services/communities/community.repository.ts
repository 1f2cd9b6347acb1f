// SQL for communities, their write attestations, profiles and memberships. Nothing else.
import type { Queryable } from '../kit/db/database.js';
import type { OwnerTypeName, RoleName } from '../kit/enums.js';
import { placeKey, type KeptRosterRows } from './roster-rows-kept.js';

export interface CommunityRow {
  id: string;
  name: string;
  owner_type: OwnerTypeName;
  owner_id: string;
  archived: boolean;
  created_at: Date;
  api_writes: boolean;
}

export interface ProfileRow {
  id: string;
  user_id: string | null;
  placeholder_user_id: string | null;
  public: boolean;
  name: string;
  headline: string | null;
  bio: string | null;
  organization: string | null;
  location: string | null;
  email: string | null;
  linkedin_url: string | null;
  orcid: string | null;
  avatar_url: string | null;
}

/**
 * The add item as the community sent it (normalized identifiers, trimmed seed fields): the profile
 * fields an add item can carry, in the profile's own columns' types (what the community sees of them:
 * member-view.ts).
 */
export type Supplied = Pick<ProfileRow, 'name' | 'headline' | 'bio' | 'organization' | 'location' | 'email' | 'linkedin_url' | 'orcid'>;

export interface MembershipRow {
  community_id: string;
  profile_id: string;
  role: RoleName;
  joined_at: Date;
  source_identifier: string;
}

export interface CommunityListRow extends CommunityRow {
  member_count: number;
  role: RoleName | null;
}

const COMMUNITY_COLUMNS = `c.id, c.name, c.owner_type, c.owner_id, c.archived, c.created_at,
  coalesce((SELECT a.enabled FROM communities.write_attestations a WHERE a.community_id = c.id
            ORDER BY a.version DESC LIMIT 1), false) AS api_writes`;

/** `keptRows`: roster rows kept between reads (the service's repository has them; a transaction's does not). */
export function createCommunityRepository(db: Queryable, keptRows?: KeptRosterRows<RosterRow>) {
  /**
   * Roster rows for each of `asked`, each read only when its caller's `reach` holds for its
   * community, all in one statement: `where` selects the rows of one ask (its columns are `a.*`:
   * community_id, profile_id, after_joined, after_profile, lim); an ask out of reach gets no rows.
   * Each ask's rows come back as one JSON array, in roster order: the store's client decodes a
   * statement's answer field by field (PGlite copies each field out of its buffer), so a page of 21
   * rows of 18 columns read as one field per ask costs a fraction of reading it row by row.
   * With `keep`, the store also gives each ask's fingerprint, and builds the rows only when it
   * differs from that of the rows `keptRows` holds for the same place (roster-rows-kept.ts): worth it
   * for pages, not for one member's row, which costs about what its fingerprint would.
   */
  async function readInReach(asked: readonly RosterAsk[], where: string, keep: boolean): Promise<Array<{ inReach: boolean; rows: RosterRow[] }>> {
    const column = <T>(pick: (a: RosterAsk) => T) => asked.map(pick);
    const kept = keep ? keptRows : undefined;
    const places = kept ? asked.map(placeKey) : [];
    const known = places.map((place) => kept!.get(place));
    const read = await db.query<{ i: number; in_reach: boolean; fingerprint: string | null; rows: RosterJson[] | null }>(
      `SELECT a.i::int8 AS i, reach.in_reach, page.fingerprint,
              CASE WHEN reach.in_reach AND (a.known IS NULL OR page.fingerprint IS DISTINCT FROM a.known)
                THEN (SELECT json_agg(r ORDER BY r.joined_at, r.id) FROM (${ROSTER_SELECT} WHERE ${where}) r) END AS rows
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int8[], $6::text[], $7::text[], $8::text[], $9::text[])
              WITH ORDINALITY AS a(community_id, profile_id, after_joined, after_profile, lim, reach_organization, reach_user, reach_organizations, known, i)
        CROSS JOIN LATERAL (SELECT ${IN_READ_REACH} AS in_reach OFFSET 0) reach
        CROSS JOIN LATERAL (SELECT CASE WHEN reach.in_reach THEN ${kept ? fingerprintOf(where) : 'NULL::text'} END AS fingerprint OFFSET 0) page`,
      [
        column((a) => a.communityId),
        column((a) => a.profileId ?? null),
        column((a) => a.after?.joinedAt ?? null),
        column((a) => a.after?.profileId ?? null),
        column((a) => a.limit ?? null),
        column((a) => ('organizationId' in a.reach ? a.reach.organizationId : null)),
        column((a) => ('userId' in a.reach ? a.reach.userId : null)),
        column((a) => JSON.stringify('userId' in a.reach ? a.reach.managedOrganizations : [])),
        asked.map((_, i) => known[i]?.fingerprint ?? null),
      ],
      { genericPlan: true },
    );
    const answers = asked.map(() => ({ inReach: false, rows: [] as RosterRow[] }));
    for (const { i, in_reach, fingerprint, rows } of read) {
      const at = Number(i) - 1;
      const answer = answers[at]!;
      answer.inReach = in_reach === true;
      // Out of reach, the rows are not read (CASE) and the ask gets none.
      if (!answer.inReach) continue;
      const held = known[at];
      if (held && fingerprint === held.fingerprint) {
        answer.rows = held.rows;
        continue;
      }
      answer.rows = (rows ?? []).map(fromRosterJson);
      if (kept && fingerprint !== null) kept.set(places[at]!, { fingerprint, rows: answer.rows });
    }
    return answers;
  }

  /**
   * A roster page for each ask, in one statement: keyset order (joined_at, profile_id), strictly
   * after `after` when given — a keyset (not an offset) keeps pages right while members come and go
   * between calls; joined_at_key is joined_at to the microsecond, as the cursor must carry it
   * (roster-cursor.ts). Read only when the ask's `reach` holds: `inReach` false means its caller
   * may not read the community.
   */
  function listRosterPages(asked: readonly RosterAsk[]): Promise<Array<{ inReach: boolean; rows: RosterRow[] }>> {
    // No cursor: from the start ('-infinity', ''), so the keyset is always one row comparison the index answers.
    return readInReach(
      asked,
      `m.community_id = a.community_id
         AND (m.joined_at, m.profile_id) > (coalesce(a.after_joined::timestamptz, '-infinity'), coalesce(a.after_profile, ''))
       ORDER BY m.joined_at, m.profile_id LIMIT a.lim`,
      true,
    );
  }

  /** One member of a community (profile and membership) for each ask, read only when its `reach` holds, in one statement. */
  async function findRosterMembers(asked: readonly RosterAsk[]): Promise<Array<{ inReach: boolean; row?: RosterRow }>> {
    const read = await readInReach(asked, `m.community_id = a.community_id AND m.profile_id = a.profile_id`, false);
    return read.map(({ inReach, rows }) => ({ inReach, row: rows[0] }));
  }

  return {
    listRosterPages,
    findRosterMembers,

    async upsertCommunity(c: Omit<CommunityRow, 'created_at' | 'api_writes'>): Promise<void> {
      await db.query(
        `INSERT INTO communities.communities (id, name, owner_type, owner_id, archived) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, owner_type = EXCLUDED.owner_type,
           owner_id = EXCLUDED.owner_id, archived = EXCLUDED.archived`,
        [c.id, c.name, c.owner_type, c.owner_id, c.archived],
      );
    },

    async findCommunity(id: string): Promise<CommunityRow | undefined> {
      const rows = await db.query<CommunityRow>(`SELECT ${COMMUNITY_COLUMNS} FROM communities.communities c WHERE c.id = $1`, [id]);
      return rows[0];
    },

    /** The given communities in name order (then id). */
    async findCommunitiesByName(ids: string[]): Promise<CommunityRow[]> {
      return db.query<CommunityRow>(
        `SELECT ${COMMUNITY_COLUMNS} FROM communities.communities c WHERE c.id = ANY($1::text[]) ORDER BY c.name, c.id`,
        [ids],
      );
    },

    /**
     * A page of the given communities in id order, after `afterId`, with the member count and the
     * role of the user's own profile in each (null: not a member, or no user).
     */
    async listCommunitiesAmong(ids: string[], afterId: string, limit: number, userId: string | null): Promise<CommunityListRow[]> {
      return db.query<CommunityListRow>(
        `SELECT ${COMMUNITY_COLUMNS},
                (SELECT count(*)::int FROM communities.memberships m WHERE m.community_id = c.id) AS member_count,
                (SELECT m.role FROM communities.memberships m JOIN communities.profiles p ON p.id = m.profile_id
                  WHERE m.community_id = c.id AND p.user_id = $3) AS role
           FROM communities.communities c
          WHERE c.id = ANY($1::text[]) AND c.id > $2
          ORDER BY c.id LIMIT $4`,
        [ids, afterId, userId, limit],
      );
    },

    /** Communities after `afterId` in id order (keyset paging), each with its member count. */
    async listCommunities(limit: number, afterId: string): Promise<(CommunityRow & { member_count: number })[]> {
      return db.query<CommunityRow & { member_count: number }>(
        `SELECT ${COMMUNITY_COLUMNS},
           (SELECT count(*)::int FROM communities.memberships m WHERE m.community_id = c.id) AS member_count
         FROM communities.communities c WHERE c.id > $1 ORDER BY c.id LIMIT $2`,
        [afterId, limit],
      );
    },

    async setArchived(id: string, archived: boolean): Promise<boolean> {
      const rows = await db.query('UPDATE communities.communities SET archived = $2 WHERE id = $1 RETURNING id', [id, archived]);
      return rows.length > 0;
    },

    /** Records a new attestation version unless the setting already has that value; returns the latest version. */
    async attestWrites(communityId: string, enabled: boolean, actor: string, actorName = ''): Promise<number> {
      const rows = await db.query<{ version: number; enabled: boolean }>(
        `SELECT version, enabled FROM communities.write_attestations WHERE community_id = $1 ORDER BY version DESC LIMIT 1 FOR UPDATE`,
        [communityId],
      );
      const latest = rows[0];
      if (latest && latest.enabled === enabled) return latest.version;
      if (!latest && !enabled) return 0;
      const version = (latest?.version ?? 0) + 1;
      await db.query(
        'INSERT INTO communities.write_attestations (community_id, version, enabled, actor, actor_name) VALUES ($1, $2, $3, $4, $5)',
        [communityId, version, enabled, actor, actorName],
      );
      return version;
    },

    async upsertProfile(p: ProfileRow): Promise<void> {
      await db.query(
        `INSERT INTO communities.profiles (id, user_id, placeholder_user_id, public, name, headline, bio, organization,
           location, email, linkedin_url, orcid, avatar_url)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
         ON CONFLICT (id) DO UPDATE SET user_id = EXCLUDED.user_id, placeholder_user_id = EXCLUDED.placeholder_user_id,
           public = EXCLUDED.public, name = EXCLUDED.name, headline = EXCLUDED.headline, bio = EXCLUDED.bio,
           organization = EXCLUDED.organization, location = EXCLUDED.location, email = EXCLUDED.email,
           linkedin_url = EXCLUDED.linkedin_url, orcid = EXCLUDED.orcid, avatar_url = EXCLUDED.avatar_url,
           updated_at = now()`,
        [p.id, p.user_id, p.placeholder_user_id, p.public, p.name, p.headline, p.bio, p.organization, p.location,
          p.email, p.linkedin_url, p.orcid, p.avatar_url],
      );
    },

    async findProfile(id: string): Promise<ProfileRow | undefined> {
      const rows = await db.query<ProfileRow>('SELECT * FROM communities.profiles WHERE id = $1', [id]);
      return rows[0];
    },

    async findProfileByUser(userId: string): Promise<ProfileRow | undefined> {
      const rows = await db.query<ProfileRow>('SELECT * FROM communities.profiles WHERE user_id = $1', [userId]);
      return rows[0];
    },

    async upsertMembership(m: MembershipRow): Promise<void> {
      await db.query(
        `INSERT INTO communities.memberships (community_id, profile_id, role, joined_at, source_identifier)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (community_id, profile_id) DO UPDATE SET role = EXCLUDED.role, joined_at = EXCLUDED.joined_at`,
        [m.community_id, m.profile_id, m.role, m.joined_at, m.source_identifier],
      );
    },

    async findMembership(communityId: string, profileId: string): Promise<MembershipRow | undefined> {
      const rows = await db.query<MembershipRow>(
        'SELECT * FROM communities.memberships WHERE community_id = $1 AND profile_id = $2',
        [communityId, profileId],
      );
      return rows[0];
    },

    /** Owns a community directly, or holds an admin/owner membership in one (archived ones count: standing is about the person). */
    async userManagesCommunity(userId: string): Promise<boolean> {
      const rows = await db.query(
        `SELECT 1 FROM communities.communities WHERE owner_type = 'user' AND owner_id = $1
         UNION ALL
         SELECT 1 FROM communities.memberships m JOIN communities.profiles p ON p.id = m.profile_id
          WHERE p.user_id = $1 AND m.role IN ('admin', 'owner')
         LIMIT 1`,
        [userId],
      );
      return rows.length > 0;
    },

    async anyOrganizationOwnsCommunity(organizationIds: string[]): Promise<boolean> {
      if (organizationIds.length === 0) return false;
      const rows = await db.query(
        `SELECT 1 FROM communities.communities WHERE owner_type = 'organization' AND owner_id = ANY($1::text[]) LIMIT 1`,
        [organizationIds],
      );
      return rows.length > 0;
    },
  };
}

export type CommunityRepository = ReturnType<typeof createCommunityRepository>;

/**
 * Who may read a community, as the roster reads check it in their own statement (reach.ts
 * readReach): a legacy organization key reads its organization's communities; a user, those they
 * belong to, own, or own through an organization they manage.
 */
export type ReadReach = { organizationId: string } | { userId: string; managedOrganizations: string[] };

/** One roster read: a member (`profileId`) or a page (`after`, `limit`) of a community, for a caller of `reach`. */
export interface RosterAsk {
  communityId: string;
  reach: ReadReach;
  profileId?: string;
  after?: { joinedAt: string; profileId: string } | undefined;
  limit?: number;
}

/** What makes two roster reads the same read: the place and the caller's reach. */
export function rosterAskKey(ask: RosterAsk): string {
  return `${placeKey(ask)} ${JSON.stringify(ask.reach)}`;
}

/**
 * Whether `a.community_id` is in the read reach of `a.reach_*` (the rules of computeReach in
 * reach.ts, for one community): unarchived, and owned by the key's organization; or owned by the
 * user, or by an organization they manage, or holding a profile of theirs. A null user or
 * organization matches nothing.
 */
const IN_READ_REACH = `EXISTS (SELECT 1 FROM communities.communities c WHERE c.id = a.community_id AND NOT c.archived AND (
    (c.owner_type = 'organization' AND c.owner_id = a.reach_organization)
    OR (c.owner_type = 'user' AND c.owner_id = a.reach_user)
    OR (c.owner_type = 'organization' AND jsonb_exists(a.reach_organizations::jsonb, c.owner_id))
    OR EXISTS (SELECT 1 FROM communities.memberships m JOIN communities.profiles p ON p.id = m.profile_id
                WHERE m.community_id = c.id AND p.user_id = a.reach_user)))`;

/** A member as the roster reads it: the profile plus the membership's role and joined_at. */
export interface RosterRow extends ProfileRow {
  role: RoleName;
  joined_at: Date;
  /** joined_at in UTC to the microsecond: 2025-01-31T09:00:00.123456Z. */
  joined_at_key: string;
  /** What the community supplied when it added the person by identifier (member-view.ts). */
  supplied: Supplied | null;
}

/**
 * A roster row as JSON gives it: joined_at is the UTC time as JSON writes a timestamp, to the
 * microsecond with the trailing zeros of the fraction dropped (2025-01-31T09:00:00.1234).
 */
type RosterJson = Omit<RosterRow, 'joined_at' | 'joined_at_key'> & { joined_at: string };

function fromRosterJson(row: RosterJson): RosterRow {
  // The fraction padded back to six digits: the exact key, with no formatting asked of the store.
  const [whole, fraction = ''] = row.joined_at.split('.');
  const key = `${whole}.${fraction.padEnd(6, '0')}Z`;
  return Object.assign(row, { joined_at: new Date(key), joined_at_key: key });
}

/**
 * The fingerprint of the roster rows `where` selects (as readInReach's rows): each row's profile id
 * and the versions of its profile and membership rows, in roster order; '' for no rows.
 */
function fingerprintOf(where: string): string {
  return `(SELECT coalesce(string_agg(v.version, ' ' ORDER BY v.joined_at, v.id), '')
    FROM (SELECT m.joined_at, p.id, p.id || ':' || p.xmin || ':' || m.xmin AS version FROM ${ROSTER_FROM} WHERE ${where}) v)`;
}

/** A roster's rows: memberships (m) with their profiles (p). */
const ROSTER_FROM = 'communities.memberships m JOIN communities.profiles p ON p.id = m.profile_id';

const ROSTER_SELECT = `SELECT p.id, p.user_id, p.placeholder_user_id, p.public, p.name, p.headline, p.bio, p.organization,
    p.location, p.email, p.linkedin_url, p.orcid, p.avatar_url, m.role, m.joined_at AT TIME ZONE 'UTC' AS joined_at, m.supplied
  FROM ${ROSTER_FROM}`;
