// Index follow-ups are dropped as they were read: a row written again after the read (the person
// erased and added back while an indexing attempt ran) stays for its own attempt, on both stores.
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
});
