// The authorization server's storage adapter (oidc-provider's Adapter interface) over the edge's
// own schema: `edge.oauth_state` (gateway/migrations/003_oauth_state.sql). Registered clients,
// codes, refresh tokens, grants, sessions and interactions survive a restart and are shared by
// every gateway replica. An expired row is never found, and expired rows are purged at most every
// ten minutes, on a write.
import type { Adapter, AdapterConstructor, AdapterPayload } from 'oidc-provider';
import type { Queryable } from '../../services/kit/db/database.js';

const PURGE_EVERY_MS = 10 * 60_000;

interface StateRow {
  payload: AdapterPayload;
  consumed_at: Date | null;
}

/** The payload as the provider expects it back: `consumed` (epoch seconds) once consumed. */
function payloadOf(row: StateRow | undefined): AdapterPayload | undefined {
  if (!row) return undefined;
  return row.consumed_at ? { ...row.payload, consumed: Math.floor(new Date(row.consumed_at).getTime() / 1000) } : row.payload;
}

/** An adapter class over `db`, one instance per model (the provider makes them). */
export function oauthStateAdapter(db: Queryable): AdapterConstructor & { revokeGrant(grantId: string): Promise<void> } {
  let lastPurge = 0;
  const findWhere = async (column: 'id' | 'uid' | 'user_code', model: string, value: string) =>
    payloadOf((await db.query<StateRow>(
      `SELECT payload, consumed_at FROM edge.oauth_state
       WHERE model = $1 AND ${column} = $2 AND (expires_at IS NULL OR expires_at > now())`,
      [model, value],
    ))[0]);

  return class OAuthStateAdapter implements Adapter {
    constructor(readonly model: string) {}

    /** Deletes every row of a grant: its codes, tokens and the grant itself (a revoke in the settings app). */
    static async revokeGrant(grantId: string): Promise<void> {
      await db.query('DELETE FROM edge.oauth_state WHERE grant_id = $1', [grantId]);
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      const grantId = payload.grantId ?? (this.model === 'Grant' ? id : null);
      await db.query(
        `INSERT INTO edge.oauth_state (model, id, payload, grant_id, uid, user_code, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, CASE WHEN $7::int IS NULL THEN NULL ELSE now() + make_interval(secs => $7::int) END)
         ON CONFLICT (model, id) DO UPDATE SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id, uid = EXCLUDED.uid,
           user_code = EXCLUDED.user_code, expires_at = EXCLUDED.expires_at`,
        [this.model, id, JSON.stringify(payload), grantId, payload.uid ?? null, payload.userCode ?? null, expiresIn ?? null],
      );
      if (Date.now() - lastPurge > PURGE_EVERY_MS) {
        lastPurge = Date.now();
        await db.query('DELETE FROM edge.oauth_state WHERE expires_at < now()');
      }
    }

    find(id: string) {
      return findWhere('id', this.model, id);
    }

    findByUid(uid: string) {
      return findWhere('uid', this.model, uid);
    }

    findByUserCode(userCode: string) {
      return findWhere('user_code', this.model, userCode);
    }

    async consume(id: string): Promise<void> {
      await db.query('UPDATE edge.oauth_state SET consumed_at = now() WHERE model = $1 AND id = $2', [this.model, id]);
    }

    async destroy(id: string): Promise<void> {
      await db.query('DELETE FROM edge.oauth_state WHERE model = $1 AND id = $2', [this.model, id]);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await OAuthStateAdapter.revokeGrant(grantId);
    }
  };
}
