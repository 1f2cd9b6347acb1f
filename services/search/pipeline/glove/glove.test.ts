// The default embedder, glove-6b-100d-sif: built from the installed GloVe package into the cache
// once, loaded once per process, texts embedded as SIF-weighted word-vector averages honouring part
// weights; the pipeline picks it without configuration, says so, and falls back to the hashing
// embedder with a warning when the model cannot be loaded. Re-embedding: documents holding the
// hashing embedder's vectors get the model's (100 dimensions, HNSW-indexed where pgvector exists).
import { writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, storeNames } from '../../../../test/helpers/stores.js';
import { generateCorpus } from '../../../../test/search-quality/corpus.js';
import type { Database } from '../../../kit/db/database.js';
import { cosine, OfflineHashEmbedder } from '../embedders.js';
import { createSearchPipeline, type PipelineLogger } from '../index.js';
import { GloveSifEmbedder, loadGloveModel, wordSegments, words } from './embedder.js';

function recordingLogger() {
  const lines: { level: 'info' | 'warn'; fields: Record<string, unknown>; message: string }[] = [];
  const logger: PipelineLogger = {
    info: (fields, message) => lines.push({ level: 'info', fields, message }),
    warn: (fields, message) => lines.push({ level: 'warn', fields, message }),
  };
  return { lines, logger };
}

describe('glove-6b-100d-sif', () => {
  const embedder = new GloveSifEmbedder(loadGloveModel().model);
  const one = (text: string) => embedder.vector([{ text, weight: 1 }]);

  it('is loaded once per process: a second load returns the same model', () => {
    expect(loadGloveModel().model).toBe(embedder.model);
    expect(embedder.model.dimensions).toBe(100);
    expect(embedder.model.size).toBe(150_000);
  });

  it('tokenises with the word segmenter, lower-cased, without stop words', () => {
    expect(words('The Heart-doctor of Paris, and a cardiologist.')).toEqual(['heart', 'doctor', 'paris', 'cardiologist']);
  });

  it('finds the word-like segments Intl.Segmenter finds, in order', () => {
    const segmenter = new Intl.Segmenter('en', { granularity: 'word' });
    const segmented = (text: string) => [...segmenter.segment(text.toLowerCase())].filter((s) => s.isWordLike).map((s) => s.segment);
    const texts = [
      "e-mail U.S.A. 3.14 1,000,000 rock'n'roll Ph.D. state-of-the-art AT&T C++ node.js co-op naïve café Müller O’Neill x86_64",
      "don't it's 2nd 3rd-party 10:30 a.m. e.g. ...word word... 'quoted' \"dq\" #hash http://example.org/a_b?c=d user@example.org",
      '1.5x 50% $30 v2.0.1 Dr. Smith’s lab; owl:imports, domain.2 and 40,000 — naïve–dash · middle·dot l’homme Привет мир',
      ...generateCorpus(300, 11).map((p) => [p.name, p.headline, p.bio, p.organization, p.location, p.enrichmentText].join('\n')),
    ];
    for (const text of texts) expect(wordSegments(text)).toEqual(segmented(text));
  });

  it('places texts about the same thing in other words closer than unrelated ones', () => {
    expect(cosine(one('heart doctor'), one('cardiologist at a hospital'))).toBeGreaterThan(cosine(one('heart doctor'), one('tax lawyer in a law firm')) + 0.3);
    expect(cosine(one('brain scientist'), one('neuroscience researcher'))).toBeGreaterThan(cosine(one('brain scientist'), one('pastry chef and baker')) + 0.3);
  });

  it('gives unit vectors, and the zero vector to a text with no known word', () => {
    const v = one('marine biologist');
    expect(Math.hypot(...v)).toBeCloseTo(1, 5);
    expect(one('zzqxv qqwrtz the of')).toEqual(new Array(100).fill(0));
  });

  it('honours part weights: the heavier part pulls the vector towards itself', () => {
    const medicine = one('cardiologist');
    const law = one('lawyer');
    const mostlyMedicine = embedder.vector([{ text: 'cardiologist', weight: 1.5 }, { text: 'lawyer', weight: 0.3 }]);
    const mostlyLaw = embedder.vector([{ text: 'cardiologist', weight: 0.3 }, { text: 'lawyer', weight: 1.5 }]);
    expect(cosine(mostlyMedicine, medicine)).toBeGreaterThan(cosine(mostlyMedicine, law));
    expect(cosine(mostlyLaw, law)).toBeGreaterThan(cosine(mostlyLaw, medicine));
    // A part of weight 0 is left out.
    expect(embedder.vector([{ text: 'cardiologist', weight: 1 }, { text: 'lawyer', weight: 0 }])).toEqual(medicine);
  });

  it('weighs a rare, telling word above a common one (SIF)', () => {
    const both = one('cardiologist work');
    expect(cosine(both, one('cardiologist'))).toBeGreaterThan(cosine(both, one('work')));
  });

  it('is the pipeline default without EMBEDDINGS_URL, and start-up says which embedder is in use', () => {
    const { lines, logger } = recordingLogger();
    const pipeline = createSearchPipeline({ env: {}, logger, wordnet: false });
    expect(pipeline.provider).toBe('glove-6b-100d-sif');
    expect(lines).toEqual([expect.objectContaining({ level: 'info', message: 'search embedder loaded', fields: expect.objectContaining({ embedder: 'glove-6b-100d-sif', dimensions: 100 }) })]);
  });

  it('falls back to the hashing embedder when the model cannot be loaded, with a warning naming why', () => {
    // A cache directory that cannot exist: beneath a regular file.
    const file = join(mkdtempSync(join(tmpdir(), 'glove-')), 'not-a-dir');
    writeFileSync(file, 'x');
    const { lines, logger } = recordingLogger();
    const pipeline = createSearchPipeline({ env: { SEARCH_MODEL_DIR: join(file, 'models') }, logger, wordnet: false });
    expect(pipeline.provider).toBe('offline-hash-512');
    expect(lines).toHaveLength(1);
    expect(lines[0]!.level).toBe('warn');
    expect(lines[0]!.message).toMatch(/^search embedder glove-6b-100d-sif could not be loaded \(.*ENOTDIR.*\); using offline-hash-512 instead$/);
  });
});

