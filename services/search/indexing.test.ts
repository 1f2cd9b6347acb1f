// Indexing writes a document's vector with its text (migration 011), on each store: the vector is
// made before the write from the text the write leaves, nothing is written a second time, an
// unchanged document is not embedded again, a document keeping its enrichment text gets the vector
// of the text it keeps, and a write that changes the text without a vector still clears the old one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, storeNames } from '../../test/helpers/stores.js';
import type { Document } from '../../proto/gen/expertnet/search/v1/search_service.js';
import type { Database } from '../kit/db/database.js';
import { createLogger } from '../kit/logger.js';
import { type Embedder, OfflineHashEmbedder } from './pipeline/embedders.js';
import { createSearchPipeline } from './pipeline/index.js';
import type { SearchPipeline } from './pipeline/pipeline.js';
import { indexDocuments } from './indexing.js';
import { createSearchCorpusRepository } from './search-corpus.repository.js';

interface StoredRow {
  embedding: number[] | null;
  embedding_model: string | null;
}

const doc = (communityId: string, profileId: string, headline: string, enrichmentText = ''): Document => ({
  communityId, profileId, userId: '', name: 'Rosa Lind', headline, bio: 'Runs a plant genetics lab.',
  organization: 'Seed Institute', location: 'Uppsala', avatarUrl: '', enrichmentText,
});

