// The seed ledger's SQL and its two operator calls (docs/API-DECISIONS.md "Seed files"). The rules of
// applying a seed live in deploy/admin/apply-seed.ts; this only remembers what was applied.
import type { GetSeedStateResponse, IdentityServiceImplementation, SeedRecord } from '../../proto/gen/expertnet/identity/v1/identity_service.js';
import type { Database } from '../kit/db/database.js';
import { domainError } from '../kit/grpc/errors.js';

const KINDS = new Set(['user', 'organization', 'community', 'profile', 'membership', 'wallet', 'key']);

export function createSeedLedgerHandlers(db: Database): Pick<IdentityServiceImplementation, 'getSeedState' | 'recordSeedRecords'> {
  return {
    async getSeedState(): Promise<GetSeedStateResponse> {
      const [records, seeded, anyUser] = await Promise.all([
        db.query<{ kind: string; record_id: string; fingerprint: string }>('SELECT kind, record_id, fingerprint FROM identity.seed_records'),
        db.query<{ seeded_by: string }>('SELECT seeded_by FROM identity.store_seeded'),
        db.query('SELECT 1 FROM identity.users LIMIT 1'),
      ]);
      return {
        records: records.map((r) => ({ kind: r.kind, recordId: r.record_id, fingerprint: r.fingerprint })),
        seededBy: seeded[0]?.seeded_by ?? '',
        storeEmpty: anyUser.length === 0,
      };
    },

    async recordSeedRecords(request) {
      // The last of a repeated (kind, id) wins: one row per record in one statement.
      const records: SeedRecord[] = [...new Map(request.records.map((r) => [`${r.kind}\u0000${r.recordId}`, r])).values()];
      for (const r of records) {
        if (!KINDS.has(r.kind)) throw domainError('invalid_request', `unknown seed record kind ${r.kind}`);
        if (!r.recordId || !r.fingerprint) throw domainError('invalid_request', 'a seed record needs record_id and fingerprint');
      }
      await db.transaction(async (tx) => {
        for (let i = 0; i < records.length; i += 1000) {
          const chunk = records.slice(i, i + 1000);
          await tx.query(
            `INSERT INTO identity.seed_records (kind, record_id, fingerprint)
             SELECT * FROM unnest($1::text[], $2::text[], $3::text[])
             ON CONFLICT (kind, record_id) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, applied_at = now()`,
            [chunk.map((r) => r.kind), chunk.map((r) => r.recordId), chunk.map((r) => r.fingerprint)],
          );
        }
        if (request.seededBy) {
          await tx.query('INSERT INTO identity.store_seeded (seeded_by) VALUES ($1) ON CONFLICT DO NOTHING', [request.seededBy]);
        }
      });
      return {};
    },
  };
}
