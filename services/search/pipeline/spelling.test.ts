// Misspelled words are corrected from the searched corpora's own vocabulary, which follows the
// documents as they are indexed, updated and erased, and never reaches into another corpus.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, storeNames } from '../../../test/helpers/stores.js';
import { createSearchPipeline } from './index.js';
import { after, closest, correctSpellings } from './spelling.js';

describe('the closest word of the vocabulary', () => {
  it('allows one edit up to 7 letters and two from 8, preferring fewer edits, then the commoner word', () => {
    expect(closest('epidemolog', [{ term: 'epidemiolog', df: 3 }])).toBe('epidemiolog');
    expect(closest('hanna', [{ term: 'hana', df: 1 }, { term: 'hannah', df: 5 }])).toBe('hannah');
    expect(closest('clmate', [{ term: 'climat', df: 9 }])).toBeNull();
    expect(closest('graphn', [{ term: 'graph', df: 1 }, { term: 'graphen', df: 1 }])).toBe('graph');
  });

  it('bounds the key range read by the word’s first letters', () => {
    expect(after('ep')).toBe('eq');
    expect(after('ez')).toBe('f');
    expect(after('a9')).toBe('aa');
  });
});

describe.each(storeNames())('misspellings on %s', (store) => {
  let handle: Awaited<ReturnType<typeof openTestDatabase>>;
  const put = (community: string, profile: string, bio: string) =>
    handle.db.query(
      `INSERT INTO search.documents (community_id, profile_id, name, bio) VALUES ($1, $2, 'Some One', $3)
       ON CONFLICT (community_id, profile_id) DO UPDATE SET bio = EXCLUDED.bio`,
      [community, profile, bio],
    );
  const lexemes = async (words: string[], corpora: string[]) => (await correctSpellings(handle.db, words, corpora)).map((c) => `${c.word}→${c.lexeme}`);

  beforeAll(async () => {
    handle = await openTestDatabase(store);
  });
  afterAll(async () => handle?.close());

  it('corrects from the corpora searched only, and follows their documents as they are indexed, updated and erased', async () => {
    await put('c1', 'p1', 'Teaches field epidemiology.');
    await put('c2', 'p2', 'Studies perovskite solar cells.');
    expect(await lexemes(['epidemology'], ['c1'])).toEqual(['epidemology→epidemiolog']);
    // Another community's words never leak into this one's suggestions.
    expect(await lexemes(['epidemology'], ['c2'])).toEqual([]);
    expect(await lexemes(['perovskyte', 'epidemology'], ['c2', ''])).toEqual(['perovskyte→perovskit']);
    // A word the corpus holds is not corrected; nor is a short one.
    expect(await lexemes(['epidemiology', 'cels'], ['c1', 'c2'])).toEqual([]);
    await put('c1', 'p1', 'Teaches field statistics.');
    expect(await lexemes(['epidemology'], ['c1'])).toEqual([]);
    await put('c1', 'p1', 'Teaches field epidemiology.');
    expect(await lexemes(['epidemology'], ['c1'])).toEqual(['epidemology→epidemiolog']);
    await handle.db.query(`DELETE FROM search.documents WHERE community_id = 'c1'`);
    expect(await lexemes(['epidemology'], ['c1'])).toEqual([]);
  });

  it('reads a misspelled word as the corpus’s word, but never a real word that is only absent ("model" is not "modal")', async () => {
    await put('c3', 'p3', 'Random modal formulae for testing decision procedures.');
    const pipeline = createSearchPipeline({ env: {} });
    const rank = (query: string) => pipeline.rank(handle.db, { query, communityIds: ['c3'], includePublic: false, limit: 5 });
    const [spelled] = await rank('formulla');
    expect(spelled!.explanation).toContain('Read as a misspelling: formulla → formulae, in the bio');
    for (const m of await rank('model')) expect(m.explanation).not.toContain('→');
  });
});
