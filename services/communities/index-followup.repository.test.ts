// Index follow-ups are dropped as they were read: a row written again after the read (the person
// erased and added back while an indexing attempt ran) stays for its own attempt; a failed one
// backs off and yields to the rows behind it (erasure follow-ups share that SQL), on both stores.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, storeNames } from '../../test/helpers/stores.js';
import type { Database } from '../kit/db/database.js';
import { createIndexFollowupRepository } from './index-followup.repository.js';

describe.each(storeNames())('index follow-ups on %s', (store) => {
  let db: Database;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(store));
  }, 60_000);
  afterAll(async () => close?.());

  const owed = async () => (await db.query<{ profile_id: string }>('SELECT profile_id FROM communities.index_followups ORDER BY profile_id')).map((r) => r.profile_id);

  it('drops the rows it read, keeps a row written again after the read, and one add of a pair keeps one row', async () => {
    const followups = createIndexFollowupRepository(db);
    await followups.add('c_one', 'p_a');
    await followups.add('c_one', 'p_b');
    await followups.add('c_one', 'p_b');
    const read = await followups.read('c_one', ['p_a', 'p_b']);
    expect(read.map((r) => r.profile_id).sort()).toEqual(['p_a', 'p_b']);
    // p_b erased and added back after the read: a new row.
    await followups.remove('c_one', ['p_b']);
    await new Promise((r) => setTimeout(r, 5));
    await followups.add('c_one', 'p_b');
    await followups.removeAsRead('c_one', read);
    expect(await owed()).toEqual(['p_b']);
    await followups.removeAsRead('c_one', await followups.read('c_one', ['p_b']));
    expect(await owed()).toEqual([]);
  });

  it('a refused follow-up waits 2^attempts seconds (at most an hour), then comes after the rows that have not failed; one failed in an outage stays due', async () => {
    const followups = createIndexFollowupRepository(db);
    await followups.add('c_two', 'p_failing');
    await followups.add('c_two', 'p_fresh');
    // Both past the inline attempt's grace; the failing one older.
    await db.query(`UPDATE communities.index_followups SET created_at = now() - interval '10 minutes' WHERE profile_id = 'p_failing'`);
    await db.query(`UPDATE communities.index_followups SET created_at = now() - interval '5 minutes' WHERE profile_id = 'p_fresh'`);
    const dueNow = async () => (await followups.due(1_000, 10)).filter((r) => r.community_id === 'c_two').map((r) => r.profile_id);
    expect(await dueNow()).toEqual(['p_failing', 'p_fresh']);
    // The store's clock around a failure, and the wait it set, in seconds.
    const clock = async () => Number((await db.query<{ t: number }>('SELECT extract(epoch FROM now())::float8 AS t'))[0]!.t);
    const waitAfterFailure = async (): Promise<[number, number]> => {
      const before = await clock();
      await followups.fail('c_two', ['p_failing'], 'search refused it');
      const after = await clock();
      const [row] = await db.query<{ t: number }>(`SELECT extract(epoch FROM next_attempt_at)::float8 AS t FROM communities.index_followups WHERE profile_id = 'p_failing'`);
      return [row!.t - after, row!.t - before];
    };
    const within = ([least, most]: [number, number], seconds: number) => least <= seconds + 1e-3 && seconds <= most + 1e-3;
    expect(within(await waitAfterFailure(), 2)).toBe(true);
    expect(await dueNow()).toEqual(['p_fresh']);
    expect(within(await waitAfterFailure(), 4)).toBe(true);
    await db.query(`UPDATE communities.index_followups SET attempts = 40 WHERE profile_id = 'p_failing'`);
    expect(within(await waitAfterFailure(), 3600)).toBe(true);
    // A failure in an outage (backOff false) leaves it due at once: recovery is not delayed.
    await followups.fail('c_two', ['p_failing'], 'UNAVAILABLE', false);
    expect(await dueNow()).toEqual(['p_failing', 'p_fresh']);
    await followups.fail('c_two', ['p_failing'], 'search refused it');
    // Its wait over, it is due again, behind the row that never failed.
    await db.query(`UPDATE communities.index_followups SET next_attempt_at = now() - interval '1 second' WHERE profile_id = 'p_failing'`);
    expect(await dueNow()).toEqual(['p_fresh', 'p_failing']);
  });
});
