// Idempotency records in PostgreSQL / PGlite (table edge.idempotency_records, see
// gateway/migrations/001_idempotency.sql). Every decision is one statement judged by the
// database's clock, so replicas of the gateway agree on who holds a key without talking to each
// other: the INSERT … ON CONFLICT of a claim lets exactly one request through.
import { randomUUID } from 'node:crypto';
import type { Database } from '../../../services/kit/db/database.js';
import { isKnownDead, THIS_PROCESS, type Holder } from './holder.js';
import { LEASE_SECONDS, RETENTION_SECONDS, type StoredHeaders } from './policy.js';

/** Whose key and where: the key is scoped to the credential and the concrete route. */
export interface RecordScope {
  credentialKind: string;
  credentialId: string;
  /** Method and concrete path, e.g. `POST /v1/communities/c_1/members`. */
  route: string;
  key: string;
}

/** A claim this process holds on a key while the operation runs. */
export interface Claim {
  scope: RecordScope;
  token: string;
}

export interface StoredResponse {
  statusCode: number;
  headers: StoredHeaders;
  body: Buffer;
}

export type ClaimResult =
  | { kind: 'claimed'; claim: Claim }
  /**
   * Another request with the key is running (its lease is alive, its holder not known dead);
   * retryAfterSeconds: whole seconds until its lease would run out, at least 1.
   */
  | { kind: 'in_flight'; retryAfterSeconds: number }
  /** The key was used with another body. */
  | { kind: 'mismatch' }
  | { kind: 'replay'; response: StoredResponse };

export interface IdempotencyStoreOptions {
  leaseSeconds?: number;
  retentionSeconds?: number;
  /** The process claims are made for (default: this one). */
  holder?: Holder;
}

interface RecordRow {
  state: 'in_flight' | 'done';
  claim_token: string;
  lease_seconds_left: number;
  holder_host: string | null;
  holder_pid_ns: string | null;
  holder_pid: number | null;
  holder_instance: string | null;
  fingerprint: string;
  status_code: number | null;
  response_headers: StoredHeaders | string | null;
  response_body: Uint8Array | null;
}

const PK = 'credential_kind = $1 AND credential_id = $2 AND route = $3 AND idempotency_key = $4';

function pkParams(scope: RecordScope): unknown[] {
  return [scope.credentialKind, scope.credentialId, scope.route, scope.key];
}

function holderOf(row: RecordRow): Partial<Holder> {
  return {
    ...(row.holder_host !== null && { host: row.holder_host }),
    ...(row.holder_pid_ns !== null && { pidNamespace: row.holder_pid_ns }),
    ...(row.holder_pid !== null && { pid: row.holder_pid }),
    ...(row.holder_instance !== null && { instance: row.holder_instance }),
  };
}

/** The claim columns a claim or a takeover writes: $5 fingerprint … $12 holder instance. */
const CLAIM_PARAMS = (store: IdempotencyStore, fingerprint: string, token: string): unknown[] => [
  fingerprint,
  token,
  store.leaseSeconds,
  store.retentionSeconds,
  store.holder.host,
  store.holder.pidNamespace,
  store.holder.pid,
  store.holder.instance,
];

export class IdempotencyStore {
  readonly leaseSeconds: number;
  readonly retentionSeconds: number;
  readonly holder: Holder;

  constructor(
    private readonly db: Database,
    options: IdempotencyStoreOptions = {},
  ) {
    this.leaseSeconds = options.leaseSeconds ?? LEASE_SECONDS;
    this.retentionSeconds = options.retentionSeconds ?? RETENTION_SECONDS;
    this.holder = options.holder ?? THIS_PROCESS;
  }

  /**
   * Claims the key for a request with this body fingerprint, or says why not. A free key, an
   * expired record and an in-flight claim whose lease ran out are claimed; a live claim is
   * in_flight; a stored response is replayed when the fingerprint matches, else mismatch.
   */
  async claim(scope: RecordScope, fingerprint: string): Promise<ClaimResult> {
    // A record can vanish between the two statements (its claim released): then try again.
    for (let attempt = 0; attempt < 3; attempt++) {
      const token = randomUUID();
      const claimed = await this.db.query<{ claim_token: string }>(
        `INSERT INTO edge.idempotency_records AS r
           (credential_kind, credential_id, route, idempotency_key, fingerprint, state, claim_token,
            lease_until, created_at, expires_at, holder_host, holder_pid_ns, holder_pid, holder_instance)
         VALUES ($1, $2, $3, $4, $5, 'in_flight', $6,
                 now() + $7::integer * interval '1 second', now(), now() + $8::integer * interval '1 second',
                 $9, $10, $11, $12)
         ON CONFLICT (credential_kind, credential_id, route, idempotency_key) DO UPDATE
           SET fingerprint = EXCLUDED.fingerprint, state = 'in_flight', claim_token = EXCLUDED.claim_token,
               lease_until = EXCLUDED.lease_until, created_at = EXCLUDED.created_at,
               expires_at = EXCLUDED.expires_at, completed_at = NULL,
               status_code = NULL, response_headers = NULL, response_body = NULL,
               holder_host = EXCLUDED.holder_host, holder_pid_ns = EXCLUDED.holder_pid_ns,
               holder_pid = EXCLUDED.holder_pid, holder_instance = EXCLUDED.holder_instance
           WHERE r.expires_at <= now() OR (r.state = 'in_flight' AND r.lease_until <= now())
         RETURNING claim_token`,
        [...pkParams(scope), ...CLAIM_PARAMS(this, fingerprint, token)],
      );
      if (claimed[0]?.claim_token === token) return { kind: 'claimed', claim: { scope, token } };
      const rows = await this.db.query<RecordRow>(
        `SELECT state, claim_token, holder_host, holder_pid_ns, holder_pid, holder_instance,
                greatest(1, ceil(extract(epoch FROM lease_until - now())))::integer AS lease_seconds_left,
                fingerprint, status_code, response_headers, response_body
           FROM edge.idempotency_records WHERE ${PK} AND expires_at > now()`,
        pkParams(scope),
      );
      const row = rows[0];
      if (!row) continue;
      if (row.state === 'in_flight') {
        if (isKnownDead(holderOf(row), this.holder)) {
          const taken = await this.takeOver(scope, row.claim_token, fingerprint);
          if (taken) return taken;
          continue; // someone else took it, or it was finished meanwhile: look again
        }
        return { kind: 'in_flight', retryAfterSeconds: row.lease_seconds_left };
      }
      if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
      const headers = typeof row.response_headers === 'string' ? JSON.parse(row.response_headers) : row.response_headers;
      return {
        kind: 'replay',
        response: { statusCode: row.status_code!, headers: headers ?? {}, body: Buffer.from(row.response_body ?? []) },
      };
    }
    return { kind: 'in_flight', retryAfterSeconds: 1 };
  }

