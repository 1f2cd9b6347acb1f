// The published stamps of API keys (docs/CREDENTIAL-CACHE.md): a digest of everything a key's
// caller is made of (its grants, its owner, the organizations its user manages; "revoked" once it
// is). Identity keeps callers in memory, each with the stamp it was read with; the edge's rate
// limiter uses a cached caller only while the credential's published stamp still equals that one,
// checked inside the rate-limit step itself, so the check costs no round trip of its own.
//
// Two ways a stamp is written:
// - `publish`, after identity committed a change to a key or to its user's organization roles: the
//   new state's stamp, overwriting. The change's answer waits for it, so the very next request,
//   on any replica, sees the new stamp.
// - `seed`, after a live read: only where no stamp is published yet (NX), so a read that raced a
//   change can never put the old state's stamp back over the new one.
// Stamps expire (STAMP_TTL_MS); an absent stamp only means the next request reads live again.
//
// Redis keys carry the credential's hash tag, as the rate limiter's do, so the limiter's script
// reads the stamp in the bucket's Redis Cluster slot.
import type { Redis } from './redis.js';

/** How long a published or seeded stamp lives; past it the key's next request reads live. */
export const STAMP_TTL_MS = 60_000;

export interface CredentialStamps {
  /** After a committed change: these credentials' stamps are now these (overwriting). */
  publish(stamps: ReadonlyArray<readonly [credentialId: string, stamp: string]>): Promise<void>;
  /** After a live read: the credential's stamp, unless one is published already. */
  seed(credentialId: string, stamp: string): Promise<void>;
}

/** The Redis key of a credential's stamp, beside its rate-limit bucket (same prefix and hash tag). */
export function stampKey(prefix: string, credentialId: string): string {
  return `${prefix}{${credentialId}}:s`;
}

/** Stamps shared by every replica, in the rate limiter's Redis. */
export class RedisCredentialStamps implements CredentialStamps {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async publish(stamps: ReadonlyArray<readonly [string, string]>): Promise<void> {
    if (stamps.length === 0) return;
    const pipeline = this.redis.pipeline();
    for (const [id, stamp] of stamps) pipeline.set(stampKey(this.prefix, id), stamp, 'PX', STAMP_TTL_MS);
    const results = (await pipeline.exec()) ?? [];
    const failed = results.find(([error]) => error);
    if (failed) throw failed[0];
  }

  async seed(credentialId: string, stamp: string): Promise<void> {
    await this.redis.set(stampKey(this.prefix, credentialId), stamp, 'PX', STAMP_TTL_MS, 'NX');
  }
}

/** Stamps of one process (no Redis): identity and the edge's in-memory limiter share this object. */
export class MemoryCredentialStamps implements CredentialStamps {
  private readonly stamps = new Map<string, { stamp: string; expiresAt: number }>();

  async publish(stamps: ReadonlyArray<readonly [string, string]>): Promise<void> {
    for (const [id, stamp] of stamps) this.set(id, stamp);
  }

  async seed(credentialId: string, stamp: string): Promise<void> {
    if (this.current(credentialId) === undefined) this.set(credentialId, stamp);
  }

  private set(credentialId: string, stamp: string): void {
    const now = Date.now();
    // Bounded: past 100,000 stamps the expired ones go (an absent stamp is an expired one).
    if (this.stamps.size >= 100_000) for (const [id, e] of this.stamps) if (e.expiresAt <= now) this.stamps.delete(id);
    this.stamps.set(credentialId, { stamp, expiresAt: now + STAMP_TTL_MS });
  }

  /** The credential's stamp now; undefined when none is published or it expired. */
  current(credentialId: string): string | undefined {
    const entry = this.stamps.get(credentialId);
    if (!entry) return undefined;
    if (entry.expiresAt > Date.now()) return entry.stamp;
    this.stamps.delete(credentialId);
    return undefined;
  }
}
