// Stored document vectors on each store, and the nearest-neighbour leg where pgvector exists (the
// embedded store ships it; the PostgreSQL here has none, so there the vectors are arrays scored in
// the service): vectors follow the text they were made from, are read back at rank time, and the
// leg finds what no word leg can while never reaching outside the requested scope.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, storeNames } from '../../../test/helpers/stores.js';
import type { Database } from '../../kit/db/database.js';
import { type Embedder, OfflineHashEmbedder, type WeightedText } from './embedders.js';
import { createSearchPipeline } from './index.js';

const DOCS = [
  // community, profile, name, headline, bio
  ['c1', 'p1', 'Ada Okafor', 'Neuroscience researcher', 'Studies memory circuits in the hippocampus.'],
  ['c1', 'p2', 'Ben Lindqvist', 'Tax accountant', 'Prepares returns for small businesses.'],
  ['c2', 'p3', 'Cara Moreau', 'Neuroscience professor', 'Teaches neuroscience and runs a neuroscience lab.'],
  ['', 'p4', 'Dan Haddad', 'Neuroscience postdoc', 'Public profile about neuroscience.'],
] as const;

interface StoredRow {
  profile_id: string;
  embedding: number[] | null;
  embedding_model: string | null;
}

/** The offline embedder, counting the texts it is asked to embed. */
function countingEmbedder(): Embedder & { texts: number; failing: boolean } {
  const inner = new OfflineHashEmbedder();
  const counter = {
    name: inner.name,
    texts: 0,
    failing: false,
    async embed(texts: readonly (readonly WeightedText[])[]) {
      if (counter.failing) throw new Error('no answer within 10 ms');
      counter.texts += texts.length;
      return inner.embed(texts);
    },
  };
  return counter;
}

