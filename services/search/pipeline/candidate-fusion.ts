// The ranker's third phase: reciprocal rank fusion of the legs' rows, per person. A person counts
// once per leg, at its first rank there; every document of it keeps its own share, so the person's
// best-matching document is the one displayed (candidate-hydration.ts).
import type { LegName, LegRow } from './retrieve.js';

const RRF_K = 60;

/** A fused candidate: its reciprocal-rank score, the legs that found it, and per document. */
export interface Fused {
  score: number;
  legs: Set<LegName>;
  docScore: Map<string, number>;
}

/** The best `maxCandidates` people, best first (ties by profile id), each with its fused entry. */
export function fuseCandidates(legs: ReadonlyMap<LegName, LegRow[]>, legWeight: Record<LegName, number>, maxCandidates: number): [string, Fused][] {
  const rrf = new Map<string, Fused>();
  for (const [leg, rows] of legs) {
    const seen = new Set<string>();
    let rank = 0;
    for (const row of rows) {
      const entry = rrf.get(row.profile_id) ?? { score: 0, legs: new Set<LegName>(), docScore: new Map<string, number>() };
      rrf.set(row.profile_id, entry);
      const docKey = row.community_id;
      if (!seen.has(row.profile_id)) {
        rank++;
        seen.add(row.profile_id);
        entry.score += legWeight[leg] / (RRF_K + rank);
        entry.legs.add(leg);
      }
      entry.docScore.set(docKey, (entry.docScore.get(docKey) ?? 0) + legWeight[leg] / (RRF_K + rank));
    }
  }
  return [...rrf.entries()].sort((a, b) => b[1].score - a[1].score || (a[0] < b[0] ? -1 : 1)).slice(0, maxCandidates);
}
