// The optional last reranking step: a cross-encoder over the best candidates, blended half and half
// with their feature score. A failing cross-encoder is skipped, and the explanations say so.
import { inStep } from '../../kit/telemetry.js';
import { byScore, type Scored } from './candidate-scoring.js';
import type { Reranker } from './embedders.js';
import { minMaxNormalise } from './top-k.js';

/**
 * Reorders `scored` (best first) in place by the cross-encoder's view of its first `rerankTop`.
 * Returns what the explanations must say when the cross-encoder failed, else null.
 */
export async function crossEncode(reranker: Reranker, query: string, scored: Scored[], rerankTop: number): Promise<string | null> {
  const top = scored.slice(0, rerankTop);
  try {
    const raw = await inStep('search.rerank', { 'search.reranked': top.length }, () =>
      reranker.rerank(
        query,
        top.map((s) => s.parts.filter((p) => p.weight > 0).map((p) => p.text).join('. ')),
      ),
    );
    const relative = minMaxNormalise(raw);
    top.forEach((s, i) => {
      s.rerank = relative[i]!;
      s.score = 0.5 * s.score + 0.5 * s.rerank;
    });
    // Those below the cross-encoded top keep their order beneath it.
    for (const s of scored.slice(rerankTop)) s.score *= 0.5;
    scored.sort(byScore);
    return null;
  } catch (error) {
    return `the reranking service failed (${(error as Error).message}), so it was skipped`;
  }
}
