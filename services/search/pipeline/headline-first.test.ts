// A common word's tier is read headline first (retrieve.ts, migration 013): the people whose name
// or headline holds the word are found and ranked even when the rows the index yields first — all
// a small window would read — hold it only in their bios. The fast path then shows the same
// people as a search that reads every match.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, storeNames } from '../../../test/helpers/stores.js';
import { memberDocument } from '../../../test/helpers/search-documents.js';
import type { Database } from '../../kit/db/database.js';
import { createSearchCorpusRepository } from '../search-corpus.repository.js';
import { HEADLINE_FIRST_ROWS } from './retrieve.js';
import { createSearchPipeline } from './index.js';

const ALL = 1_000_000;
const scope = { communityIds: ['c1'], includePublic: false, limit: 20 };

describe.each(storeNames())('headline-first retrieval on %s', (store) => {
  let handle: Awaited<ReturnType<typeof openTestDatabase>>;
  let db: Database;
  // A window far below the word's matches: it holds only bios' mentions, written first.
  const fast = createSearchPipeline({ env: {}, wordnet: false, rankWindow: 500 });
  const everything = createSearchPipeline({ env: {}, wordnet: false, rankWindow: ALL, candidatesPerLeg: ALL, maxCandidates: ALL });

  beforeAll(async () => {
    handle = await openTestDatabase(store);
    db = handle.db;
    const repo = createSearchCorpusRepository(db);
    const inBio = Array.from({ length: HEADLINE_FIRST_ROWS + 100 }, (_, i) =>
      memberDocument('c1', `b${String(i).padStart(5, '0')}`, { headline: 'Teacher', bio: `Teaches part-time and cares about lifelong learning${' and reading'.repeat(i % 5)}.` }),
    );
    for (let i = 0; i < inBio.length; i += 500) await repo.upsertDocuments(inBio.slice(i, i + 500));
    await repo.upsertDocuments(
      Array.from({ length: 40 }, (_, i) =>
        memberDocument('c1', `h${String(i).padStart(2, '0')}`, { headline: 'Learning Scientist', bio: `Studies how children learn${' in schools'.repeat(i % 6)}.` }),
      ),
    );
  }, 120_000);
  afterAll(async () => handle?.close());

  it('finds the people with the word in their headline, and shows whom reading every match shows', async () => {
    const found = (await fast.rank(db, { query: 'learning', ...scope })).map((m) => m.profileId);
    const reference = (await everything.rank(db, { query: 'learning', ...scope })).map((m) => m.profileId);
    expect(found).toHaveLength(20);
    expect(found.every((id) => id.startsWith('h'))).toBe(true);
    expect(new Set(found)).toEqual(new Set(reference));
  });
});
