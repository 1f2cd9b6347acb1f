// SQL of member writes: matching people, adding and removing memberships, the consent queue and
// placeholder-account tasks. Kept apart from community.repository.ts (shared with the roster reads).
import type { Queryable } from '../kit/db/database.js';
import type { RoleName } from '../kit/enums.js';
import type { ProfileRow, Supplied } from './community.repository.js';

export type WriteOperation = 'members.add' | 'members.remove' | 'enrichment.start';
export const WRITE_OPERATIONS: readonly WriteOperation[] = ['members.add', 'members.remove', 'enrichment.start'];

export type ConsentStatusName = 'pending' | 'approved' | 'denied';

export interface ConsentRequestRow {
  id: string;
  community_id: string;
  operation: WriteOperation;
  status: ConsentStatusName;
  requested_by: string;
  created_at: Date;
  resolved_at: Date | null;
  resolved_by: string | null;
  /** resolved_by's display name when they decided ('' when none was recorded). */
  resolved_by_name: string;
  attestation_version: number | null;
  /** sha256 of the write (write-gating.ts); null for requests queued before fingerprints. */
  fingerprint: string | null;
  /** The write in words, for the person deciding. */
  description: string;
  /** When the write this approval let through went through (an approval is used once). */
  used_at: Date | null;
}

/** A write waiting for consent: its fingerprint and what it is in words. */
export interface QueuedWrite {
  fingerprint: string;
  description: string;
}

export interface PlaceholderTaskRow {
  kind: 'create_account' | 'delete_account';
  profile_id: string;
  user_id: string | null;
  attempts: number;
}

export type MatchField = 'email_key' | 'linkedin_key' | 'orcid_key';

/** Advisory-lock class of "a person identified by this normalized identifier" (with hashtext(key)). */
const PERSON_LOCK_CLASS = 7_400_201;

