// The HTTP clients against a local server replaying the documented response shapes, and the
// offline embedder and text helpers they fall back on.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cosine, HttpReranker, OfflineHashEmbedder, OpenAiEmbedder, ServiceError } from './embedders.js';
import { createSearchPipeline } from './index.js';
import { stem, trigramSimilarity, wordSimilarity } from './text.js';
import { WordNet } from './wordnet.js';

type Handler = (body: any, req: IncomingMessage, res: ServerResponse) => void;
let server: Server;
let base = '';
let handler: Handler = () => undefined;
const seen: { url: string; body: any; auth?: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : null;
      seen.push({ url: req.url ?? '', body, auth: req.headers.authorization });
      handler(body, req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

describe('OpenAI-compatible embeddings client', () => {
  it('posts {model, input} to /v1/embeddings and reads data[].embedding by index', async () => {
    handler = (body, _req, res) =>
      json(res, 200, {
        object: 'list',
        model: body.model,
        // Out of order on purpose: the index decides.
        data: body.input.map((_: string, i: number) => ({ object: 'embedding', index: body.input.length - 1 - i, embedding: [body.input.length - 1 - i, 1] })),
        usage: { prompt_tokens: 3, total_tokens: 3 },
      });
    const embedder = new OpenAiEmbedder({ url: `${base}/`, model: 'bge-small', apiKey: 'k', batchSize: 2 });
    const vectors = await embedder.embed([[{ text: 'a', weight: 1 }], [{ text: 'b', weight: 1 }, { text: 'synonym', weight: 0.5 }], [{ text: 'c', weight: 1 }]]);
    expect(vectors).toEqual([[0, 1], [1, 1], [0, 1]]);
    const last = seen.filter((s) => s.url === '/v1/embeddings');
    expect(last).toHaveLength(2);
    expect(last[0]!.body).toEqual({ model: 'bge-small', input: ['a', 'b'] });
    expect(last[0]!.auth).toBe('Bearer k');
    expect(embedder.name).toBe('embeddings:bge-small');
  });

  it('fails clearly on timeouts, HTTP errors and malformed answers', async () => {
    handler = () => undefined; // never answers
    await expect(new OpenAiEmbedder({ url: base, model: 'm', timeoutMs: 100 }).embed([[{ text: 'x', weight: 1 }]])).rejects.toMatchObject({ reason: 'timeout' });
    handler = (_b, _r, res) => json(res, 503, { error: 'loading' });
    await expect(new OpenAiEmbedder({ url: base, model: 'm' }).embed([[{ text: 'x', weight: 1 }]])).rejects.toMatchObject({ reason: 'http' });
    handler = (_b, _r, res) => json(res, 200, { data: [] });
    await expect(new OpenAiEmbedder({ url: base, model: 'm' }).embed([[{ text: 'x', weight: 1 }]])).rejects.toBeInstanceOf(ServiceError);
    await expect(new OpenAiEmbedder({ url: 'http://127.0.0.1:1', model: 'm' }).embed([[{ text: 'x', weight: 1 }]])).rejects.toMatchObject({ reason: 'network' });
  });
});

describe('text-embeddings-inference style rerank client', () => {
  it('posts {query, texts} to /rerank and reads [{index, score}]', async () => {
    handler = (body, _req, res) => json(res, 200, body.texts.map((_: string, i: number) => ({ index: i, score: i / 10 })).reverse());
    const reranker = new HttpReranker({ url: base });
    expect(await reranker.rerank('q', ['a', 'b', 'c'])).toEqual([0, 0.1, 0.2]);
    expect(seen.at(-1)).toMatchObject({ url: '/rerank', body: { query: 'q', texts: ['a', 'b', 'c'] } });
  });

  it('also reads the {results: [{index, relevance_score}]} shape, and rejects partial answers', async () => {
    handler = (_b, _r, res) => json(res, 200, { results: [{ index: 1, relevance_score: 0.9 }, { index: 0, relevance_score: 0.2 }] });
    expect(await new HttpReranker({ url: `${base}/rerank` }).rerank('q', ['a', 'b'])).toEqual([0.2, 0.9]);
    handler = (_b, _r, res) => json(res, 200, [{ index: 0, score: 1 }]);
    await expect(new HttpReranker({ url: base }).rerank('q', ['a', 'b'])).rejects.toMatchObject({ reason: 'bad_response' });
  });
});

describe('createSearchPipeline from the environment', () => {
  it('uses the configured embeddings service and names it as provider, else the local GloVe model', () => {
    expect(createSearchPipeline({ env: { EMBEDDINGS_URL: base, EMBEDDINGS_MODEL: 'm1' } }).provider).toBe('embeddings:m1');
    expect(createSearchPipeline({ env: { EMBEDDINGS_URL: base } }).provider).toBe('glove-6b-100d-sif');
    expect(createSearchPipeline({ env: {} }).provider).toBe('glove-6b-100d-sif');
  });
});

describe('offline embedder and text helpers', () => {
  const embedder = new OfflineHashEmbedder();
  const v = (text: string) => embedder.vector([{ text, weight: 1 }]);

  it('is deterministic, L2-normalised and closer for related wording', () => {
    const a = v('cardiologist treating arrhythmias');
    expect(v('cardiologist treating arrhythmias')).toEqual(a);
    expect(Math.hypot(...a)).toBeCloseTo(1, 6);
    expect(a).toHaveLength(512);
    expect(cosine(a, v('cardiology and arrhythmia'))).toBeGreaterThan(cosine(a, v('patent litigation lawyer')));
    expect(v('')).toEqual(new Array(512).fill(0));
  });

  it("stems as PostgreSQL's 'english' configuration does (Snowball English)", () => {
    // The stems to_tsvector('english', …) gives these words on PostgreSQL 15.
    expect(['caresses', 'ponies', 'relational', 'hopping', 'generalization', 'networks', 'cardiologists', 'publicity', 'doctorate'].map(stem)).toEqual([
      'caress', 'poni', 'relat', 'hop', 'general', 'network', 'cardiologist', 'public', 'doctor',
    ]);
  });

  it('computes trigram similarities as pg_trgm does', () => {
    expect(trigramSimilarity('word', 'word')).toBe(1);
    expect(trigramSimilarity('word', 'two words')).toBeCloseTo(4 / 11, 5);
    expect(wordSimilarity('lindqvist', 'Ben Lindqvist')).toBe(1);
    expect(wordSimilarity('lindkvist', 'Ben Lindqvist')).toBeGreaterThan(0.3);
  });

  it('expands queries from WordNet, weighted below the query', () => {
    const wordnet = WordNet.open()!;
    const terms = wordnet.expand('heart doctor');
    expect(terms.find((t) => t.term === 'cardiologist')).toMatchObject({ relation: 'narrower term' });
    expect(terms.every((t) => t.weight < 1)).toBe(true);
    expect(wordnet.expand('schoolteacher').map((t) => t.term)).toContain('teacher');
    expect(wordnet.expand('Xqzt Blorp')).toEqual([]);
  });
});
