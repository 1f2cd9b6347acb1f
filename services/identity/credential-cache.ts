// API keys' callers kept in memory, each with its stamp (services/kit/credential-stamps.ts,
// docs/CREDENTIAL-CACHE.md). A cached caller is handed out only to an edge that checks the stamp
// before acting on it; identity publishes the new stamps of the keys a change touched before the
// change's answer, so every replica's next request finds the cached caller stale and reads live.
import { createHash } from 'node:crypto';
import { Caller } from '../../proto/gen/expertnet/common/v1/common.js';
import { STAMP_TTL_MS, type CredentialStamps } from '../kit/credential-stamps.js';
import { callerOfKey } from './identity-messages.js';
import type { AuthenticatedKeyRow } from './key.repository.js';

/** The stamp of a key that no longer authenticates. */
const REVOKED = 'revoked';
const MAX_ENTRIES = 10_000;

/**
 * A digest of everything the key's caller is made of, and of when the key expires (a roll sets
 * the old key's expiry: a caller cached before it must be read again); `revoked` once the key is.
 */
export function stampOfKey(row: AuthenticatedKeyRow): string {
  if (row.revoked_at) return REVOKED;
  return stampOfCaller(callerOfKey(row), row.expires_at);
}

function stampOfCaller(caller: Caller, expiresAt: Date | null): string {
  return createHash('sha256').update(JSON.stringify([Caller.toJSON(caller), expiresAt?.toISOString() ?? null])).digest('base64url').slice(0, 22);
}

interface Entry {
  caller: Caller;
  stamp: string;
  expiresAt: number;
}

export function createCredentialCache(stamps: CredentialStamps) {
  /** By the key's secret hash. */
  const entries = new Map<string, Entry>();

  return {
    /** The cached caller of a key's secret hash and its stamp, when fresh. */
    get(secretHash: string): Entry | undefined {
      const entry = entries.get(secretHash);
      if (entry && entry.expiresAt > Date.now()) return entry;
      if (entry) entries.delete(secretHash);
      return undefined;
    },

    forget(secretHash: string): void {
      entries.delete(secretHash);
    },

    /**
     * Keeps a caller read live (the read began at `readAt`, ms), and seeds its stamp for the edge's
     * check. A read slow enough that a stamp published after it began could have expired since is
     * not kept: its seed could otherwise bring back the state from before that change. A key that
     * expires (`keyExpiresAt`) is kept no later than that: its next request then reads it live
     * and is refused as expired.
     */
    async remember(secretHash: string, caller: Caller, readAt: number, keyExpiresAt: Date | null = null): Promise<void> {
      if (Date.now() - readAt >= STAMP_TTL_MS / 2) return;
      const stamp = stampOfCaller(caller, keyExpiresAt);
      // Bounded: the oldest entry goes first (a Map keeps insertion order).
      if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
      entries.delete(secretHash);
      // No longer than a stamp lives (a stamp never outlives the state it was read from by more),
      // nor than the key itself.
      const expiresAt = Math.min(Date.now() + STAMP_TTL_MS, keyExpiresAt?.getTime() ?? Infinity);
      entries.set(secretHash, { caller, stamp, expiresAt });
      await stamps.seed(caller.credentialId, stamp);
    },

    /** After a committed change: the keys' stamps as they are now (read after the commit). */
    async publish(rows: AuthenticatedKeyRow[]): Promise<void> {
      await stamps.publish(rows.map((row) => [row.id, stampOfKey(row)] as const));
    },
  };
}

export type CredentialCache = ReturnType<typeof createCredentialCache>;
