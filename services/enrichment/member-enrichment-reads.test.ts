// A roster page asks when its people were enriched, and a member read asks for its person's data,
// for all the requests of a moment in one statement each: every person must be found by the
// table's key, however many members a community has enriched and whatever the store's statistics
// say (PGlite never analyses a table). Pulled up into a join, these reads read every enriched
// member; the plans are checked here, not timings.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, storeNames } from '../../test/helpers/stores.js';
import { planOfLastStatement } from '../../test/helpers/statement-plan.js';
import type { Database } from '../kit/db/database.js';
import { createRunsRepository } from './runs.repository.js';

const ENRICHED = 2000;
const profileOf = (i: number) => `p_${String(i).padStart(5, '0')}`;

describe.each(storeNames())('enriched members read by their key, on %s', (store) => {
  let db: Database;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(store));
    await db.query(
      `INSERT INTO enrichment.member_enrichment (community_id, profile_id, depth, data, enriched_at)
       SELECT CASE WHEN g % 2 = 0 THEN 'c_even' ELSE 'c_odd' END, 'p_' || lpad(g::text, 5, '0'), 'quick', jsonb_build_object('n', g), '2026-11-01T00:00:00Z'
         FROM generate_series(1, $1::int) g`,
      [ENRICHED],
    );
  });
  afterAll(async () => close());

  const people = Array.from({ length: 21 }, (_, i) => profileOf(i * 90 + 2));

  it("gives each ask its own community's enrichment times and data, nothing of another community's", async () => {
    const repo = createRunsRepository(db);
    const [even, odd] = await repo.enrichedAt([{ communityId: 'c_even', profileIds: [profileOf(2), profileOf(3)] }, { communityId: 'c_odd', profileIds: [profileOf(3)] }]);
    expect(even!.map((r) => r.profile_id)).toEqual([profileOf(2)]);
    expect(odd!.map((r) => r.profile_id)).toEqual([profileOf(3)]);
    const data = await repo.memberEnrichments([{ communityId: 'c_even', profileId: profileOf(4) }, { communityId: 'c_odd', profileId: profileOf(4) }]);
    expect(data.map((d) => d?.data)).toEqual([{ n: 4 }, undefined]);
  });

  // Each read asks for the same 21 people of one community and must find every one by the key.
  const reads: Array<[string, (repo: ReturnType<typeof createRunsRepository>) => Promise<number>]> = [
    ["a page's enrichment times", async (repo) => (await repo.enrichedAt([{ communityId: 'c_even', profileIds: people }]))[0]!.length],
    ["members' enrichment data", async (repo) => (await repo.memberEnrichments(people.map((profileId) => ({ communityId: 'c_even', profileId })))).filter(Boolean).length],
  ];
  it.each(reads)('finds %s through the table\'s key, never by reading every enriched member', async (_read, read) => {
    const plan = await planOfLastStatement(db, async (recording) => expect(await read(createRunsRepository(recording))).toBe(21));
    expect(plan).toMatch(/Index Scan using member_enrichment_pkey on member_enrichment/);
    expect(plan).not.toMatch(/Seq Scan on member_enrichment/);
  });
});
