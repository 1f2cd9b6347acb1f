// The ranker's last phase: the best scored people as the matches a search returns, each with the
// communities it was found in and its explanation (explain.ts writes the sentence).
import type { Scored } from './candidate-scoring.js';
import { explain } from './explain.js';
import type { RankedMatch } from './pipeline.js';

export interface ExplanationContext {
  /** The requested communities: a match names only those it was found in. */
  communityIds: readonly string[];
  /** The query, and its words, as typed. */
  query: string;
  queryWords: string[];
  /** Why the fallback embedder served (query-embedding.ts), else null. */
  degraded: string | null;
  /** Why the cross-encoder was skipped (cross-encoding.ts), else null. */
  rerankNote: string | null;
}

/** The first `limit` of `scored` (best first) as ranked matches. */
export function explainMatches(scored: readonly Scored[], limit: number, context: ExplanationContext): RankedMatch[] {
  const requested = new Set(context.communityIds);
  return scored.slice(0, limit).map((s) => {
    const d = s.person.display;
    const matchedCommunityIds = [...new Set(s.person.docs.map((doc) => doc.community_id).filter((id) => requested.has(id)))].sort();
    return {
      profileId: s.person.profileId,
      userId: d.user_id ?? s.person.docs.find((doc) => doc.user_id)?.user_id ?? null,
      name: d.name,
      headline: d.headline,
      organization: d.organization,
      location: d.location,
      avatarUrl: d.avatar_url,
      score: round(s.score),
      semanticScore: round(s.semantic),
      weakMatch: s.weak,
      explanation: explain({
        query: context.query,
        queryWords: context.queryWords,
        matches: s.coverage.matches,
        places: s.coverage.places,
        texts: [d, ...s.person.docs.filter((doc) => doc !== d)],
        location: d.location,
        name: d.name,
        organization: d.organization,
        nameSim: s.nameSim,
        orgSim: s.orgSim,
        evidence: s.coverage.evidence,
        semantic: s.semantic,
        weak: s.weak,
        degraded: context.degraded,
        rerank: s.rerank,
        rerankNote: context.rerankNote,
        communities: matchedCommunityIds,
      }),
      matchedCommunityIds,
    };
  });
}

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