  /** Takes over the in-flight claim `deadToken` of a dead holder; null when it is no longer that claim. */
  private async takeOver(scope: RecordScope, deadToken: string, fingerprint: string): Promise<ClaimResult | null> {
    const token = randomUUID();
    const rows = await this.db.query<{ claim_token: string }>(
      `UPDATE edge.idempotency_records
          SET fingerprint = $5, claim_token = $6, lease_until = now() + $7::integer * interval '1 second',
              created_at = now(), expires_at = now() + $8::integer * interval '1 second',
              holder_host = $9, holder_pid_ns = $10, holder_pid = $11, holder_instance = $12
        WHERE ${PK} AND state = 'in_flight' AND claim_token = $13
        RETURNING claim_token`,
      [...pkParams(scope), ...CLAIM_PARAMS(this, fingerprint, token), deadToken],
    );
    return rows[0]?.claim_token === token ? { kind: 'claimed', claim: { scope, token } } : null;
  }

  /**
   * Deletes the in-flight claims of holders known dead on this host (a previous life of this
   * process, or another process here that died): run at start-up, so a crash leaves no claim
   * behind for even one retry. Returns how many were released.
   */
  async releaseDeadClaims(): Promise<number> {
    const rows = await this.db.query<{ holder_pid: number; holder_instance: string }>(
      `SELECT DISTINCT holder_pid, holder_instance FROM edge.idempotency_records
        WHERE state = 'in_flight' AND holder_host = $1 AND holder_pid_ns = $2 AND holder_instance <> $3`,
      [this.holder.host, this.holder.pidNamespace, this.holder.instance],
    );
    let released = 0;
    for (const row of rows) {
      const holder = { host: this.holder.host, pidNamespace: this.holder.pidNamespace, pid: row.holder_pid, instance: row.holder_instance };
      if (!isKnownDead(holder, this.holder)) continue;
      const deleted = await this.db.query<{ n: number }>(
        `WITH gone AS (DELETE FROM edge.idempotency_records
                        WHERE state = 'in_flight' AND holder_host = $1 AND holder_pid_ns = $2 AND holder_instance = $3
                        RETURNING 1)
         SELECT count(*)::integer AS n FROM gone`,
        [this.holder.host, this.holder.pidNamespace, row.holder_instance],
      );
      released += deleted[0]?.n ?? 0;
    }
    return released;
  }

  /** Extends a claim's lease while its operation runs; false when the claim is no longer ours. */
  async renew(claim: Claim): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE edge.idempotency_records SET lease_until = now() + $6::integer * interval '1 second'
        WHERE ${PK} AND claim_token = $5 AND state = 'in_flight' RETURNING 1 AS ok`,
      [...pkParams(claim.scope), claim.token, this.leaseSeconds],
    );
    return rows.length === 1;
  }

  /** Stores the outcome for replay (kept retentionSeconds from now); false when the claim was lost. */
  async complete(claim: Claim, response: StoredResponse): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE edge.idempotency_records
          SET state = 'done', status_code = $6, response_headers = $7::jsonb, response_body = $8,
              completed_at = now(), expires_at = now() + $9::integer * interval '1 second'
        WHERE ${PK} AND claim_token = $5 AND state = 'in_flight' RETURNING 1 AS ok`,
      [
        ...pkParams(claim.scope),
        claim.token,
        response.statusCode,
        JSON.stringify(response.headers),
        response.body,
        this.retentionSeconds,
      ],
    );
    return rows.length === 1;
  }

  /** Gives the key up (the request was refused, or failed with a 5xx): the next request runs. */
  async release(claim: Claim): Promise<void> {
    await this.db.query(
      `DELETE FROM edge.idempotency_records WHERE ${PK} AND claim_token = $5 AND state = 'in_flight'`,
      [...pkParams(claim.scope), claim.token],
    );
  }

  /** Deletes expired records; returns how many. */
  async purgeExpired(): Promise<number> {
    const rows = await this.db.query<{ purged: number }>(
      `WITH purged AS (DELETE FROM edge.idempotency_records WHERE expires_at <= now() RETURNING 1)
       SELECT count(*)::integer AS purged FROM purged`,
    );
    return rows[0]?.purged ?? 0;
  }
}
