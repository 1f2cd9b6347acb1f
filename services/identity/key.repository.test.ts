// Every authenticated GET /v1/me looks its key up by the hash of its secret, for all the requests
// of a moment in one statement: each hash must be found through the key's index, however many keys
// there are and whatever the store's statistics say (PGlite never analyses a table). Pulled up
// into a join, the lookup read every key once per hash; the plan is checked here, not a timing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, storeNames } from '../../test/helpers/stores.js';
import { planOfLastStatement } from '../../test/helpers/statement-plan.js';
import type { Database } from '../kit/db/database.js';
import { createKeyRepository } from './key.repository.js';

const KEYS = 400;
const DAY = '2026-11-29';
const hashOf = (i: number) => `hash_${String(i).padStart(4, '0')}`;

describe.each(storeNames())('keys described by the hashes of their secrets, on %s', (store) => {
  let db: Database;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(store));
    await db.query(`INSERT INTO identity.users (id, email, name, plan) VALUES ('u_keys', 'keys@example.org', 'Key Owner', 'paid')`);
    const keys = createKeyRepository(db);
    for (let i = 0; i < KEYS; i++) {
      await keys.insert({
        id: `k_${i}`, secret_hash: hashOf(i), display_prefix: 'svc_live_ab', environment: 'live', owner_type: 'user', owner_id: 'u_keys',
        minted_by_user_id: null, scopes: ['search:read'], allowlist: null, rate_tier: 'standard', requested_rate: 60, name: '',
      });
    }
    await db.query(`INSERT INTO identity.key_usage_daily (key_id, day, requests) VALUES ('k_7', $1, 3), ('k_7', '2026-11-02', 4), ('k_7', '2026-10-31', 50)`, [DAY]);
    await db.query(`UPDATE identity.api_keys SET revoked_at = now() WHERE id = 'k_9'`);
  });
  afterAll(async () => close());

  it('finds each live key with its owner and its counts of the day and the month; a revoked or unknown hash finds nothing', async () => {
    const rows = await createKeyRepository(db).describeByHashes([hashOf(7), hashOf(9), 'hash_unknown', hashOf(8)], DAY);
    expect(rows.map((r) => [r.id, r.owner_name, r.today, r.month]).sort()).toEqual([['k_7', 'Key Owner', 3, 7], ['k_8', 'Key Owner', 0, 0]]);
  });

  it('looks each hash up through the index of secret hashes, never by reading every key', async () => {
    const hashes = Array.from({ length: 31 }, (_, i) => hashOf(i * 12));
    const plan = await planOfLastStatement(db, async (recording) => expect(await createKeyRepository(recording).describeByHashes(hashes, DAY)).toHaveLength(31));
    expect(plan).toMatch(/Index Scan using api_keys_secret_hash_key on api_keys/);
    expect(plan).not.toMatch(/Seq Scan on api_keys/);
  });
});