describe.each(storeNames())('indexing with vectors on %s', (store) => {
  let handle: Awaited<ReturnType<typeof openTestDatabase>>;
  let db: Database;
  /** How many texts the embedder was given, and how many times vectors were written after a commit. */
  const seen = { texts: 0, storeCalls: 0 };
  const inner = new OfflineHashEmbedder();
  const watching: Embedder = {
    name: inner.name,
    async embed(texts) {
      seen.texts += texts.length;
      return inner.embed(texts);
    },
  };
  const pipeline = createSearchPipeline({ env: {}, embedder: watching, wordnet: false });
  // The pipeline as the service has it, counting the writes of vectors after a commit.
  const counted: SearchPipeline = {
    provider: pipeline.provider,
    rank: (d, request) => pipeline.rank(d, request),
    prepareVectors: (d, docs) => pipeline.prepareVectors(d, docs),
    storeVectors: (d, keys) => {
      seen.storeCalls += 1;
      return pipeline.storeVectors(d, keys);
    },
  };
  // The pipeline when the embedder is down: documents are written without vectors.
  const failing = createSearchPipeline({ env: {}, embedder: { name: inner.name, embed: async () => Promise.reject(new Error('embedder down')) }, wordnet: false });
  const index = (documents: Document[]) =>
    indexDocuments({ deps: { db, logger: createLogger('silent') }, corpus: createSearchCorpusRepository(db), pipeline: counted }, documents, 0, 'req_index');
  const row = async (community: string, profile: string) =>
    (await db.query<StoredRow>('SELECT embedding, embedding_model FROM search.documents WHERE community_id = $1 AND profile_id = $2', [community, profile]))[0];
  const reset = () => Object.assign(seen, { texts: 0, storeCalls: 0 });

  beforeAll(async () => {
    handle = await openTestDatabase(store);
    db = handle.db;
  });
  afterAll(async () => handle?.close());

  it('a new document is stored with its vector in the write itself: embedded before it, nothing written after', async () => {
    reset();
    expect(await row('c_a', 'p_new')).toBeUndefined();
    expect(await index([doc('c_a', 'p_new', 'Plant geneticist')])).toBe(1);
    expect(seen).toMatchObject({ texts: 1, storeCalls: 0 });
    const stored = (await row('c_a', 'p_new'))!;
    expect(stored.embedding_model).toBe('offline-hash-512');
    expect(stored.embedding).toHaveLength(512);
    // It is the vector of the text written: storing missing vectors finds nothing to do.
    expect(await pipeline.storeVectors(db, [{ community_id: 'c_a', profile_id: 'p_new' }])).toBe(0);
  });

  it('a document indexed again unchanged is not embedded again and keeps its vector', async () => {
    await index([doc('c_a', 'p_same', 'Seed bank curator')]);
    const before = (await row('c_a', 'p_same'))!;
    reset();
    await index([doc('c_a', 'p_same', 'Seed bank curator')]);
    expect(seen).toMatchObject({ texts: 0, storeCalls: 0 });
    expect(await row('c_a', 'p_same')).toEqual(before);
  });

  it('a changed document gets the vector of its new text in the same write', async () => {
    await index([doc('c_a', 'p_moved', 'Seed bank curator')]);
    reset();
    await index([doc('c_a', 'p_moved', 'Wheat breeder')]);
    expect(seen).toMatchObject({ texts: 1, storeCalls: 0 });
    // The same text written fresh elsewhere gets the same vector.
    await index([doc('c_b', 'p_moved', 'Wheat breeder')]);
    expect((await row('c_a', 'p_moved'))!.embedding).toEqual((await row('c_b', 'p_moved'))!.embedding);
  });

  it('a document keeping the enrichment text it holds is embedded after the write, from the text it keeps', async () => {
    await index([doc('c_a', 'p_enriched', 'Plant geneticist', 'Published on drought-tolerant barley.')]);
    reset();
    // No enrichment text sent: the stored one stays, and the vector must describe it too.
    await index([doc('c_a', 'p_enriched', 'Barley geneticist')]);
    expect(seen.storeCalls).toBe(1);
    await index([doc('c_b', 'p_enriched', 'Barley geneticist', 'Published on drought-tolerant barley.')]);
    const kept = (await row('c_a', 'p_enriched'))!;
    expect(kept.embedding_model).toBe('offline-hash-512');
    expect(kept.embedding).toEqual((await row('c_b', 'p_enriched'))!.embedding);
  });

  it('a write that changes the text without a new vector clears the old one; with one, keeps the new one', async () => {
    await index([doc('c_a', 'p_direct', 'Soil chemist')]);
    await db.query(`UPDATE search.documents SET headline = 'Soil physicist' WHERE community_id = 'c_a' AND profile_id = 'p_direct'`);
    expect(await row('c_a', 'p_direct')).toEqual({ embedding: null, embedding_model: null });
    await db.query(
      `UPDATE search.documents SET headline = 'Soil biologist', embedding = ARRAY[1, 0]::real[], embedding_model = 'm'
        WHERE community_id = 'c_a' AND profile_id = 'p_direct'`,
    );
    expect(await row('c_a', 'p_direct')).toEqual({ embedding: [1, 0], embedding_model: 'm' });
    // Neither does an index call that cannot embed leave a stale vector: the text is written, the vector cleared.
    await indexDocuments({ deps: { db, logger: createLogger('silent') }, corpus: createSearchCorpusRepository(db), pipeline: failing }, [doc('c_a', 'p_direct', 'Soil ecologist')], 0, 'req_index');
    expect(await row('c_a', 'p_direct')).toEqual({ embedding: null, embedding_model: null });
    const [headline] = await db.query<{ headline: string }>(`SELECT headline FROM search.documents WHERE community_id = 'c_a' AND profile_id = 'p_direct'`);
    expect(headline!.headline).toBe('Soil ecologist');
  });

  it('an index call that cannot embed warns with the request id of the call', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = createLogger('warn', { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    await indexDocuments({ deps: { db, logger }, corpus: createSearchCorpusRepository(db), pipeline: failing }, [doc('c_a', 'p_logged', 'Soil ecologist')], 0, 'req_failing_embedder');
    // An operator finds the line by the id of the request that made the call.
    expect(lines).toEqual([expect.objectContaining({ level: 40, requestId: 'req_failing_embedder', documents: 1, msg: expect.stringContaining('without vectors') })]);
  });
});
