// The pipeline against each store: scope is never widened, one person's documents merge into one
// match, and explanations quote what matched in plain words, naming no machinery.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, storeNames } from '../../../test/helpers/stores.js';
import type { Database } from '../../kit/db/database.js';
import type { Embedder, Reranker } from './embedders.js';
import { createSearchPipeline } from './index.js';

const DOCS = [
  // community, profile, name, headline, bio, organization, location, enrichment
  ['c1', 'p1', 'Ada Okafor', 'Cardiologist', 'Treats arrhythmia and runs an echocardiography lab.', 'St. Brigid Hospital', 'Lisbon', null],
  ['c2', 'p1', 'Ada Okafor', 'Consultant cardiologist', 'Secret c2 bio about heart failure.', 'C2 Only Org', 'Porto', 'c2 enrichment'],
  ['c1', 'p2', 'Ben Lindqvist', 'Deep learning researcher', 'Builds neural networks for vision.', 'Contoso Labs', 'Oslo', null],
  ['c3', 'p3', 'Cara Moreau', 'Cardiologist', 'Heart failure clinic lead.', 'Northwind Health', 'Lyon', null],
  ['', 'p4', 'Dan Haddad', 'Pediatric cardiologist', 'Children with heart disease.', 'Public Clinic', 'Boston', null],
  ['c1', 'p5', 'Eve Tanaka', 'Patent attorney', 'Intellectual property litigation.', 'Baker & Lowe LLP', 'Osaka', null],
] as const;

