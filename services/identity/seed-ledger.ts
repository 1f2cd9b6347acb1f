// The seed ledger's two operator calls (docs/API-DECISIONS.md "Seed files"). The rules of applying
// a seed live in deploy/admin/apply-seed.ts; this only remembers what was applied.
import type { SeedRecord } from '../../proto/gen/expertnet/identity/v1/identity_service.js';
import { domainError } from '../kit/grpc/errors.js';
import type { SeedLedgerRepository, SeedRecordRow } from './seed-ledger.repository.js';

const KINDS = new Set(['user', 'organization', 'community', 'profile', 'membership', 'wallet', 'key']);

/** Records what a seed applied; a record of an unknown kind, or without id or fingerprint, is refused. */
export async function recordSeedRecords(ledger: SeedLedgerRepository, request: { records: SeedRecord[]; seededBy: string }): Promise<void> {
  // The last of a repeated (kind, id) wins: one row per record in one statement.
  const records: SeedRecord[] = [...new Map(request.records.map((r) => [`${r.kind}\u0000${r.recordId}`, r])).values()];
  for (const r of records) {
    if (!KINDS.has(r.kind)) throw domainError('invalid_request', `unknown seed record kind ${r.kind}`);
    if (!r.recordId || !r.fingerprint) throw domainError('invalid_request', 'a seed record needs record_id and fingerprint');
  }
  const rows: SeedRecordRow[] = records.map((r) => ({ kind: r.kind, record_id: r.recordId, fingerprint: r.fingerprint }));
  await ledger.record(rows, request.seededBy);
}
