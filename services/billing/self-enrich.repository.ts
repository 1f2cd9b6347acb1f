// The free self-enrich cooldown: an owner not on a paid plan may self-enrich once per 30 days.
// The last free self-enrich of each user is one row (migration 003); claiming the next one is a
// single atomic statement, so concurrent attempts let exactly one through.
import type { Queryable } from '../kit/db/database.js';

export const SELF_ENRICH_COOLDOWN_DAYS = 30;
const COOLDOWN_MS = SELF_ENRICH_COOLDOWN_DAYS * 24 * 60 * 60 * 1000;

export type FreeSelfEnrichClaim =
  /** This run may go ahead (a new free self-enrich, or the same run metered again). */
  | { allowed: true; runId: string; enrichedAt: Date; availableAt: Date; repeated: boolean }
  /** Inside the cooldown of another run: refused until availableAt. */
  | { allowed: false; runId: string; enrichedAt: Date; availableAt: Date };

interface Row {
  run_id: string;
  enriched_at: Date;
}

export function availableAfter(enrichedAt: Date): Date {
  return new Date(enrichedAt.getTime() + COOLDOWN_MS);
}

/**
 * Claims the user's free self-enrich for `runId` at `now`: succeeds when the user never had one,
 * when the last one is at least 30 days old, or when the last one is this same run (idempotent).
 */
export async function claimFreeSelfEnrich(
  db: Queryable,
  claim: { userId: string; runId: string; credentialId?: string; now?: Date },
): Promise<FreeSelfEnrichClaim> {
  const now = claim.now ?? new Date();
  const cutoff = new Date(now.getTime() - COOLDOWN_MS);
  const claimed = await db.query<Row>(
    `INSERT INTO billing.free_self_enrichments AS f (user_id, run_id, enriched_at, credential_id)
     VALUES ($1, $2, $3, $4)
     ON CONFLICT (user_id) DO UPDATE
       SET run_id = EXCLUDED.run_id, enriched_at = EXCLUDED.enriched_at, credential_id = EXCLUDED.credential_id
       WHERE f.enriched_at <= $5 AND f.run_id <> EXCLUDED.run_id
     RETURNING run_id, enriched_at`,
    [claim.userId, claim.runId, now, claim.credentialId ?? null, cutoff],
  );
  if (claimed[0]) {
    return { allowed: true, runId: claim.runId, enrichedAt: claimed[0].enriched_at, availableAt: availableAfter(claimed[0].enriched_at), repeated: false };
  }
  // Not claimed: the row exists and is either this very run (a retry) or another run in its cooldown.
  const [last] = await db.query<Row>('SELECT run_id, enriched_at FROM billing.free_self_enrichments WHERE user_id = $1', [claim.userId]);
  if (!last) throw new Error('free self-enrich row vanished'); // rows are never deleted
  const availableAt = availableAfter(last.enriched_at);
  if (last.run_id === claim.runId) return { allowed: true, runId: last.run_id, enrichedAt: last.enriched_at, availableAt, repeated: true };
  return { allowed: false, runId: last.run_id, enrichedAt: last.enriched_at, availableAt };
}
