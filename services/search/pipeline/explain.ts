// Explanations a searcher reads: which words of the request the profile holds and where, quoted
// ("Matches "crispr" and "editing" in the headline: "Group Leader | **CRISPR** base **editing**…""),
// related words found in their stead, words not found, the place asked for, and in plain words why
// the person stands where they do (a strong match, or a weak one when little of the request fits).
// No machinery is named: no embedder, index or fusion method, only what the profile says.
import type { Expansion } from './wordnet.js';
import type { Place } from './place.js';
import { passage } from './snippet.js';
import { stem, tokenize } from './text.js';

export type FieldName = 'name' | 'headline' | 'organization' | 'location' | 'bio' | 'enrichment_text';

/** A query word (expansion null) or an expansion, and the fields of the person holding it. */
export interface TermMatch {
  term: string;
  fields: FieldName[];
  expansion: Expansion | null;
}

/** The texts quoted from: the person's in-scope documents, the displayed one first. */
export type ProfileText = Partial<Record<FieldName, string | null>>;

export interface ExplainInput {
  /** The request's own words as typed (content words, one per stem). */
  queryWords: readonly string[];
  matches: readonly TermMatch[];
  /** Places the request names, and whether the person is in each. */
  places: readonly { place: Place; matched: boolean }[];
  texts: readonly ProfileText[];
  /** The displayed location (said when a place was asked for). */
  location: string | null;
  nameSim: number;
  orgSim: number;
  /** Similarity in meaning of the request and the profile (0–1). */
  semantic: number;
  weak: boolean;
  degraded: string | null;
  rerank: number | null;
  rerankNote: string | null;
  communities: readonly string[];
}

const LABEL: Record<FieldName, string> = {
  name: 'name',
  headline: 'headline',
  organization: 'organization',
  location: 'location',
  bio: 'bio',
  enrichment_text: 'enrichment notes',
};
/** Quoted in this order; a name or a location is short and said whole elsewhere. */
const QUOTED: readonly FieldName[] = ['headline', 'bio', 'organization', 'enrichment_text', 'name'];

