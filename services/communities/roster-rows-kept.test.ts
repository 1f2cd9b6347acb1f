// Roster rows kept between reads: answered again only while the store's fingerprint of the page is
// the same, whichever process changed it; forgotten after a minute.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../kit/db/database.js';
import { openTestDatabase, storeNames } from '../../test/helpers/stores.js';
import { batchedRead, distinctAsks } from '../kit/batched-read.js';
import { createCommunityRepository, rosterAskKey, type RosterAsk, type RosterRow } from './community.repository.js';
import { createKeptRosterRows, placeKey } from './roster-rows-kept.js';

const PAGE: RosterAsk = { communityId: 'c_kept', reach: { organizationId: 'o_owner' }, limit: 10 };

describe.each(storeNames())('roster rows kept between reads on %s', (store) => {
  let db: Database;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(store));
    await db.exec(`
      INSERT INTO communities.communities (id, name, owner_type, owner_id, archived) VALUES ('c_kept', 'Kept', 'organization', 'o_owner', false);
      INSERT INTO communities.profiles (id, name) VALUES ('p_1', 'One'), ('p_2', 'Two');
      INSERT INTO communities.memberships (community_id, profile_id, role, joined_at, source_identifier)
        VALUES ('c_kept', 'p_1', 'member', '2024-01-01T00:00:00Z', ''), ('c_kept', 'p_2', 'member', '2024-01-02T00:00:00Z', '');`);
  });
  afterAll(() => close());

  it('answers an unchanged page with the rows read before, and a page changed by any writer with the rows as they are now', async () => {
    // Two replicas: each with its own kept rows, over one store.
    const replica = createCommunityRepository(db, createKeptRosterRows<RosterRow>());
    const other = createCommunityRepository(db, createKeptRosterRows<RosterRow>());
    const [first] = await replica.listRosterPages([PAGE]);
    const [again] = await replica.listRosterPages([PAGE]);
    expect(first!.rows.map((r) => r.name)).toEqual(['One', 'Two']);
    expect(again!.rows).toBe(first!.rows);

    await other.listRosterPages([PAGE]);
    await db.query(`UPDATE communities.profiles SET name = 'Uno' WHERE id = 'p_1'`);
    const [renamed] = await replica.listRosterPages([PAGE]);
    expect(renamed!.rows.map((r) => r.name)).toEqual(['Uno', 'Two']);
    expect((await other.listRosterPages([PAGE]))[0]!.rows.map((r) => r.name)).toEqual(['Uno', 'Two']);

    await db.query(`DELETE FROM communities.memberships WHERE profile_id = 'p_2'`);
    expect((await replica.listRosterPages([PAGE]))[0]!.rows.map((r) => r.id)).toEqual(['p_1']);
    await db.query(`UPDATE communities.memberships SET role = 'admin' WHERE profile_id = 'p_1'`);
    expect((await replica.listRosterPages([PAGE]))[0]!.rows.map((r) => r.role)).toEqual(['admin']);
  });

  it('gives an ask out of reach no rows, even with its page kept for another caller or asked for by one in the same moment', async () => {
    const repo = createCommunityRepository(db, createKeptRosterRows<RosterRow>());
    expect((await repo.listRosterPages([PAGE]))[0]!.rows.length).toBeGreaterThan(0);
    const outside = { ...PAGE, reach: { organizationId: 'o_other' } };
    const [outsider] = await repo.listRosterPages([outside]);
    expect(outsider).toEqual({ inReach: false, rows: [] });

    // As the service reads them: the same page asked for together, read once per caller's reach.
    const page = batchedRead(distinctAsks(rosterAskKey, repo.listRosterPages));
    const answers = await Promise.all([page(PAGE), page(outside), page(PAGE)]);
    expect(answers.map((a) => [a.inReach, a.rows.length > 0])).toEqual([[true, true], [false, false], [true, true]]);
  });
});

describe('kept roster rows', () => {
  afterEach(() => vi.useRealTimers());

  it('are answered for a minute after they were read, and dropped by the sweep after it', () => {
    vi.useFakeTimers();
    const kept = createKeptRosterRows<RosterRow>(() => Date.now());
    const key = placeKey(PAGE);
    kept.set(key, { fingerprint: 'f', rows: [] });
    vi.advanceTimersByTime(30_000);
    expect(kept.size).toBe(1);
    vi.advanceTimersByTime(29_000);
    expect(kept.get(key)?.fingerprint).toBe('f');
    vi.advanceTimersByTime(1_000);
    expect(kept.get(key)).toBeUndefined();
    // Gone from memory too, though never read again.
    vi.advanceTimersByTime(30_000);
    expect(kept.size).toBe(0);
  });
});
