// SQL of the seed ledger: which seed records were applied (kind, id, fingerprint), and whether the
// store was seeded (docs/API-DECISIONS.md "Seed files").
import type { Database } from '../kit/db/database.js';

export interface SeedRecordRow {
  kind: string;
  record_id: string;
  fingerprint: string;
}

export function createSeedLedgerRepository(db: Database) {
  return {
    /** Every applied record, who seeded the store ('' when nobody did), and whether it holds no user. */
    async state(): Promise<{ records: SeedRecordRow[]; seededBy: string; storeEmpty: boolean }> {
      const [records, seeded, anyUser] = await Promise.all([
        db.query<SeedRecordRow>('SELECT kind, record_id, fingerprint FROM identity.seed_records'),
        db.query<{ seeded_by: string }>('SELECT seeded_by FROM identity.store_seeded'),
        db.query('SELECT 1 FROM identity.users LIMIT 1'),
      ]);
      return { records, seededBy: seeded[0]?.seeded_by ?? '', storeEmpty: anyUser.length === 0 };
    },

    /** Stores the records (one per kind and id) and, when given, who seeded the store; in one transaction. */
    async record(records: readonly SeedRecordRow[], seededBy: string): Promise<void> {
      await db.transaction(async (tx) => {
        for (let i = 0; i < records.length; i += 1000) {
          const chunk = records.slice(i, i + 1000);
          await tx.query(
            `INSERT INTO identity.seed_records (kind, record_id, fingerprint)
             SELECT * FROM unnest($1::text[], $2::text[], $3::text[])
             ON CONFLICT (kind, record_id) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, applied_at = now()`,
            [chunk.map((r) => r.kind), chunk.map((r) => r.record_id), chunk.map((r) => r.fingerprint)],
          );
        }
        if (seededBy) {
          await tx.query('INSERT INTO identity.store_seeded (seeded_by) VALUES ($1) ON CONFLICT DO NOTHING', [seededBy]);
        }
      });
    },
  };
}

export type SeedLedgerRepository = ReturnType<typeof createSeedLedgerRepository>;
