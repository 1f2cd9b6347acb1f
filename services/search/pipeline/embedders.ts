// Embedders and rerankers. The default is OFFLINE: signed feature hashing of stemmed words, word
// pairs and character n-grams into a fixed number of dimensions, L2-normalised — deterministic,
// no model and no download. When configured, an OpenAI-compatible /v1/embeddings service and a
// text-embeddings-inference style /rerank service are used instead, each with a timeout; the
// ranker falls back to the offline embedder (and to no reranker) when they fail, and says so.
import { contentTokens, stem } from './text.js';

export interface WeightedText {
  text: string;
  weight: number;
}

export interface Embedder {
  /** Named in explanations and as the pipeline's provider. */
  readonly name: string;
  /** One vector per text; each text is a list of weighted parts (fields, or a query and its expansions). */
  embed(texts: readonly (readonly WeightedText[])[]): Promise<number[][]>;
}

export interface Reranker {
  readonly name: string;
  /** One relevance score per text, higher is better, in the order given. */
  rerank(query: string, texts: readonly string[]): Promise<number[]>;
}

/** An embedder that makes each vector on its own, synchronously, in this process. */
export abstract class LocalEmbedder implements Embedder {
  abstract readonly name: string;
  abstract vector(parts: readonly WeightedText[]): number[];

  async embed(texts: readonly (readonly WeightedText[])[]): Promise<number[][]> {
    return texts.map((parts) => this.vector(parts));
  }
}

/** The vector scaled to length 1 (a zero vector stays zero). */
export function unitLength(v: ArrayLike<number>): number[] {
  let norm = 0;
  for (let i = 0; i < v.length; i++) norm += v[i]! * v[i]!;
  norm = Math.sqrt(norm);
  return Array.from(v, (x) => (norm === 0 ? 0 : x / norm));
}

export function cosine(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

// ---- the offline embedder ----

/** 32-bit FNV-1a followed by a murmur3 finaliser: well-spread and the same on every machine. */
function hash32(text: string, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}

export interface OfflineEmbedderOptions {
  /** Dimensions of the hashed space (default 512). */
  dimensions?: number;
  /** Weight of word-pair features relative to words (default 0.5). */
  pairWeight?: number;
  /** Total weight of one word's character n-grams relative to the word (default 0.4). */
  charGramWeight?: number;
}

export class OfflineHashEmbedder extends LocalEmbedder {
  readonly name: string;
  private readonly dims: number;
  private readonly pairWeight: number;
  private readonly charGramWeight: number;

  constructor(options: OfflineEmbedderOptions = {}) {
    super();
    this.dims = options.dimensions ?? 512;
    this.pairWeight = options.pairWeight ?? 0.5;
    this.charGramWeight = options.charGramWeight ?? 0.4;
    this.name = `offline-hash-${this.dims}`;
  }

  /** The sparse features of weighted texts: word stems, adjacent stem pairs, character 4-grams. */
  features(parts: readonly WeightedText[]): Map<string, number> {
    const counts = new Map<string, number>();
    const add = (key: string, weight: number) => counts.set(key, (counts.get(key) ?? 0) + weight);
    for (const part of parts) {
      if (part.weight <= 0) continue;
      const words = contentTokens(part.text);
      const stemmed = words.map(stem);
      for (let i = 0; i < stemmed.length; i++) {
        add(`w:${stemmed[i]}`, part.weight);
        if (i + 1 < stemmed.length) add(`p:${stemmed[i]}_${stemmed[i + 1]}`, part.weight * this.pairWeight);
        const padded = `<${words[i]}>`;
        if (padded.length >= 6) {
          const grams = padded.length - 3;
          for (let j = 0; j + 4 <= padded.length; j++) add(`c:${padded.slice(j, j + 4)}`, (part.weight * this.charGramWeight) / grams);
        }
      }
    }
    // Sublinear term frequency: a word said five times is not five times as relevant.
    for (const [key, value] of counts) counts.set(key, Math.sign(value) * Math.log1p(Math.abs(value)));
    return counts;
  }

  vector(parts: readonly WeightedText[]): number[] {
    const v = new Array<number>(this.dims).fill(0);
    for (const [key, value] of this.features(parts)) {
      const h = hash32(key, 0);
      const sign = hash32(key, 0x9e3779b9) & 1 ? 1 : -1;
      v[h % this.dims]! += sign * value;
    }
    return unitLength(v);
  }
}

// ---- HTTP clients ----

export class ServiceError extends Error {
  constructor(
    message: string,
    readonly reason: 'timeout' | 'http' | 'network' | 'bad_response',
  ) {
    super(message);
    this.name = 'ServiceError';
  }
}

async function postJson(url: string, body: unknown, timeoutMs: number, apiKey?: string): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const name = (error as { name?: string }).name;
    if (name === 'TimeoutError' || name === 'AbortError') throw new ServiceError(`no answer within ${timeoutMs} ms`, 'timeout');
    throw new ServiceError(`unreachable (${(error as Error).message})`, 'network');
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new ServiceError(`answered HTTP ${response.status}`, 'http');
  }
  try {
    return await response.json();
  } catch {
    throw new ServiceError('answered with a body that is not JSON', 'bad_response');
  }
}

