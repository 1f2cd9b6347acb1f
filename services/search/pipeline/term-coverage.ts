// Term coverage, a feature of the reranking stage (candidate-scoring.ts): the share of the query's
// words a person holds, each in its best field, expansions credited below the typed words, and a
// place the query names credited to people located there. explain.ts says the matches.
import { type Field, FIELDS, type Person } from './candidate-hydration.js';
import type { TermMatch } from './explain.js';
import { isIn, type Place } from './place.js';
import { SPELLING_WEIGHT } from './spelling.js';
import { contentTokens, stem } from './text.js';
import { maxOf } from './top-k.js';
import type { Expansion } from './wordnet.js';

/** Field weights of the reranker's term coverage, in the spirit of the A/B/C full-text weights. */
const FIELD_WEIGHT: Record<Field, number> = { name: 1, headline: 1, organization: 0.85, location: 0.85, bio: 0.6, enrichment_text: 0.5 };

/**
 * A place the query names (place.ts) counts as two words of the query, credited in full to a person
 * located there ("epidemiologist in Nairobi" puts Nairobi's epidemiologists first; "climate
 * scientist in Nairobi" a Nairobi climate analyst before climate scientists elsewhere), but only
 * PLACE_ALONE when the person holds none of the query's other words: a place narrows a topic, it is
 * no topic itself (a Nairobi climate analyst stays below a Lyon epidemiologist, and is weak).
 */
const PLACE_WEIGHT = 2;
const PLACE_ALONE = 0.3;
/**
 * The fields an expansion may match. Never a name: a synonym of a topic is not a person. A broader
 * or narrower term never matches a location either ("molecules" → "unit" must not match "United
 * States").
 */
const EXPANSION_FIELDS: Record<Expansion['relation'], readonly Field[]> = {
  synonym: ['headline', 'organization', 'bio', 'enrichment_text'],
  'related form': ['headline', 'organization', 'bio', 'enrichment_text'],
  'narrower term': ['headline', 'organization', 'bio', 'enrichment_text'],
  'broader term': ['headline', 'organization', 'bio', 'enrichment_text'],
};
/**
 * Places are whole places: a query word matches a location only as a word of a place the query
 * names (place.ts: a whole part of a location, or its demonym), so "solid-state" never matches
 * "United States". Elsewhere a query word matches any field but the location.
 */
const TOPIC_FIELDS: readonly Field[] = FIELDS.filter((f) => f !== 'location');
/** A misspelled word's correction (spelling.ts) is a topic word: a name resembling it is said by name resemblance. */
const SPELLING_FIELDS: readonly Field[] = TOPIC_FIELDS.filter((f) => f !== 'name');
/**
 * What a field's word is worth as evidence (Coverage.evidence: the weak flag and the standing read
 * it): as in FIELD_WEIGHT, but a word found only in an organization's name ("AI" of "Acme AI
 * Labs") is weak evidence that the person works on it. The ranking score keeps FIELD_WEIGHT.
 */
const EVIDENCE_WEIGHT: Record<Field, number> = { ...FIELD_WEIGHT, organization: 0.2 };
/**
 * An expansion's credit never exceeds 0.9 × the least a typed word earns (enrichment, 0.5): a
 * profile holding the typed words outranks one holding only expansions, in whatever fields. Costs
 * 0.012 nDCG@10 on the judged set (docs/SEARCH-RANKING.md, "Expansions"); scaling the ceiling by
 * the expansion's weight too cost 0.020.
 */
const EXPANSION_CEILING = 0.9 * Math.min(...Object.values(FIELD_WEIGHT));

export interface Coverage {
  score: number;
  /** The same share with expansions at their own weight (no ceiling): what WEAK_COVERAGE (candidate-scoring.ts) reads. */
  evidence: number;
  matches: TermMatch[];
  /** The places the query names, and whether the person is in each. */
  places: { place: Place; matched: boolean }[];
  /** 1 when the person is in a place the query names and holds another query word; PLACE_ALONE when only the place; else 0. */
  placeBoost: number;
}

