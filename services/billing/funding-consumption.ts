// What organizations have paid under their delegation budgets, per community and UTC month.
// Payer resolution reads it (is there room left?); metering writes it through recordDelegatedCharge
// each time it debits an organization that payer resolution chose with the source
// DELEGATION_BUDGET. The ledger itself does not record communities, so the count lives here.
import type { Database, Queryable } from '../kit/db/database.js';

/** The UTC month of an instant, as 'YYYY-MM' (the budget period). */
export function utcMonth(at: Date = new Date()): string {
  return `${at.getUTCFullYear()}-${String(at.getUTCMonth() + 1).padStart(2, '0')}`;
}

export interface DelegatedCharge {
  organizationId: string;
  communityId: string;
  /** Credits the organization was debited for the charge (positive, whole). */
  credits: number;
  /**
   * The charge's ledger reference. When given, the charge counts once however often it is
   * reported (retries, replays); without it every call adds.
   */
  reference?: string;
  /** When the charge happened; its UTC month is the budget period it counts against. Default: now. */
  at?: Date;
}

function isDatabase(db: Database | Queryable): db is Database {
  return typeof (db as Partial<Database>).transaction === 'function';
}

/**
 * Counts a charge an organization paid under its delegation budget against that community's
 * budget for the charge's UTC month. Returns false when the reference was already counted (nothing
 * changed). Pass a transaction to make it part of a larger one; given the database, it runs in its
 * own transaction.
 */
export async function recordDelegatedCharge(db: Database | Queryable, charge: DelegatedCharge): Promise<boolean> {
  if (!Number.isSafeInteger(charge.credits) || charge.credits <= 0) {
    throw new RangeError('credits must be a positive whole number');
  }
  if (!charge.organizationId || !charge.communityId) throw new RangeError('organizationId and communityId are required');
  const month = utcMonth(charge.at);
  const record = async (tx: Queryable): Promise<boolean> => {
    if (charge.reference !== undefined) {
      const inserted = await tx.query(
        `INSERT INTO billing.delegation_charges (reference, organization_id, community_id, month, credits)
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (reference) DO NOTHING RETURNING reference`,
        [charge.reference, charge.organizationId, charge.communityId, month, charge.credits],
      );
      if (inserted.length === 0) return false;
    }
    await tx.query(
      `INSERT INTO billing.delegation_consumption (organization_id, community_id, month, credits)
       VALUES ($1, $2, $3, $4)
       ON CONFLICT (organization_id, community_id, month)
       DO UPDATE SET credits = billing.delegation_consumption.credits + EXCLUDED.credits`,
      [charge.organizationId, charge.communityId, month, charge.credits],
    );
    return true;
  };
  return isDatabase(db) ? db.transaction(record) : record(db);
}

/** Credits the organization paid under delegation for the community in the UTC month of `at`. */
export async function delegatedInMonth(
  db: Queryable,
  organizationId: string,
  communityId: string,
  at: Date = new Date(),
): Promise<number> {
  const rows = await db.query<{ credits: number }>(
    `SELECT credits FROM billing.delegation_consumption
      WHERE organization_id = $1 AND community_id = $2 AND month = $3`,
    [organizationId, communityId, utcMonth(at)],
  );
  return rows[0]?.credits ?? 0;
}
