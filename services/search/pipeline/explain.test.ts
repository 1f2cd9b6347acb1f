// What a searcher sees, through the real pipeline on each store: explanations quote the passage
// that matched, a place named in the query weighs location, expansions never outrank the typed
// words nor match a name (broader and narrower terms never a location), and a poor fit is flagged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, storeNames } from '../../../test/helpers/stores.js';
import type { Database } from '../../kit/db/database.js';
import { explain } from './explain.js';
import { createSearchPipeline } from './index.js';

const DOCS = [
  // profile, name, headline, bio, organization, location
  ['p_nbo', 'Wanjiru Kamau', 'Field epidemiologist', 'Studies malaria transmission in western Kenya.', 'KEMRI', 'Nairobi, Kenya'],
  ['p_lyon', 'Luc Martin', 'Epidemiologist', 'An epidemiologist of influenza; teaches epidemiology to epidemiologists.', 'Hospices Civils', 'Lyon, France'],
  ['p_climate', 'Grace Njoroge', 'Climate data analyst', 'Seasonal rainfall forecasts for East Africa.', 'ICPAC', 'Nairobi, Kenya'],
  ['p_crispr', 'Hannah Lindgren', 'Group leader, CRISPR base editing', 'Develops CRISPR base editors and measures off-target gene editing in stem cells.', 'Karolinska Institutet', 'Stockholm, Sweden'],
  ['p_reviewer', 'Marc Dupont', 'Journal editor', 'Reviews manuscripts for a physics journal.', 'Physics Press', 'Geneva, Switzerland'],
  ['p_typed', 'Ana Silva', 'Clinic lead', 'A physician caring for older patients.', 'Clinica Norte', 'Porto, Portugal'],
  ['p_synonym', 'Ben Osei', 'Doctor', 'Cares for older patients.', 'Clinica Sul', 'Faro, Portugal'],
  ['p_heart', 'Rosa Lima', 'Clinic lead', 'A doctor for heart disease.', 'Clinica Este', 'Braga, Portugal'],
  ['p_cardio', 'Rui Costa', 'Cardiologist', 'Sees patients.', 'Clinica Oeste', 'Evora, Portugal'],
  ['p_named', 'Doc Holliday', 'Saloon owner', 'Runs a saloon.', 'Tombstone Saloon', 'Tombstone'],
  ['p_chemist', 'Li Na Zhou', 'Computational chemist', 'Predicts properties of small molecules.', 'Tsinghua University', 'Beijing, China'],
  ['p_united', 'Tom Baker', 'Tax adviser', 'Prepares tax returns.', 'Baker & Co', 'Boston, United States'],
  ['p_modal', 'Eva Berg', 'Random modal formulae for testing decision procedures', 'Random modal formulae for testing decision procedures. We benchmark modal provers on them.', 'Uppsala University', 'Uppsala, Sweden'],
] as const;

async function seed(db: Database) {
  for (const [profile, name, headline, bio, organization, location] of DOCS) {
    await db.query(
      `INSERT INTO search.documents (community_id, profile_id, name, headline, bio, organization, location) VALUES ('c1', $1, $2, $3, $4, $5, $6)`,
      [profile, name, headline, bio, organization, location],
    );
  }
}

const MACHINERY = ['offline-hash-512', 'embedder', 'pgvector', 'nearest-neighbour', 'WordNet', 'RRF', 'fusion', 'full-text'];

