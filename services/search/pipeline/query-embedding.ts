// The ranker's first phase: embed the query with the active embedder, or with the fallback (the
// offline hashing embedder) when the active one fails. A degraded query is said so in every
// explanation, and its vector finds no neighbours among the active embedder's stored vectors.
import { inStep } from '../../kit/telemetry.js';
import type { Embedder, WeightedText } from './embedders.js';

/** An embedder call failed: the ranker starts over with the fallback embedder. */
export class EmbedderFailure extends Error {
  constructor(readonly failure: unknown) {
    super(failure instanceof Error ? failure.message : String(failure));
  }
}

/** The query's vector and the embedder that made it. */
export interface QueryEmbedding {
  embedder: Embedder;
  vector: number[];
  /** Why the fallback embedder made it (said in explanations); null when the active one did. */
  degraded: string | null;
}

/** The query's vector; an embedder failure comes out as an EmbedderFailure. */
async function embedWith(embedder: Embedder, parts: WeightedText[], degraded: boolean): Promise<number[]> {
  try {
    const [vector] = await inStep('search.embed', { 'search.embedder': embedder.name, 'search.texts': 1, ...(degraded ? { 'search.degraded': true } : {}) }, () =>
      embedder.embed([parts]),
    );
    if (!vector) throw new Error('no vector for the query');
    return vector;
  } catch (error) {
    throw new EmbedderFailure(error);
  }
}

/** Embeds the query (its words and weighted expansions) with `active`, or `fallback` when it fails. */
export async function embedQuery(active: Embedder, fallback: Embedder, parts: WeightedText[]): Promise<QueryEmbedding> {
  try {
    return { embedder: active, vector: await embedWith(active, parts, false), degraded: null };
  } catch (error) {
    if (error instanceof EmbedderFailure) return degradeQuery(active, fallback, parts, error);
    throw error;
  }
}

/**
 * The query embedded again by the fallback after `failure` of `current`. When `current` already
 * is the fallback there is nothing left to fall back to: the underlying error is thrown.
 */
export async function degradeQuery(current: Embedder, fallback: Embedder, parts: WeightedText[], failure: EmbedderFailure): Promise<QueryEmbedding> {
  if (current === fallback) throw failure.failure;
  const degraded = `the embeddings service failed (${failure.message}), so similarity in meaning was estimated from shared words and spellings`;
  try {
    return { embedder: fallback, vector: await embedWith(fallback, parts, true), degraded };
  } catch (failed) {
    throw failed instanceof EmbedderFailure ? failed.failure : failed;
  }
}
