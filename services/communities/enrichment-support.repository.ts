// SQL of the reads and writes the enrichment service makes for its runs (enrichment-support.ts):
// a community's members in profile id order, the profiles of people still members, and the
// fields self-enrichment may change on a profile. Nothing else.
import type { Queryable } from '../kit/db/database.js';
import type { RoleName } from '../kit/enums.js';
import type { ProfileRow, Supplied } from './community.repository.js';

/** A member as a scan reads it: the whole profile plus the membership. */
export interface ScannedMemberRow extends ProfileRow {
  role: RoleName;
  joined_at: Date;
  source_identifier: string;
  supplied: Supplied | null;
}

export interface ScanFilter {
  /** Only these people (undefined: every member). */
  profileIds?: string[];
  /** Only members who joined at or after this instant (ISO 8601). */
  joinedSince?: string;
  /** Members with a greater profile id ('' : from the start). */
  afterProfileId: string;
  /** Count the community's members (a pass over its memberships); 0 is answered otherwise. */
  withTotal: boolean;
}

/** The profile fields self-enrichment writes; null leaves the stored value. */
export interface OwnEnrichmentFields {
  name: string | null;
  organization: string | null;
  location: string | null;
  orcid: string | null;
  linkedin_url: string | null;
}

const MEMBER_COLUMNS = `p.id, p.user_id, p.placeholder_user_id, p.public, p.name, p.headline, p.bio, p.organization,
  p.location, p.email, p.linkedin_url, p.orcid, p.avatar_url, m.role, m.joined_at, m.source_identifier, m.supplied`;

/** A scan row: the community's member count, and a member — all null when the page is empty. */
type ScanRow = { total_members: number } & { [K in keyof ScannedMemberRow]: ScannedMemberRow[K] | null };

export function createEnrichmentSupportRepository(db: Queryable) {
  return {
    /**
     * One page of a community's members in profile id order, and its member count (unfiltered,
     * when asked for), in one statement; undefined when the community does not exist. The page
     * walks the memberships primary key (community_id, profile_id) in order and stops after
     * `limit` rows, so a page costs the same at the start and at the end of a large community;
     * joined_since is a filter on that walk; with profile_ids the page is a key lookup per id
     * instead.
     */
    async scanMembers(communityId: string, filter: ScanFilter, limit: number): Promise<{ total: number; members: ScannedMemberRow[] } | undefined> {
      const params: unknown[] = [communityId, filter.afterProfileId, limit];
      const conditions = ['m.community_id = $1', 'm.profile_id > $2'];
      if (filter.joinedSince) {
        params.push(filter.joinedSince);
        conditions.push(`m.joined_at >= $${params.length}::timestamptz`);
      }
      const memberRows = (...more: string[]) =>
        `SELECT ${MEMBER_COLUMNS} FROM communities.memberships m JOIN communities.profiles p ON p.id = m.profile_id
          WHERE ${[...conditions, ...more].join(' AND ')}`;
      let page = `${memberRows()} ORDER BY m.profile_id LIMIT $3`;
      if (filter.profileIds) {
        // A key lookup per id, whatever the statistics say (LATERAL, and LIMIT 1 so the planner
        // cannot flatten it into a join over the community). As a filter on the walk
        // (profile_id = ANY) the planner read the community's whole key range, so a run reading
        // its people a batch at a time read the whole community once per batch.
        params.push([...new Set(filter.profileIds)]);
        page = `SELECT x.* FROM unnest($${params.length}::text[]) AS k(id) CROSS JOIN LATERAL (${memberRows('m.profile_id = k.id')} LIMIT 1) x ORDER BY x.id LIMIT $3`;
      }
      const total = filter.withTotal
        ? '(SELECT count(*)::int AS total_members FROM communities.memberships WHERE community_id = $1)'
        : '(SELECT 0 AS total_members)';
      // The community row anchors the statement: no row means no community; a row with a null
      // member means an empty page.
      const rows = await db.query<ScanRow>(
        `SELECT t.total_members, page.*
           FROM communities.communities c
           CROSS JOIN ${total} t
           LEFT JOIN (${page}) page ON true
          WHERE c.id = $1
          ORDER BY page.id`,
        params,
      );
      if (rows.length === 0) return undefined;
      const members = rows.filter((r) => r.id !== null).map(({ total_members: _total, ...member }) => member as ScannedMemberRow);
      return { total: rows[0]!.total_members, members };
    },

    /** The profiles, among these ids, of people who are members of the community (one query), with what it supplied. */
    async findMemberProfiles(communityId: string, profileIds: string[]): Promise<Array<ProfileRow & { supplied: Supplied | null }>> {
      if (profileIds.length === 0) return [];
      // A key lookup per id, as in scanMembers: a community just imported has no statistics yet,
      // and `profile_id = ANY(…)` was then a filter over the community's whole key range (10 ms
      // for 100 of 4,000 members; 1 ms this way).
      return db.query<ProfileRow & { supplied: Supplied | null }>(
        `SELECT p.*, m.supplied
           FROM unnest($2::text[]) AS k(id)
           CROSS JOIN LATERAL (SELECT m.profile_id, m.supplied FROM communities.memberships m
                                WHERE m.community_id = $1 AND m.profile_id = k.id LIMIT 1) m
           JOIN communities.profiles p ON p.id = m.profile_id
          ORDER BY p.id`,
        [communityId, [...new Set(profileIds)]],
      );
    },

    /** Writes the given fields (null: unchanged); the updated profile, or undefined when there is none. */
    async applyOwnEnrichment(profileId: string, f: OwnEnrichmentFields): Promise<ProfileRow | undefined> {
      const rows = await db.query<ProfileRow>(
        `UPDATE communities.profiles SET
           name = coalesce($2, name), organization = coalesce($3, organization), location = coalesce($4, location),
           orcid = coalesce($5, orcid), linkedin_url = coalesce($6, linkedin_url), updated_at = now()
         WHERE id = $1 RETURNING *`,
        [profileId, f.name, f.organization, f.location, f.orcid, f.linkedin_url],
      );
      return rows[0];
    },
  };
}
