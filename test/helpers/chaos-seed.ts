// The seed of the chaos suites: one organization-owned community open to API writes, funded
// wallets, and one key with every scope the workload needs. People come only through the API (the
// bulk add), so a restart that re-applies the seed never brings an erased person back.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const CHAOS_COMMUNITY = 'c_chaos';

/** Writes the seed file; `keyId` must be fresh per run (rate-limit buckets live in the shared Redis). */
export function writeChaosSeed(keyId: string, secret: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'en-chaos-')), 'seed.json');
  writeFileSync(
    file,
    JSON.stringify({
      users: [{ id: 'u_owner', email: 'owner@example.org', name: 'Owner', plan: 'paid' }],
      organizations: [{ id: 'o_lab', name: 'Lab', members: [{ user: 'u_owner', role: 'owner' }] }],
      communities: [{ id: CHAOS_COMMUNITY, name: 'Chaos Lab', owner: { organization: 'o_lab' }, api_writes: true }],
      wallets: [
        { owner: { organization: 'o_lab' }, balance: 1_000_000 },
        { owner: { user: 'u_owner' }, balance: 1_000_000 },
      ],
      keys: [
        {
          id: keyId,
          secret,
          owner: { user: 'u_owner' },
          scopes: ['member:write', 'profile:read', 'enrich:write', 'enrich:read', 'search:read'],
          requested_rate: 6000,
        },
      ],
    }),
  );
  return file;
}
