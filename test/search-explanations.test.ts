// Explanations a searcher can trust, over the demo data (deploy/admin/demo-data.ts) through the real
// pipeline on a migrated embedded store: the standing never says more than the evidence listed,
// a match carried by a name is said to be, places are whole places, and a misspelled word is
// searched as the corpus's word and said so. The four requests a new user tried (docs/SEARCH.md,
// "What a match says").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../services/kit/db/database.js';
import { createSearchPipeline } from '../services/search/pipeline/index.js';
import { openTestDatabase } from './helpers/stores.js';
import { DEMO_COMMUNITIES, indexDemo } from './search-requests/requests.js';

describe('explanations over the demo data', () => {
  let store: { db: Database; close(): Promise<void> };
  const pipeline = createSearchPipeline({ env: {} });
  const rank = (query: string, communityIds = DEMO_COMMUNITIES) => pipeline.rank(store.db, { query, communityIds, includePublic: false, limit: 20 });

  beforeAll(async () => {
    store = await openTestDatabase('pglite');
    await indexDemo(store.db);
  }, 300_000);
  afterAll(async () => store?.close());

  it('nobody works on the ethics of AI: every match is weak and none reads "Good match"', async () => {
    const matches = await rank('someone to talk about the ethics of AI at our conference');
    expect(matches.length).toBeGreaterThan(0);
    for (const m of matches) {
      expect(m.weakMatch, `${m.name}: ${m.explanation}`).toBe(true);
      expect(m.explanation).not.toContain('Good match');
    }
    // "AI" of an organization's name is said as what it is.
    const byOrg = matches.find((m) => m.organization && /\bAI\b/.test(m.organization));
    if (byOrg) expect(byOrg.explanation).toContain(`"ai" only in the organization's name (${byOrg.organization})`);
  });

  it('"Hanna Lindgrn" finds Hannah Lindgren, explained as a name resemblance, never as a good match of no word', async () => {
    const [first] = await rank('Hanna Lindgrn');
    expect(first!.name).toBe('Hannah Lindgren');
    expect(first!.weakMatch).toBe(false);
    expect(first!.explanation).toContain('The name resembles the request: "Hannah Lindgren" for "Hanna Lindgrn".');
    expect(first!.explanation).toContain('Match by name resemblance: none of the 2 words of the request found.');
    expect(first!.explanation).not.toContain('Good match');
  });

  it('"solid-state electrolytes" gives no credit for "state" in "United States"', async () => {
    const matches = await rank('solid-state electrolytes');
    const inUs = matches.filter((m) => m.location?.includes('United States'));
    expect(inUs.length).toBeGreaterThan(0);
    for (const m of matches) expect(m.explanation).not.toMatch(/Matches [^.]*"state"[^.:]* in the [^.:]*location/);
    // Where "state" is found only in the location, it is not found at all.
    for (const m of inUs.filter((x) => !/\bstate\b/i.test(`${x.headline} ${x.organization}`) && !/"state"/.test(x.explanation!.split('Not found')[0]!))) {
      expect(m.explanation).not.toContain('Good match');
    }
  });

  it('"epidemology" is searched as epidemiology and said so', async () => {
    const matches = await rank('epidemology');
    expect(matches.length).toBeGreaterThan(0);
    const [first] = matches;
    expect(first!.explanation).toContain('epidemology → epidemiology');
    expect(first!.explanation).not.toContain('Weak match: the one word of the request not found');
    expect(`${first!.headline} ${first!.explanation}`.toLowerCase()).toContain('epidemiolog');
  });

  it('suggests only words of the corpora searched: a community without the word corrects nothing', async () => {
    const matches = await rank('epidemology', ['c_materials_science']);
    for (const m of matches) expect(m.explanation).not.toContain('→');
  });
});