async function seed(db: Database) {
  for (const [community, profile, name, headline, bio, org, location, enrichment] of DOCS) {
    await db.query(
      `INSERT INTO search.documents (community_id, profile_id, user_id, name, headline, bio, organization, location, enrichment_text)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [community, profile, `u-${profile}`, name, headline, bio, org, location, enrichment],
    );
  }
}

describe.each(storeNames())('search pipeline on %s', (store) => {
  let handle: Awaited<ReturnType<typeof openTestDatabase>>;
  const pipeline = createSearchPipeline({ env: {} });

  beforeAll(async () => {
    handle = await openTestDatabase(store);
    await seed(handle.db);
  });
  afterAll(async () => handle?.close());

  it('names the local GloVe model as provider by default', () => {
    expect(pipeline.provider).toBe('glove-6b-100d-sif');
  });

  it('searches only the requested communities, and the public corpus only when asked', async () => {
    const onlyC1 = await pipeline.rank(handle.db, { query: 'cardiologist', communityIds: ['c1'], includePublic: false, limit: 10 });
    expect(onlyC1.map((m) => m.profileId)).toEqual(['p1']);
    const withPublic = await pipeline.rank(handle.db, { query: 'cardiologist', communityIds: ['c1'], includePublic: true, limit: 10 });
    expect(withPublic.map((m) => m.profileId).sort()).toEqual(['p1', 'p4']);
    expect(withPublic.find((m) => m.profileId === 'p4')!.matchedCommunityIds).toEqual([]);
    const none = await pipeline.rank(handle.db, { query: 'cardiologist', communityIds: [], includePublic: false, limit: 10 });
    expect(none).toEqual([]);
    // '' among the communities does not open the public corpus.
    const sneaky = await pipeline.rank(handle.db, { query: 'cardiologist', communityIds: [''], includePublic: false, limit: 10 });
    expect(sneaky).toEqual([]);
  });

  it('merges one person across communities and never shows fields of unrequested ones', async () => {
    const both = await pipeline.rank(handle.db, { query: 'cardiologist', communityIds: ['c1', 'c2'], includePublic: false, limit: 10 });
    expect(both.filter((m) => m.profileId === 'p1')).toHaveLength(1);
    expect(both[0]!.matchedCommunityIds).toEqual(['c1', 'c2']);
    // Found through c1 only by "echocardiography", but held by c2 too: both are listed.
    const viaC1 = await pipeline.rank(handle.db, { query: 'echocardiography', communityIds: ['c1', 'c2'], includePublic: false, limit: 10 });
    expect(viaC1[0]!.matchedCommunityIds).toEqual(['c1', 'c2']);

    const c1 = await pipeline.rank(handle.db, { query: 'heart failure cardiologist', communityIds: ['c1'], includePublic: false, limit: 10 });
    const json = JSON.stringify(c1);
    expect(json).not.toContain('C2 Only Org');
    expect(json).not.toContain('Porto');
    expect(json).not.toContain('c2');
    expect(c1[0]!.organization).toBe('St. Brigid Hospital');
  });

  it('explains in plain words, quoting the passage that matched, and names no machinery', async () => {
    const [match] = await pipeline.rank(handle.db, { query: 'heart doctor', communityIds: ['c3'], includePublic: false, limit: 5 });
    expect(match!.profileId).toBe('p3');
    expect(match!.explanation).toContain('Matches "heart" in the bio: "**Heart** failure clinic lead."');
    expect(match!.explanation).toContain('Related: "cardiologist" (a narrower term of "heart doctor") in the headline: "**Cardiologist**"');
    expect(match!.explanation).toContain('Good match: 2 of 2 words of the request found (some through related words).');
    expect(match!.weakMatch).toBe(false);
    for (const machinery of ['glove-6b-100d-sif', 'offline-hash-512', 'embedder', 'pgvector', 'WordNet', 'RRF', 'nearest-neighbour', 'full-text']) {
      expect(match!.explanation).not.toContain(machinery);
    }
    expect(match!.semanticScore).toBeGreaterThan(0);
    expect(match!.semanticScore).toBeLessThanOrEqual(1);
  });

  it('finds people by name and organization, including name prefixes', async () => {
    const [byName] = await pipeline.rank(handle.db, { query: 'Ben Lindq', communityIds: ['c1'], includePublic: false, limit: 5 });
    expect(byName!.profileId).toBe('p2');
    expect(byName!.explanation).toContain('The name resembles the request: "Ben Lindqvist" for "Ben Lindq".');
    const [byOrg] = await pipeline.rank(handle.db, { query: 'Baker & Lowe', communityIds: ['c1'], includePublic: false, limit: 5 });
    expect(byOrg!.profileId).toBe('p5');
    expect(byOrg!.explanation).toMatch(/organization/);
  });

  it('orders deterministically, honours the limit, and copes with odd queries', async () => {
    const a = await pipeline.rank(handle.db, { query: 'cardiologist heart', communityIds: ['c1', 'c3'], includePublic: true, limit: 2 });
    const b = await pipeline.rank(handle.db, { query: 'cardiologist heart', communityIds: ['c1', 'c3'], includePublic: true, limit: 2 });
    expect(a).toHaveLength(2);
    expect(a).toEqual(b);
    expect(a[0]!.score).toBeGreaterThanOrEqual(a[1]!.score);
    for (const q of ['', '   ', 'the of and', "o'brien & (x | y) ! :*", 'zzzzqqq']) {
      await expect(pipeline.rank(handle.db, { query: q, communityIds: ['c1'], includePublic: true, limit: 5 })).resolves.toBeInstanceOf(Array);
    }
  });

  it('falls back to the offline embedder when the configured one fails, and says so', async () => {
    const broken: Embedder = { name: 'embeddings:broken', embed: async () => Promise.reject(new Error('no answer within 10 ms')) };
    const degraded = createSearchPipeline({ env: {}, embedder: broken });
    expect(degraded.provider).toBe('embeddings:broken');
    const [match] = await degraded.rank(handle.db, { query: 'cardiologist', communityIds: ['c1'], includePublic: false, limit: 5 });
    expect(match!.explanation).toContain('Degraded: the embeddings service failed (no answer within 10 ms), so similarity in meaning was estimated from shared words');
    expect(match!.explanation).not.toContain('offline-hash-512');
  });

  it('blends a cross-encoder when configured, and skips it (saying so) when it fails', async () => {
    const request = { query: 'cardiologist', communityIds: ['c1', 'c3'], includePublic: true, limit: 5 };
    // A reranker that prefers the public profile p4 above all.
    const reranker: Reranker = { name: 'rerank:fake', rerank: async (_q, texts) => texts.map((t) => (t.includes('Children') ? 10 : 0)) };
    const reranked = await createSearchPipeline({ env: {}, reranker }).rank(handle.db, request);
    expect(reranked[0]!.profileId).toBe('p4');
    expect(reranked[0]!.explanation).toContain('Reordered by the relevance service (relative score 1.00).');
    expect(reranked[0]!.explanation).not.toContain('rerank:fake');
    const failing: Reranker = { name: 'rerank:down', rerank: async () => Promise.reject(new Error('answered HTTP 503')) };
    const skipped = await createSearchPipeline({ env: {}, reranker: failing }).rank(handle.db, request);
    expect(skipped.map((m) => m.profileId)).toEqual((await pipeline.rank(handle.db, request)).map((m) => m.profileId));
    expect(skipped[0]!.explanation).toContain('Degraded: the reranking service failed (answered HTTP 503)');
  });

  if (store === 'postgres') {
    it('uses pg_trgm for misspelled names when the extension is installed', async () => {
      await handle.db.exec('CREATE EXTENSION IF NOT EXISTS pg_trgm');
      const fresh = createSearchPipeline({ env: {} });
      const [match] = await fresh.rank(handle.db, { query: 'Ben Lindkvist', communityIds: ['c1'], includePublic: false, limit: 5 });
      expect(match?.profileId).toBe('p2');
    });
  }
});
