// Bulk add item by item, over real HTTP: a malformed or empty item is a `rejected` result beside the
// items that are added, only a request-level fault is a 400 (and writes nothing), and an item with
// a name alone finds the member of this community of that name before making a new person.
import { describe, expect, it } from 'vitest';
import { bearer, request } from './helpers/http.js';
import { storeNames } from './helpers/stores.js';
import { k, membersWriteSuite } from './helpers/members-write-suite.js';

interface Result {
  index: number;
  status: string;
  profile_id: string | null;
  error: { code: string; message: string } | null;
}

describe.each(storeNames())('bulk add per item on %s', (store) => {
  const { system, add, count, membership, profile } = membersWriteSuite(store);

  it('a mixed batch: malformed and empty items are rejected with their reasons, the others are added and stored', async () => {
    const before = await count('c_bio');
    const res = await add(k.manager, 'c_bio', {
      members: [
        { email: 'not-an-email' },
        {},
        { email: 'mixed.ok@example.org', name: 'Mixed Ok' },
        { linkedin_url: 'not a url' },
        42,
        { name: 'Extra Field', nickname: 'x' },
        { name: '   ' },
        { name: 'Mixed Fine', headline: 'Still here' },
        null,
      ],
    });
    expect(res.status).toBe(200);
    const results: Result[] = res.body.results;
    expect(results.map((r) => r.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'added', 'rejected', 'rejected', 'rejected', 'rejected', 'added', 'rejected']);
    const reason = (i: number) => {
      expect(results[i]).toMatchObject({ profile_id: null, error: { code: 'invalid_request' } });
      return results[i]!.error!.message;
    };
    expect(reason(0)).toMatch(/^email: /);
    expect(reason(1)).toBe('give at least one of email, linkedin_url, orcid, name');
    expect(reason(3)).toMatch(/^linkedin_url: /);
    expect(reason(4)).toMatch(/expected object/);
    expect(reason(5)).toMatch(/nickname/);
    expect(reason(6)).toMatch(/^name: /);
    expect(reason(8)).toMatch(/expected object/);
    // Stored state: exactly the two added people, as sent.
    expect(await count('c_bio')).toBe(before + 2);
    expect((await profile(results[2]!.profile_id!))!).toMatchObject({ name: 'Mixed Ok', email: 'mixed.ok@example.org' });
    expect((await profile(results[7]!.profile_id!))!).toMatchObject({ name: 'Mixed Fine', headline: 'Still here' });
    expect(await membership('c_bio', results[7]!.profile_id!)).toBeDefined();
  });

  it('a batch of only rejected items is 200 with a result each and writes nothing; write gating still answers first', async () => {
    const before = await count('c_bio');
    const res = await add(k.manager, 'c_bio', { members: [{}, { orcid: 'nope' }] });
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: Result) => r.status)).toEqual(['rejected', 'rejected']);
    expect(await count('c_bio')).toBe(before);
    // Rejected items do not make a request pass the gate: outside write reach it is still 403.
    const foreign = await add(k.manager, 'c_foreign', { members: [{}] });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe('forbidden');
  });

  describe('request-level faults are 400 and write nothing', () => {
    it.each([
      ['more than 100 items', { members: Array.from({ length: 101 }, (_, i) => ({ email: `level${i}@example.org` })) }, 'invalid_request', /body\.members: /],
      ['role owner', { role: 'owner', members: [{ email: 'level.owner@example.org' }] }, 'invalid_request', /body\.role: /],
      ['an unknown top-level field', { members: [{ email: 'level.extra@example.org' }], owner: 'u_manager' }, 'invalid_request', /owner/],
      ['no items', { members: [] }, 'invalid_request', /body\.members: /],
      ['members not an array', { members: { email: 'level.obj@example.org' } }, 'invalid_request', /body\.members: /],
    ])('%s', async (_name, body, code, message) => {
      const before = await count('c_bio');
      const res = await add(k.manager, 'c_bio', body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe(code);
      expect(res.body.error.message).toMatch(message);
      expect(await count('c_bio')).toBe(before);
    });

    it('unreadable JSON is 400 bad_request', async () => {
      const before = await count('c_bio');
      const res = await request(system().restUrl, 'POST', '/v1/communities/c_bio/members', {
        headers: { ...bearer(k.manager), 'content-type': 'application/json' },
        rawBody: '{"members": [{"email": "broken@example.org"}',
      });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('bad_request');
      expect(await count('c_bio')).toBe(before);
    });
  });

  describe('an item with a name alone', () => {
    it('finds the member of this community of that name, whatever the letter case and spacing', async () => {
      const first = await add(k.manager, 'c_chem', { members: [{ name: 'Rosalind  Franklin' }] });
      const id = first.body.results[0].profile_id;
      expect(first.body.results[0].status).toBe('added');
      const again = await add(k.manager, 'c_chem', { members: [{ name: ' rosalind FRANKLIN ' }, { name: 'Rosalind Franklin' }] });
      expect(again.body.results).toEqual([
        { index: 0, status: 'already_member', profile_id: id, error: null },
        { index: 1, status: 'already_member', profile_id: id, error: null },
      ]);
      // A seeded member is found by the name of their profile.
      const seeded = await add(k.manager, 'c_bio', { members: [{ name: 'seeded placeholder' }] });
      expect(seeded.body.results[0]).toMatchObject({ status: 'already_member', profile_id: 'p_seeded' });
    });

    it('is a new person when this community has nobody of that name, even if another community has', async () => {
      const chem = (await add(k.manager, 'c_chem', { members: [{ name: 'Only In Chemistry' }] })).body.results[0].profile_id;
      const before = await count('c_bio');
      const bio = await add(k.manager, 'c_bio', { members: [{ name: 'Only In Chemistry' }] });
      expect(bio.body.results[0].status).toBe('added');
      expect(bio.body.results[0].profile_id).not.toBe(chem);
      expect(await count('c_bio')).toBe(before + 1);
    });

    it('two items of one new name in one request make one person', async () => {
      const res = await add(k.manager, 'c_chem', { members: [{ name: 'Same Name' }, { name: 'same name' }] });
      const [x, y] = res.body.results as Result[];
      expect([x!.status, y!.status]).toEqual(['added', 'already_member']);
      expect(y!.profile_id).toBe(x!.profile_id);
    });

    it('is rejected when several members share the name, and adds nobody', async () => {
      await add(k.manager, 'c_chem', { members: [{ email: 'twin.one@example.org', name: 'Twin Name' }, { email: 'twin.two@example.org', name: 'Twin Name' }] });
      const before = await count('c_chem');
      const res = await add(k.manager, 'c_chem', { members: [{ name: 'twin name' }, { email: 'after.twins@example.org' }] });
      expect(res.body.results[0]).toEqual({
        index: 0,
        status: 'rejected',
        profile_id: null,
        error: { code: 'invalid_request', message: expect.stringContaining('several members of this community are named') },
      });
      expect(res.body.results[1].status).toBe('added');
      expect(await count('c_chem')).toBe(before + 1);
    });

    it('an item with an identifier and a name is matched by the identifier, never by the name', async () => {
      await add(k.manager, 'c_chem', { members: [{ name: 'Named Once' }] });
      const res = await add(k.manager, 'c_chem', { members: [{ name: 'Named Once', email: 'named.once@example.org' }] });
      expect(res.body.results[0].status).toBe('added');
    });
  });

  it(`${store}: a replayed Idempotency-Key answers the stored per-item results, rejected ones included`, async () => {
    const headers = { 'idempotency-key': `per-item-${store}` };
    const body = { members: [{}, { email: 'idem.per.item@example.org' }] };
    const first = await add(k.manager, 'c_bio', body, headers);
    const before = await count('c_bio');
    const replay = await add(k.manager, 'c_bio', body, headers);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(await count('c_bio')).toBe(before);
  });
});