/**
 * The share of the query's words found in the person's fields, each word credited with the best
 * field it appears in; a word not found itself gets partial credit when one of its expansions is.
 */
export function termCoverage(
  person: Person,
  queryStems: readonly string[],
  expansions: readonly Expansion[],
  wordOf: ReadonlyMap<string, string>,
  places: readonly Place[],
  corrections: ReadonlyMap<string, string> = new Map(),
): Coverage {
  const fieldsWith = (stems: readonly string[], allowed: readonly Field[] = FIELDS): Field[] =>
    stems.length === 0 ? [] : allowed.filter((f) => stems.every((s) => person.fieldStems.get(f)!.has(s)));
  const best = (fields: readonly Field[], weights: Record<Field, number> = FIELD_WEIGHT) => maxOf(fields.map((f) => weights[f]), 0);
  const matches: TermMatch[] = [];
  const credit = new Map<string, number>(queryStems.map((s) => [s, 0]));
  const evidence = new Map<string, number>(credit);
  const placeStems = new Set(places.flatMap((p) => p.queryWords.map(stem)));
  for (const s of new Set(queryStems)) {
    const fields = fieldsWith([s], placeStems.has(s) ? FIELDS : TOPIC_FIELDS);
    const lexeme = fields.length === 0 ? corrections.get(s) : undefined;
    const spelled = lexeme ? fieldsWith([lexeme], SPELLING_FIELDS) : [];
    const weight = fields.length > 0 ? 1 : SPELLING_WEIGHT;
    const found = fields.length > 0 ? fields : spelled;
    if (found.length === 0) continue;
    credit.set(s, best(found) * weight);
    evidence.set(s, best(found, EVIDENCE_WEIGHT) * weight);
    matches.push({ term: wordOf.get(s) ?? s, fields: found, expansion: null, ...(spelled.length > 0 && { spelling: lexeme }) });
  }
  for (const e of expansions) {
    const fields = fieldsWith(contentTokens(e.term).map(stem), EXPANSION_FIELDS[e.relation]);
    if (fields.length === 0) continue;
    const value = Math.min(best(fields) * e.weight, EXPANSION_CEILING);
    const sources = contentTokens(e.from).map(stem).filter((s) => credit.has(s));
    let used = false;
    for (const source of sources) evidence.set(source, Math.max(evidence.get(source) ?? 0, best(fields, EVIDENCE_WEIGHT) * e.weight));
    for (const source of sources) {
      if ((credit.get(source) ?? 0) < value) {
        credit.set(source, value);
        used = true;
      }
    }
    if (used) matches.push({ term: e.term, fields, expansion: e });
  }
  // A place named in the query: full credit when the person is there and holds another query word.
  const weight = new Map<string, number>();
  const topical = [...credit].some(([s, c]) => c > 0 && !placeStems.has(s));
  const alone = [...credit.keys()].some((s) => !placeStems.has(s)) && !topical;
  const placed = places.map((place) => {
    const matched = person.docs.some((d) => isIn(d.location, place));
    const share = PLACE_WEIGHT / place.queryWords.length;
    for (const s of place.queryWords.map(stem)) {
      if (!credit.has(s)) continue;
      weight.set(s, share);
      for (const map of [credit, evidence]) {
        if (matched) map.set(s, alone ? PLACE_ALONE : 1);
        else if (alone) map.set(s, Math.min(map.get(s)!, PLACE_ALONE));
      }
    }
    return { place, matched };
  });
  const share = (map: ReadonlyMap<string, number>) => {
    let total = 0;
    let weights = 0;
    for (const [s, c] of map) {
      const w = weight.get(s) ?? 1;
      total += c * w;
      weights += w;
    }
    return weights > 0 ? total / weights : 0;
  };
  // A boost of its own besides the coverage share: the blend weighs coverage little (BM25 carries
  // the words), and a place the searcher named must still move people located there up.
  const placeBoost = placed.some((p) => p.matched) ? (alone ? PLACE_ALONE : 1) : 0;
  return { score: share(credit), evidence: share(evidence), matches, places: placed, placeBoost };
}
