// SQL of the settings web app's sign-in: one-time links and server-side sessions, stored by the
// keyed hash of the value the browser holds (web-sessions.ts decides the rules).
import type { Database } from '../kit/db/database.js';

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
    async redeem(tokenHash: string, session: { idHash: string; idleSeconds: number; absoluteSeconds: number; previousIdHash?: string }): Promise<string | undefined> {
      return db.transaction(async (tx) => {
        const [link] = await tx.query<{ user_id: string }>(
          `UPDATE identity.sign_in_links SET used_at = now()
           WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING user_id`,
          [tokenHash],
        );
        if (!link) return undefined;
        if (session.previousIdHash) {
          await tx.query('UPDATE identity.web_sessions SET ended_at = now() WHERE id_hash = $1 AND ended_at IS NULL', [session.previousIdHash]);
        }
        await tx.query(
          `INSERT INTO identity.web_sessions (id_hash, user_id, idle_seconds, absolute_expires_at)
           VALUES ($1, $2, $3, now() + make_interval(secs => $4))`,
          [session.idHash, link.user_id, session.idleSeconds, session.absoluteSeconds],
        );
        return link.user_id;
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