describe.each(storeNames())('re-embedding on %s', (store) => {
  let handle: { db: Database; close(): Promise<void> };
  beforeAll(async () => {
    handle = await openTestDatabase(store);
    await handle.db.query(
      `INSERT INTO search.documents (community_id, profile_id, user_id, name, headline, bio, organization, location, enrichment_text)
       VALUES ('c1', 'p1', '', 'Ana', 'Cardiologist', 'Heart surgery', 'City Hospital', 'Oslo', ''),
              ('c1', 'p2', '', 'Bo', 'Tax lawyer', 'Corporate tax law', 'Law Firm', 'Bergen', ''),
              ('', 'p3', '', 'Cy', 'Neuroscientist', 'Brain imaging research', 'Institute', 'Paris', '')`,
    );
  }, 120_000);
  afterAll(async () => handle?.close());

  it("replaces the hashing embedder's stored vectors with the model's (100 dimensions) and ranks with them", async () => {
    const hashing = createSearchPipeline({ env: {}, embedder: new OfflineHashEmbedder(), wordnet: false });
    expect(await hashing.storeVectors(handle.db)).toBe(3);
    const models = async () =>
      (await handle.db.query<{ m: string; n: number }>('SELECT embedding_model AS m, cardinality(embedding)::int AS n FROM search.documents ORDER BY profile_id')).map((r) => `${r.m}/${r.n}`);
    expect(await models()).toEqual(['offline-hash-512/512', 'offline-hash-512/512', 'offline-hash-512/512']);

    const glove = createSearchPipeline({ env: {}, wordnet: false });
    expect(await glove.storeVectors(handle.db)).toBe(3);
    expect(await models()).toEqual(['glove-6b-100d-sif/100', 'glove-6b-100d-sif/100', 'glove-6b-100d-sif/100']);
    // Current vectors are not embedded again.
    expect(await glove.storeVectors(handle.db)).toBe(0);

    // "heart doctor" shares no word with Ana's document but means it: she ranks first.
    const matches = await glove.rank(handle.db, { query: 'heart doctor', communityIds: ['c1'], includePublic: true, limit: 3 });
    expect(matches[0]?.profileId).toBe('p1');
  });
});