/** `base` plus `path` unless base already ends with it. */
function endpoint(base: string, path: string): string {
  const trimmed = base.replace(/\/+$/, '');
  return trimmed.endsWith(path) ? trimmed : `${trimmed}${path}`;
}

export interface HttpEmbedderOptions {
  /** Base URL of an OpenAI-compatible server (…/v1/embeddings is appended unless present). */
  url: string;
  model: string;
  apiKey?: string;
  timeoutMs?: number;
  /** Inputs per request (default 64). */
  batchSize?: number;
}

/** OpenAI-compatible embeddings: POST /v1/embeddings {model, input: string[]} → {data: [{index, embedding}]}. */
export class OpenAiEmbedder implements Embedder {
  readonly name: string;
  private readonly url: string;

  constructor(private readonly options: HttpEmbedderOptions) {
    this.url = endpoint(options.url, '/v1/embeddings');
    this.name = `embeddings:${options.model}`;
  }

  async embed(texts: readonly (readonly WeightedText[])[]): Promise<number[][]> {
    // A dense model reads text as written: parts are joined, weights only decide which are kept.
    const inputs = texts.map((parts) =>
      parts
        .filter((p) => p.weight >= 1)
        .map((p) => p.text)
        .join('\n')
        .slice(0, 8000),
    );
    const out: number[][] = [];
    const batch = this.options.batchSize ?? 64;
    for (let i = 0; i < inputs.length; i += batch) {
      const slice = inputs.slice(i, i + batch);
      const body = await postJson(this.url, { model: this.options.model, input: slice }, this.options.timeoutMs ?? 5000, this.options.apiKey);
      const data = (body as { data?: unknown }).data;
      if (!Array.isArray(data) || data.length !== slice.length) throw new ServiceError('answered without one embedding per input', 'bad_response');
      const vectors = new Array<number[]>(slice.length);
      data.forEach((item: unknown, position: number) => {
        const { index, embedding } = item as { index?: unknown; embedding?: unknown };
        const at = typeof index === 'number' ? index : position;
        if (!Array.isArray(embedding) || embedding.some((x) => typeof x !== 'number') || at < 0 || at >= slice.length) {
          throw new ServiceError('answered with a malformed embedding', 'bad_response');
        }
        vectors[at] = embedding as number[];
      });
      if (vectors.some((v) => v === undefined)) throw new ServiceError('answered with missing embeddings', 'bad_response');
      for (const v of vectors) out.push(v); // no push(...spread): any number of inputs
    }
    return out;
  }
}

export interface HttpRerankerOptions {
  /** Base URL of a text-embeddings-inference style server (…/rerank is appended unless present). */
  url: string;
  model?: string;
  apiKey?: string;
  timeoutMs?: number;
}

/**
 * Cross-encoder reranking: POST /rerank {query, texts} → [{index, score}] (text-embeddings-inference);
 * the Cohere/Jina shape {results: [{index, relevance_score}]} is read too.
 */
export class HttpReranker implements Reranker {
  readonly name: string;
  private readonly url: string;

  constructor(private readonly options: HttpRerankerOptions) {
    this.url = endpoint(options.url, '/rerank');
    this.name = `rerank:${options.model ?? new URL(this.url).host}`;
  }

  async rerank(query: string, texts: readonly string[]): Promise<number[]> {
    if (texts.length === 0) return [];
    const body = await postJson(
      this.url,
      { query, texts: texts.map((t) => t.slice(0, 4000)), truncate: true },
      this.options.timeoutMs ?? 5000,
      this.options.apiKey,
    );
    const items = Array.isArray(body) ? body : (body as { results?: unknown }).results;
    if (!Array.isArray(items)) throw new ServiceError('answered without a list of scores', 'bad_response');
    const scores = new Array<number>(texts.length).fill(Number.NaN);
    for (const item of items as { index?: unknown; score?: unknown; relevance_score?: unknown }[]) {
      const score = typeof item.score === 'number' ? item.score : item.relevance_score;
      if (typeof item.index !== 'number' || typeof score !== 'number' || item.index < 0 || item.index >= texts.length) {
        throw new ServiceError('answered with a malformed score', 'bad_response');
      }
      scores[item.index] = score;
    }
    if (scores.some((s) => Number.isNaN(s))) throw new ServiceError('answered without a score for every text', 'bad_response');
    return scores;
  }
}