describe.each(storeNames())('stored vectors on %s', (store) => {
  let handle: Awaited<ReturnType<typeof openTestDatabase>>;
  let db: Database;
  let pgvector: boolean;
  const embedder = countingEmbedder();
  const pipeline = createSearchPipeline({ env: {}, embedder, wordnet: false });
  const row = async (community: string, profile: string) =>
    (await db.query<StoredRow>('SELECT profile_id, embedding, embedding_model FROM search.documents WHERE community_id = $1 AND profile_id = $2', [community, profile]))[0]!;

  beforeAll(async () => {
    handle = await openTestDatabase(store);
    db = handle.db;
    for (const [community, profile, name, headline, bio] of DOCS) {
      await db.query(
        `INSERT INTO search.documents (community_id, profile_id, user_id, name, headline, bio, organization, location)
         VALUES ($1, $2, $3, $4, $5, $6, 'Org', 'Town')`,
        [community, profile, `u-${profile}`, name, headline, bio],
      );
    }
    pgvector = (await db.query(`SELECT 1 FROM pg_extension WHERE extname = 'vector'`)).length === 1;
  });
  afterAll(async () => handle?.close());

  it('the embedded store has pgvector (migrated in); a server has it only where the package is installed', async () => {
    const available = (await db.query(`SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`)).length === 1;
    expect(pgvector).toBe(available);
    if (store === 'pglite') expect(pgvector).toBe(true);
  });

  it('stores each document’s vector as an array with the embedder’s name, once', async () => {
    expect(await pipeline.storeVectors(db)).toBe(DOCS.length);
    const stored = await row('c1', 'p1');
    expect(stored.embedding_model).toBe('offline-hash-512');
    expect(stored.embedding).toHaveLength(512);
    const norm = Math.sqrt(stored.embedding!.reduce((s, x) => s + x * x, 0));
    expect(norm).toBeCloseTo(1, 4);
    // Nothing is missing now: storing again embeds nothing.
    const before = embedder.texts;
    expect(await pipeline.storeVectors(db)).toBe(0);
    expect(embedder.texts).toBe(before);
    if (pgvector) {
      const indexes = await db.query<{ indexname: string }>(`SELECT indexname FROM pg_indexes WHERE schemaname = 'search' AND indexname LIKE 'documents_embedding_%' ORDER BY 1`);
      expect(indexes.map((i) => i.indexname.replace(/_[0-9a-f]{12}_/, '_*_'))).toEqual(['documents_embedding_*_communities', 'documents_embedding_*_public']);
    }
  });

  it('scores candidates with their stored vectors: only the query is embedded at rank time', async () => {
    const before = embedder.texts;
    const matches = await pipeline.rank(db, { query: 'neuroscience', communityIds: ['c1', 'c2'], includePublic: true, limit: 10 });
    expect(matches.map((m) => m.profileId).sort()).toEqual(['p1', 'p3', 'p4']);
    expect(embedder.texts - before).toBe(1);
    for (const m of matches) expect(m.semanticScore).toBeGreaterThan(0);
  });

  it('a text change clears the vector in the same statement; other changes keep it; storing again restores it', async () => {
    await db.query(`UPDATE search.documents SET avatar_url = 'https://example.org/a.png' WHERE community_id = 'c1' AND profile_id = 'p2'`);
    expect((await row('c1', 'p2')).embedding).toHaveLength(512);
    await db.query(`UPDATE search.documents SET headline = 'Forensic accountant' WHERE community_id = 'c1' AND profile_id = 'p2'`);
    expect(await row('c1', 'p2')).toMatchObject({ embedding: null, embedding_model: null });
    // Ranking still scores it (embedded on the fly), then the index path stores it again.
    const [match] = await pipeline.rank(db, { query: 'forensic accountant', communityIds: ['c1'], includePublic: false, limit: 5 });
    expect(match).toMatchObject({ profileId: 'p2' });
    expect(match!.semanticScore).toBeGreaterThan(0);
    expect(await pipeline.storeVectors(db, [{ community_id: 'c1', profile_id: 'p2' }])).toBe(1);
    expect((await row('c1', 'p2')).embedding_model).toBe('offline-hash-512');
  });

  it('never stores a vector for text that changed while it was being embedded', async () => {
    await db.query(`UPDATE search.documents SET bio = 'Audits charities.' WHERE community_id = 'c1' AND profile_id = 'p2'`);
    const racing: Embedder = {
      name: 'offline-hash-512',
      async embed(texts) {
        // A concurrent index call rewrites the text between the read and the write.
        await db.query(`UPDATE search.documents SET bio = 'Audits hospitals.' WHERE community_id = 'c1' AND profile_id = 'p2'`);
        return new OfflineHashEmbedder().embed(texts);
      },
    };
    const racer = createSearchPipeline({ env: {}, embedder: racing, wordnet: false });
    expect(await racer.storeVectors(db, [{ community_id: 'c1', profile_id: 'p2' }])).toBe(0);
    expect(await row('c1', 'p2')).toMatchObject({ embedding: null });
    expect(await pipeline.storeVectors(db, [{ community_id: 'c1', profile_id: 'p2' }])).toBe(1);
  });

  it('an embedder failure stores nothing and leaves ranking working', async () => {
    await db.query(`UPDATE search.documents SET bio = 'Audits museums.' WHERE community_id = 'c1' AND profile_id = 'p2'`);
    embedder.failing = true;
    try {
      await expect(pipeline.storeVectors(db, [{ community_id: 'c1', profile_id: 'p2' }])).rejects.toThrow('no answer within 10 ms');
      expect(await row('c1', 'p2')).toMatchObject({ embedding: null });
      // The query cannot be embedded either: ranked with the offline fallback, without the leg.
      const matches = await pipeline.rank(db, { query: 'neuroscientists', communityIds: ['c1', 'c2'], includePublic: true, limit: 10 });
      for (const m of matches) {
        expect(m.explanation).toContain('Degraded: the embeddings service failed');
        expect(m.explanation).not.toContain('pgvector');
      }
    } finally {
      embedder.failing = false;
    }
    expect(await pipeline.storeVectors(db)).toBe(1);
  });

  it('vectors of another embedder are replaced by the active one’s, and never compared with it', async () => {
    const other: Embedder = { name: 'embeddings:other', embed: async (texts) => texts.map(() => [1, 0, 0]) };
    const otherPipeline = createSearchPipeline({ env: {}, embedder: other, wordnet: false });
    expect(await otherPipeline.storeVectors(db)).toBe(DOCS.length);
    expect(await row('c1', 'p1')).toMatchObject({ embedding_model: 'embeddings:other', embedding: [1, 0, 0] });
    // The offline pipeline does not read those vectors: it embeds the candidates itself.
    const before = embedder.texts;
    const [match] = await pipeline.rank(db, { query: 'hippocampus', communityIds: ['c1'], includePublic: false, limit: 5 });
    expect(match).toMatchObject({ profileId: 'p1' });
    expect(embedder.texts - before).toBe(2);
    expect(await pipeline.storeVectors(db)).toBe(DOCS.length);
    expect((await row('c1', 'p1')).embedding_model).toBe('offline-hash-512');
  });

  it('the nearest-neighbour leg finds what no word matches, above its floor, inside the scope only', async () => {
    // A dense embedder in miniature: words map onto concepts, so "brain scientist" is near
    // "neuroscience" though they share no word (what a sentence-embedding model gives).
    const concepts: Record<string, number> = { brain: 0, scientist: 0, neuroscience: 0, hippocampus: 0, memory: 0, tax: 1, accountant: 1, returns: 1 };
    const dense: Embedder = {
      name: 'embeddings:concepts',
      embed: async (texts) =>
        texts.map((parts) => {
          const v = [0, 0, 0.05];
          for (const part of parts) {
            for (const word of part.text.toLowerCase().match(/[a-z]+/g) ?? []) {
              const axis = concepts[word];
              if (axis !== undefined) v[axis] = v[axis]! + part.weight;
            }
          }
          const norm = Math.hypot(...v);
          return v.map((x) => x / norm);
        }),
    };
    const semantic = createSearchPipeline({ env: {}, embedder: dense, wordnet: false });
    expect(await semantic.storeVectors(db)).toBe(DOCS.length);
    const request = { query: 'brain scientist', communityIds: ['c1'], includePublic: false, limit: 10 };
    const matches = await semantic.rank(db, request);
    if (!pgvector) {
      // Without pgvector there is no leg: no word matches, so nothing is found, and nothing claims it.
      expect(matches).toEqual([]);
      return;
    }
    // p1 only: the tax accountant p2 is below the floor; p3 (community c2) and p4 (public) are as
    // near but outside the scope.
    expect(matches.map((m) => m.profileId)).toEqual(['p1']);
    // Found by meaning alone, and said so in plain words: weak, since no word of the request is there.
    expect(matches[0]!.explanation).toContain('No word of the request appears in the profile; it was found as close in meaning (similarity 1.00).');
    expect(matches[0]!.weakMatch).toBe(true);
    const wider = await semantic.rank(db, { ...request, communityIds: ['c1', 'c2'], includePublic: true });
    expect(wider.map((m) => m.profileId).sort()).toEqual(['p1', 'p3', 'p4']);
    expect(wider.find((m) => m.profileId === 'p4')!.matchedCommunityIds).toEqual([]);
    const publicOnly = await semantic.rank(db, { ...request, communityIds: [], includePublic: true });
    expect(publicOnly.map((m) => m.profileId)).toEqual(['p4']);
    // A floor of 0 lets the unrelated neighbour in.
    const floorless = createSearchPipeline({ env: { EMBEDDINGS_MIN_SIMILARITY: '0' }, embedder: dense, wordnet: false });
    expect((await floorless.rank(db, request)).map((m) => m.profileId)).toEqual(['p1', 'p2']);
  });
});
