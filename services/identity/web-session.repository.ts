// SQL of the settings web app's sign-in: one-time links, identities at an external OpenID Connect
// provider, and server-side sessions, stored by the keyed hash of the value the browser holds
// (web-sessions.ts decides the rules).
import type { Database, Queryable } from '../kit/db/database.js';

/** A session to open: the keyed hash of its id, its lifetimes, and the browser's previous one. */
export interface NewSession {
  idHash: string;
  idleSeconds: number;
  absoluteSeconds: number;
  previousIdHash?: string;
}

/** An identity at an external provider, as the settings surface verified it. */
export interface ExternalIdentity {
  issuer: string;
  subject: string;
  email: string;
  emailVerified: boolean;
}

/** Opens a session for the user inside `tx`; the browser's previous session (if any) ends. */
async function openSession(tx: Queryable, userId: string, session: NewSession): Promise<void> {
  if (session.previousIdHash) {
    await tx.query('UPDATE identity.web_sessions SET ended_at = now() WHERE id_hash = $1 AND ended_at IS NULL', [session.previousIdHash]);
  }
  await tx.query(
    `INSERT INTO identity.web_sessions (id_hash, user_id, idle_seconds, absolute_expires_at)
     VALUES ($1, $2, $3, now() + make_interval(secs => $4))`,
    [session.idHash, userId, session.idleSeconds, session.absoluteSeconds],
  );
}

export interface SessionUserRow {
  user_id: string;
  name: string;
  email: string | null;
}

export function createWebSessionRepository(db: Database) {
  return {
    async insertLink(tokenHash: string, userId: string, ttlSeconds: number): Promise<Date> {
      const [row] = await db.query<{ expires_at: Date }>(
        `INSERT INTO identity.sign_in_links (token_hash, user_id, expires_at)
         VALUES ($1, $2, now() + make_interval(secs => $3)) RETURNING expires_at`,
        [tokenHash, userId, ttlSeconds],
      );
      return new Date(row!.expires_at);
    },

    /**
     * Marks a live, unused link used and opens a session for its user, in one transaction; the
     * previous session (if any) ends. Undefined when the link is unknown, used or expired.
     */
    async redeem(tokenHash: string, session: NewSession): Promise<string | undefined> {
      return db.transaction(async (tx) => {
        const [link] = await tx.query<{ user_id: string }>(
          `UPDATE identity.sign_in_links SET used_at = now()
           WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING user_id`,
          [tokenHash],
        );
        if (!link) return undefined;
        await openSession(tx, link.user_id, session);
        return link.user_id;
      });
    },

    /**
     * The user an external identity is linked to — linking it first, when it is new and carries a
     * verified e-mail address of a user (not a placeholder account) — and a session opened for
     * them, in one transaction. Undefined when no user answers to it.
     */
    async signInExternal(identity: ExternalIdentity, session: NewSession): Promise<string | undefined> {
      return db.transaction(async (tx) => {
        if (identity.emailVerified && identity.email) {
          // A concurrent first sign-in links once: the other insert does nothing.
          await tx.query(
            `INSERT INTO identity.external_identities (issuer, subject, user_id)
             SELECT $1, $2, u.id FROM identity.users u
             WHERE lower(u.email) = lower($3) AND u.placeholder_profile_id IS NULL
             ON CONFLICT (issuer, subject) DO NOTHING`,
            [identity.issuer, identity.subject, identity.email],
          );
        }
        const [linked] = await tx.query<{ user_id: string }>(
          `UPDATE identity.external_identities SET last_sign_in_at = now()
           WHERE issuer = $1 AND subject = $2 RETURNING user_id`,
          [identity.issuer, identity.subject],
        );
        if (!linked) return undefined;
        await openSession(tx, linked.user_id, session);
        return linked.user_id;
      });
    },

    /** The user of a live session, touching it (its idle clock restarts); undefined when it ended. */
    async touch(idHash: string): Promise<SessionUserRow | undefined> {
      const [row] = await db.query<SessionUserRow>(
        `UPDATE identity.web_sessions s SET last_seen_at = now()
         FROM identity.users u
         WHERE s.id_hash = $1 AND u.id = s.user_id AND s.ended_at IS NULL
           AND s.absolute_expires_at > now() AND s.last_seen_at + make_interval(secs => s.idle_seconds) > now()
         RETURNING s.user_id, u.name, u.email`,
        [idHash],
      );
      return row;
    },

    async end(idHash: string): Promise<void> {
      await db.query('UPDATE identity.web_sessions SET ended_at = now() WHERE id_hash = $1 AND ended_at IS NULL', [idHash]);
    },
  };
}

export type WebSessionRepository = ReturnType<typeof createWebSessionRepository>;