export function list(items: readonly string[], and = 'and'): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} ${and} ${items[items.length - 1]}`;
}

const quoted = (words: readonly string[]) => words.map((w) => `"${w}"`);

/** A passage's words alone (no bold, no ellipsis), to tell when one quote repeats another. */
const plainOf = (quote: string) => quote.replace(/\*\*|…/g, '').replace(/\s+/g, ' ').trim().toLowerCase();

/**
 * Quoted passages of the first documents holding these stems, at most `max`, headline first. A
 * passage already inside another is quoted once (a headline is often the bio's first sentence):
 * the longer one stays.
 */
function passages(texts: readonly ProfileText[], fields: readonly FieldName[], stems: ReadonlySet<string>, max: number): string[] {
  const out: string[] = [];
  for (const field of QUOTED) {
    if (!fields.includes(field) || out.length >= max) continue;
    for (const text of texts) {
      const value = text[field];
      const found = value ? passage(value, stems) : null;
      if (!found) continue;
      const plain = plainOf(found);
      const inside = out.findIndex((q) => plain.includes(plainOf(q)));
      if (inside >= 0) out[inside] = found;
      else if (!out.some((q) => plainOf(q).includes(plain))) out.push(found);
      break;
    }
  }
  return out.map((q) => `"${q}"`);
}

function fieldsOf(matches: readonly TermMatch[]): FieldName[] {
  const set = new Set(matches.flatMap((m) => m.fields));
  return (['name', 'headline', 'organization', 'location', 'bio', 'enrichment_text'] as const).filter((f) => set.has(f));
}

function stemsOf(matches: readonly TermMatch[]): Set<string> {
  return new Set(matches.flatMap((m) => tokenize(m.term).map(stem)));
}

export function explain(x: ExplainInput): string {
  const sentences: string[] = [];
  const direct = x.matches.filter((m) => !m.expansion);
  const related = x.matches.filter((m) => m.expansion).slice(0, 3);
  const placeWords = new Set(x.places.flatMap((p) => p.place.queryWords.map(stem)));
  // A place word's location match is said by the place sentence below, not as a matched word.
  const topical = direct
    .map((m) => (placeWords.has(stem(m.term)) ? { ...m, fields: m.fields.filter((f) => f !== 'location') } : m))
    .filter((m) => m.fields.length > 0);

  if (topical.length > 0) {
    const fields = fieldsOf(topical);
    const quotes = passages(x.texts, fields, stemsOf(topical), 2);
    sentences.push(`Matches ${list(quoted(topical.map((m) => m.term)))} in the ${list(fields.map((f) => LABEL[f]))}${quotes.length > 0 ? `: ${quotes.join('; ')}` : ''}.`);
  }
  for (const m of related) {
    const e = m.expansion!;
    const quotes = passages(x.texts, m.fields, stemsOf([m]), 1);
    sentences.push(
      `Related: "${m.term}" (a ${e.relation} of "${e.from}") in the ${list(m.fields.map((f) => LABEL[f]))}${quotes.length > 0 ? `: ${quotes[0]}` : ''}.`,
    );
  }
  const found = new Set([...direct.map((m) => stem(m.term)), ...related.flatMap((m) => tokenize(m.expansion!.from).map(stem))]);
  const missing = x.queryWords.filter((w) => !found.has(stem(w)) && !placeWords.has(stem(w)));
  if (missing.length > 0 && (direct.length > 0 || related.length > 0)) sentences.push(`Not found: ${list(quoted(missing), 'or')}.`);

  for (const { place, matched } of x.places) {
    if (matched) sentences.push(`In ${place.name}, as asked (${x.location ?? place.name}).`);
    else sentences.push(x.location ? `Not in ${place.name}, which the request names: located in ${x.location}.` : `No location given; the request names ${place.name}.`);
  }
  if (x.nameSim >= 0.5) sentences.push('The name resembles the request.');
  else if (x.orgSim >= 0.5) sentences.push('The organization resembles the request.');
  if (direct.length === 0 && related.length === 0 && x.nameSim < 0.5 && x.orgSim < 0.5) {
    // Close in meaning only when it is: a request of stop words alone ("the of and") has no meaning
    // to be close to, and finds people by those words in an organization's name.
    sentences.push(x.semantic > 0
      ? `No word of the request appears in the profile; it was found as close in meaning (similarity ${x.semantic.toFixed(2)}).`
      : 'No word of the request appears in the profile.');
  }
  const inPlace = x.places.some((p) => p.matched);
  const counted = x.queryWords.filter((w) => found.has(stem(w)) || (inPlace && placeWords.has(stem(w)))).length;
  const byRelated = x.queryWords.some((w) => !direct.some((m) => stem(m.term) === stem(w)) && found.has(stem(w)));
  sentences.push(standing(x, counted, byRelated));
  if (x.degraded) sentences.push(`Degraded: ${x.degraded}.`);
  if (x.rerank !== null) sentences.push(`Reordered by the relevance service (relative score ${x.rerank.toFixed(2)}).`);
  if (x.rerankNote) sentences.push(`Degraded: ${x.rerankNote}.`);
  if (x.communities.length > 0) sentences.push(`In communities ${list(x.communities)}.`);
  return sentences.join(' ');
}

/** Why the person stands where they do, in a sentence. */
function standing(x: ExplainInput, counted: number, byRelated: boolean): string {
  const asked = x.queryWords.length;
  const placeNote = x.places.length > 0 ? (x.places.some((p) => p.matched) ? ', in the place asked for' : ', outside the place asked for') : '';
  // "3 of 5 words of the request found", "none of the 2 words…", "the one word of the request found".
  const share = asked === 1
    ? `the one word of the request ${counted === 1 ? 'found' : 'not found'}${byRelated ? ' (through a related word)' : ''}`
    : `${counted === 0 ? 'none of the' : `${counted} of`} ${asked} words of the request found${byRelated ? ' (some through related words)' : ''}`;
  const of = asked > 0 ? `${share}${placeNote}` : '';
  if (x.weak) return `Weak match${of ? `: ${counted > 0 ? 'only ' : ''}${of}` : ''}; nothing here fits the request well.`;
  return `Good match${of ? `: ${of}` : ''}.`;
}