describe.each(storeNames())('what a searcher sees on %s', (store) => {
  let handle: Awaited<ReturnType<typeof openTestDatabase>>;
  const pipeline = createSearchPipeline({ env: {} });
  const rank = (query: string) => pipeline.rank(handle.db, { query, communityIds: ['c1'], includePublic: false, limit: 10 });

  beforeAll(async () => {
    handle = await openTestDatabase(store);
    await seed(handle.db);
    await pipeline.storeVectors(handle.db);
  });
  afterAll(async () => handle?.close());

  it('quotes the passage holding the query’s words, in bold, and names no machinery', async () => {
    const [first] = await rank('someone who can review a CRISPR gene editing grant');
    expect(first!.profileId).toBe('p_crispr');
    expect(first!.explanation).toContain(
      'Matches "crispr", "gene" and "editing" in the headline and bio: "Group leader, **CRISPR** base **editing**"; "Develops **CRISPR** base editors and measures off-target **gene editing** in stem cells."',
    );
    expect(first!.explanation).toContain('Not found: "review" or "grant".');
    for (const m of await rank('someone who can review a CRISPR gene editing grant')) {
      for (const word of MACHINERY) expect(m.explanation).not.toContain(word);
    }
  });

  it('quotes a passage once when the headline repeats the bio: the longer one stays', async () => {
    const [first] = await rank('random modal formulae');
    expect(first!.profileId).toBe('p_modal');
    expect(first!.explanation).toContain(
      'Matches "random", "modal" and "formulae" in the headline and bio: "**Random modal formulae** for testing decision procedures. We benchmark **modal** provers on them."',
    );
  });

  it('a place named in the query weighs location: the epidemiologist in Nairobi before a stronger one elsewhere', async () => {
    const matches = await rank('epidemiologist in Nairobi');
    expect(matches.map((m) => m.profileId).slice(0, 3)).toEqual(['p_nbo', 'p_lyon', 'p_climate']);
    expect(matches[0]!.explanation).toContain('In Nairobi, as asked (Nairobi, Kenya).');
    expect(matches[1]!.explanation).toContain('Not in Nairobi, which the request names: located in Lyon, France.');
    // In Nairobi but no epidemiologist: a place alone is a weak match.
    expect(matches[2]!.weakMatch).toBe(true);
    // Without the place, Lyon's epidemiologist (the word in headline and bio) is the better match.
    expect((await rank('epidemiologist')).map((m) => m.profileId).slice(0, 2)).toEqual(['p_lyon', 'p_nbo']);
    // A country's adjective names it too.
    const kenyan = await rank('Kenyan epidemiologist');
    expect(kenyan[0]!.profileId).toBe('p_nbo');
    expect(kenyan[0]!.explanation).toContain('In Kenya, as asked (Nairobi, Kenya).');
  });

  it('the typed word outranks its synonym, even in a weaker field; a synonym never matches a name', async () => {
    const matches = await rank('physician');
    const ids = matches.map((m) => m.profileId);
    expect(ids.indexOf('p_typed')).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf('p_synonym')).toBeGreaterThan(ids.indexOf('p_typed'));
    expect(matches.find((m) => m.profileId === 'p_synonym')!.explanation).toContain('Related: "doctor" (a synonym of "physician") in the headline');
    // A synonym is good evidence, though below the typed word: not weak.
    expect(matches.find((m) => m.profileId === 'p_synonym')!.weakMatch).toBe(false);
    // Found (the name "Doc Holliday" holds a synonym), but a name is no evidence of a topic.
    const doc = matches.find((m) => m.profileId === 'p_named');
    expect(doc, 'found by the synonym in its name').toBeDefined();
    expect(doc!.explanation).not.toContain('in the name');
    expect(doc!.weakMatch).toBe(true);
  });

  it('the typed words outrank a narrower term even when it is in the headline and they are in the bio', async () => {
    const matches = await rank('heart doctor');
    const ids = matches.map((m) => m.profileId);
    expect(ids.indexOf('p_heart')).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf('p_cardio')).toBeGreaterThan(ids.indexOf('p_heart'));
    expect(matches.find((m) => m.profileId === 'p_cardio')!.explanation).toContain('Related: "cardiologist" (a narrower term of "heart doctor") in the headline');
  });

  it('a broader term of a query word never matches a location ("molecules" → "unit" is not "United States")', async () => {
    const matches = await rank('molecules');
    expect(matches[0]!.profileId).toBe('p_chemist');
    const united = matches.find((m) => m.profileId === 'p_united');
    expect(united, 'found by the broader term in its location').toBeDefined();
    expect(united!.explanation).not.toContain('"unit"');
    expect(united!.weakMatch).toBe(true);
    expect(united!.explanation).toContain('Weak match');
  });

  it('flags a poor fit weak and says so, below every match that is not, and leaves a good one unflagged', async () => {
    const matches = await rank('someone who can review a CRISPR gene editing grant');
    const reviewer = matches.find((m) => m.profileId === 'p_reviewer');
    expect(reviewer, 'found by the word "review"').toBeDefined();
    expect(reviewer!.weakMatch).toBe(true);
    expect(reviewer!.explanation).toContain('Weak match: only 1 of 5 words of the request found; nothing here fits the request well.');
    expect(matches[0]!.weakMatch).toBe(false);
    const firstWeak = matches.findIndex((m) => m.weakMatch);
    expect(matches.slice(firstWeak).every((m) => m.weakMatch)).toBe(true);
    expect(await rank('zzqx blorft')).toEqual([]);
  });
});

describe('the standing sentence, in plain words for any number of words', () => {
  const input = (queryWords: string[], matched: string[], weak: boolean, semantic = 0.6, nameSim = 0) => explain({
    query: queryWords.join(' '), queryWords, matches: matched.map((term) => ({ term, fields: ['headline' as const], expansion: null })), places: [], texts: [],
    location: null, name: 'Hannah Lindgren', organization: null, nameSim, orgSim: 0, evidence: queryWords.length > 0 ? matched.length / queryWords.length : 0,
    semantic, weak, degraded: null, rerank: null, rerankNote: null, communities: [],
  });

  it('reads the standing from the evidence listed: good from half the request, partial below, by name when only the name resembles', () => {
    expect(input(['gene', 'editing', 'grant', 'panel'], ['gene', 'editing'], false)).toContain('Good match: 2 of 4 words of the request found.');
    expect(input(['gene', 'editing', 'grant'], ['gene'], false)).toContain('Partial match: 1 of 3 words of the request found.');
    const byName = input(['hanna', 'lindgrn'], [], false, 0.3, 0.6);
    expect(byName).toContain('The name resembles the request: "Hannah Lindgren" for "hanna lindgrn".');
    expect(byName).toContain('Match by name resemblance: none of the 2 words of the request found.');
    expect(byName).not.toContain('Good match');
  });

  it('says "the one word" of a one-word request, found or not', () => {
    expect(input(['karolinska'], ['karolinska'], false)).toContain('Good match: the one word of the request found.');
    expect(input(['karolinska'], [], true)).toContain('Weak match: the one word of the request not found; nothing here fits the request well.');
  });

  it('says "none of the N words" when a longer request has none found, and "k of N" otherwise', () => {
    expect(input(['dr', 'wanjiru'], [], true)).toContain('Weak match: none of the 2 words of the request found; nothing here fits the request well.');
    expect(input(['gene', 'editing', 'grant'], ['gene', 'editing'], false)).toContain('Good match: 2 of 3 words of the request found.');
  });

  it('claims closeness in meaning only when there is some: none for a request of stop words alone', () => {
    expect(input(['brain', 'scientist'], [], true, 0.52)).toContain('No word of the request appears in the profile; it was found as close in meaning (similarity 0.52).');
    const stopWords = input(['the', 'of', 'and'], [], true, 0);
    expect(stopWords).toContain('No word of the request appears in the profile. Weak match: none of the 3 words');
    expect(stopWords).not.toContain('close in meaning');
  });
});