export function createMemberWriteRepository(db: Queryable) {
  return {
    /**
     * Serializes transactions that look up or create a person by the same identifiers (any
     * community): two concurrent adds of one person find each other's profile instead of creating
     * two. Keys are locked in a fixed order, so two transactions never wait on each other in a cycle.
     */
    async lockIdentifiers(keys: string[]): Promise<void> {
      for (const key of [...new Set(keys)].sort()) {
        await db.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [PERSON_LOCK_CLASS, key]);
      }
    },

    /** The profile matching a key: a claimed one first, then the oldest. Share-locked against erasure. */
    async findProfileBy(field: MatchField, key: string): Promise<ProfileRow | undefined> {
      const rows = await db.query<ProfileRow>(
        `SELECT * FROM communities.profiles WHERE ${field} = $1
          ORDER BY (user_id IS NULL), created_at, id LIMIT 1 FOR SHARE`,
        [key],
      );
      return rows[0];
    },

    /**
     * Up to `limit` members of the community whose name, as the community sees it (member-view.ts:
     * what it supplied, unless the profile is public or the membership did not come from a bulk
     * add), equals `nameKey` once trimmed, inner whitespace collapsed and lower-cased.
     */
    async findMembersByName(communityId: string, nameKey: string, limit: number): Promise<string[]> {
      const rows = await db.query<{ id: string }>(
        `SELECT p.id FROM communities.memberships m JOIN communities.profiles p ON p.id = m.profile_id
          WHERE m.community_id = $1
            AND lower(regexp_replace(btrim(CASE WHEN m.supplied IS NULL OR p.public THEN p.name ELSE m.supplied->>'name' END), '\\s+', ' ', 'g')) = $2
          ORDER BY m.joined_at, p.id LIMIT $3 FOR SHARE OF p`,
        [communityId, nameKey, limit],
      );
      return rows.map((r) => r.id);
    },

    async insertProfile(p: Omit<ProfileRow, 'user_id' | 'placeholder_user_id' | 'public' | 'avatar_url'>): Promise<void> {
      await db.query(
        `INSERT INTO communities.profiles (id, name, headline, bio, organization, location, email, linkedin_url, orcid)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [p.id, p.name, p.headline, p.bio, p.organization, p.location, p.email, p.linkedin_url, p.orcid],
      );
    },

    /** Inserts the membership unless the person already is a member; true when inserted. */
    async insertMembershipIfAbsent(communityId: string, profileId: string, role: RoleName, sourceIdentifier: string, supplied: Supplied): Promise<boolean> {
      const rows = await db.query(
        `INSERT INTO communities.memberships (community_id, profile_id, role, source_identifier, supplied) VALUES ($1, $2, $3, $4, $5::jsonb)
         ON CONFLICT (community_id, profile_id) DO NOTHING RETURNING profile_id`,
        [communityId, profileId, role, sourceIdentifier, JSON.stringify(supplied)],
      );
      return rows.length > 0;
    },

    async countMembers(communityId: string): Promise<number> {
      const rows = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM communities.memberships WHERE community_id = $1', [communityId]);
      return rows[0]?.n ?? 0;
    },

    /** Locks the profile against concurrent adds (their membership inserts wait) during erasure. */
    async lockProfile(profileId: string): Promise<ProfileRow | undefined> {
      const rows = await db.query<ProfileRow>('SELECT * FROM communities.profiles WHERE id = $1 FOR UPDATE', [profileId]);
      return rows[0];
    },

    /** Deletes the membership, and with it the community's source identifier; true when it existed. */
    async deleteMembership(communityId: string, profileId: string): Promise<boolean> {
      const rows = await db.query(
        'DELETE FROM communities.memberships WHERE community_id = $1 AND profile_id = $2 RETURNING profile_id',
        [communityId, profileId],
      );
      return rows.length > 0;
    },

    async hasAnyMembership(profileId: string): Promise<boolean> {
      const rows = await db.query('SELECT 1 FROM communities.memberships WHERE profile_id = $1 LIMIT 1', [profileId]);
      return rows.length > 0;
    },

    /** Deletes an unclaimed profile that belongs to no community; true when deleted. */
    async deleteOrphanPlaceholder(profileId: string): Promise<boolean> {
      const rows = await db.query(
        `DELETE FROM communities.profiles p WHERE p.id = $1 AND p.user_id IS NULL
            AND NOT EXISTS (SELECT 1 FROM communities.memberships m WHERE m.profile_id = p.id)
          RETURNING p.id`,
        [profileId],
      );
      return rows.length > 0;
    },

    async setPlaceholderUser(profileId: string, userId: string): Promise<boolean> {
      const rows = await db.query(
        `UPDATE communities.profiles SET placeholder_user_id = $2, updated_at = now()
          WHERE id = $1 AND user_id IS NULL RETURNING id`,
        [profileId, userId],
      );
      return rows.length > 0;
    },

    // --- placeholder-account tasks -------------------------------------------------------------

    async addTask(kind: PlaceholderTaskRow['kind'], profileId: string, userId: string | null): Promise<void> {
      await db.query(
        `INSERT INTO communities.placeholder_tasks (kind, profile_id, user_id) VALUES ($1, $2, $3)
         ON CONFLICT (kind, profile_id) DO UPDATE SET user_id = coalesce(EXCLUDED.user_id, communities.placeholder_tasks.user_id)`,
        [kind, profileId, userId],
      );
    },

    async deleteTask(kind: PlaceholderTaskRow['kind'], profileId: string): Promise<void> {
      await db.query('DELETE FROM communities.placeholder_tasks WHERE kind = $1 AND profile_id = $2', [kind, profileId]);
    },

    async failTask(kind: PlaceholderTaskRow['kind'], profileId: string, error: string): Promise<void> {
      await db.query(
        'UPDATE communities.placeholder_tasks SET attempts = attempts + 1, last_error = $3 WHERE kind = $1 AND profile_id = $2',
        [kind, profileId, error.slice(0, 500)],
      );
    },

    /**
     * Tasks at least `olderThanMs` old (the inline attempt had its chance), oldest first. At least,
     * not more than: the embedded store's clock counts whole milliseconds, so a task written in the
     * same millisecond as a sweep with no grace is already due.
     */
    async dueTasks(olderThanMs: number, limit: number): Promise<PlaceholderTaskRow[]> {
      return db.query<PlaceholderTaskRow>(
        `SELECT kind, profile_id, user_id, attempts FROM communities.placeholder_tasks
          WHERE created_at <= now() - make_interval(secs => $1::double precision / 1000)
          ORDER BY created_at, profile_id LIMIT $2`,
        [olderThanMs, limit],
      );
    },

    // --- write attestations and consent ------------------------------------------------------------

    async latestAttestationVersion(communityId: string): Promise<number> {
      const rows = await db.query<{ v: number }>(
        'SELECT coalesce(max(version), 0)::int AS v FROM communities.write_attestations WHERE community_id = $1',
        [communityId],
      );
      return rows[0]?.v ?? 0;
    },

    /**
     * Uses up an approval of this very write that still stands — same fingerprint, approved within
     * the last `windowSeconds`, while the attestation version current at approval is still the
     * latest, not used yet — and says whether there was one. One statement stamps and checks
     * `used_at`: of two concurrent retries, the second waits on the row and then finds it used.
     */
    async useStandingApproval(communityId: string, fingerprint: string, attestationVersion: number, windowSeconds: number): Promise<boolean> {
      const rows = await db.query(
        `UPDATE communities.consent_requests SET used_at = now()
          WHERE id = (SELECT id FROM communities.consent_requests
                       WHERE community_id = $1 AND fingerprint = $2 AND status = 'approved' AND attestation_version = $3
                         AND used_at IS NULL AND resolved_at > now() - make_interval(secs => $4)
                       ORDER BY resolved_at LIMIT 1)
            AND used_at IS NULL
          RETURNING id`,
        [communityId, fingerprint, attestationVersion, windowSeconds],
      );
      return rows.length > 0;
    },

    /**
     * Queues the write unless the same write already waits; the pending request either way, or
     * undefined when the request that was waiting got resolved between the insert (which then did
     * nothing) and the read.
     */
    async queueConsentRequest(
      id: string, communityId: string, operation: WriteOperation, requestedBy: string, write: QueuedWrite,
    ): Promise<ConsentRequestRow | undefined> {
      await db.query(
        `INSERT INTO communities.consent_requests (id, community_id, operation, requested_by, fingerprint, description)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (community_id, fingerprint) WHERE status = 'pending' AND fingerprint IS NOT NULL DO NOTHING`,
        [id, communityId, operation, requestedBy, write.fingerprint, write.description],
      );
      const rows = await db.query<ConsentRequestRow>(
        `SELECT * FROM communities.consent_requests WHERE community_id = $1 AND fingerprint = $2 AND status = 'pending'`,
        [communityId, write.fingerprint],
      );
      return rows[0];
    },

    async findConsentRequest(id: string, forUpdate = false): Promise<ConsentRequestRow | undefined> {
      const rows = await db.query<ConsentRequestRow>(
        `SELECT * FROM communities.consent_requests WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`,
        [id],
      );
      return rows[0];
    },

    async resolveConsentRequest(
      id: string, status: 'approved' | 'denied', actor: { id: string; name: string }, attestationVersion: number | null,
    ): Promise<ConsentRequestRow> {
      const rows = await db.query<ConsentRequestRow>(
        `UPDATE communities.consent_requests SET status = $2, resolved_at = now(), resolved_by = $3, resolved_by_name = $4, attestation_version = $5
          WHERE id = $1 RETURNING *`,
        [id, status, actor.id, actor.name, attestationVersion],
      );
      return rows[0]!;
    },

    /** Keyset page in (created_at, id) order; `after` is the last row of the previous page. */
    async listConsentRequests(
      filter: { communityId?: string; status?: ConsentStatusName; newestFirst?: boolean },
      after: { createdAt: string; id: string } | undefined,
      limit: number,
    ): Promise<Array<ConsentRequestRow & { cursor_at: string }>> {
      // cursor_at keeps the microseconds a JavaScript Date would lose. Newest first pages backwards.
      const [beyond, order] = filter.newestFirst ? ['<', 'created_at DESC, id DESC'] : ['>', 'created_at, id'];
      return db.query<ConsentRequestRow & { cursor_at: string }>(
        `SELECT *, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_at
           FROM communities.consent_requests
          WHERE ($1::text IS NULL OR community_id = $1) AND ($2::text IS NULL OR status = $2)
            AND ($3::timestamptz IS NULL OR (created_at, id) ${beyond} ($3::timestamptz, $4::text))
          ORDER BY ${order} LIMIT $5`,
        [filter.communityId ?? null, filter.status ?? null, after?.createdAt ?? null, after?.id ?? null, limit],
      );
    },
  };
}

export type MemberWriteRepository = ReturnType<typeof createMemberWriteRepository>;
