// Places named in a query ("epidemiologist in Nairobi", "expert in Kenyan public health"). The
// gazetteer is the corpus itself: the comma-separated parts of the candidates' location fields
// ("Nairobi", "Kenya", "United States"). A part is named when its words appear in the query in
// order, or — for a one-word part — as its demonym ("Kenyan", "Brazilian", "Japanese"). Whole parts
// only: "new materials" names no place although "New Delhi" and "New Zealand" are locations.
import { tokenize } from './text.js';

export interface Place {
  /** The location part as the corpus writes it ("Nairobi"). */
  name: string;
  /** Its words, folded ("nairobi"). */
  words: string[];
  /** The query's words that named it ("nairobi", or "kenyan" for Kenya). */
  queryWords: string[];
}

/** The parts of one location value, folded: "Nairobi, Kenya" → [["nairobi"], ["kenya"]]. */
export function locationParts(location: string): { name: string; words: string[] }[] {
  return location
    .split(/[,;/]/)
    .map((part) => part.trim())
    .filter((part) => part.length > 0)
    .map((name) => ({ name, words: tokenize(name) }))
    .filter((part) => part.words.length > 0);
}

// No '-ish': too few demonyms follow the rule (Danish, Spanish) and it makes words of places (Pune → punish).
const DEMONYM_ENDINGS = ['n', 'an', 'ian', 'ese', 'i'];

/** Whether `word` is `place` + a demonym ending (Kenya → Kenyan, Brazil → Brazilian, China → Chinese). */
export function isDemonym(word: string, place: string): boolean {
  if (place.length < 4) return false;
  const bases = /[aeiouy]$/.test(place) ? [place, place.slice(0, -1)] : [place];
  return bases.some((base) => DEMONYM_ENDINGS.some((ending) => word === base + ending));
}

function indexOfRun(haystack: readonly string[], needle: readonly string[]): number {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/** The places of these location values that the query names, each once. */
export function placesIn(query: string, locations: Iterable<string>): Place[] {
  const words = tokenize(query);
  const found = new Map<string, Place>();
  for (const location of locations) {
    for (const part of locationParts(location)) {
      const key = part.words.join(' ');
      if (found.has(key)) continue;
      const at = indexOfRun(words, part.words);
      if (at >= 0) {
        found.set(key, { ...part, queryWords: words.slice(at, at + part.words.length) });
        continue;
      }
      const only = part.words.length === 1 ? part.words[0]! : null;
      const demonym = only ? words.find((w) => isDemonym(w, only)) : undefined;
      if (demonym) found.set(key, { ...part, queryWords: [demonym] });
    }
  }
  return [...found.values()];
}

/** Whether a location value lies in the place (holds the place's words as a run). */
export function isIn(location: string | null | undefined, place: Place): boolean {
  return location ? indexOfRun(tokenize(location), place.words) >= 0 : false;
}
