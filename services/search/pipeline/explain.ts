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
  /** A misspelled query word (term, as typed) found as this lexeme of the corpora (spelling.ts). */
  spelling?: string;
}

/**
 * The standing is read from the evidence (Coverage.evidence, term-coverage.ts: each word of the
 * request by the field it is found in, a related or corrected word below a typed one, a word only
 * in an organization's name as weak evidence, a place named counting as two words): below
 * WEAK_EVIDENCE a match is weak (unless the name or organization resembles the request: then it is
 * said to be carried by that), from GOOD_EVIDENCE good, between them partial. The weak flag
 * (candidate-scoring.ts) reads the same share, so the two never disagree.
 */
export const WEAK_EVIDENCE = 0.25;
export const GOOD_EVIDENCE = 0.5;

/** The texts quoted from: the person's in-scope documents, the displayed one first. */
export type ProfileText = Partial<Record<FieldName, string | null>>;

export interface ExplainInput {
  /** The request as typed (said when the name resembles it). */
  query: string;
  /** The request's own words as typed (content words, one per stem). */
  queryWords: readonly string[];
  matches: readonly TermMatch[];
  /** Places the request names, and whether the person is in each. */
  places: readonly { place: Place; matched: boolean }[];
  texts: readonly ProfileText[];
  /** The displayed location (said when a place was asked for). */
  location: string | null;
  name: string;
  organization: string | null;
  nameSim: number;
  orgSim: number;
  /** The share of the request found (term-coverage.ts Coverage.evidence): the standing reads it. */
  evidence: number;
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

/** The profile's own spelling of a lexeme: its first word with that stem in these fields. */
function surfaceOf(texts: readonly ProfileText[], fields: readonly FieldName[], lexeme: string): string {
  for (const field of QUOTED) {
    if (!fields.includes(field)) continue;
    for (const text of texts) {
      const word = tokenize(text[field] ?? '').find((w) => stem(w) === lexeme);
      if (word) return word;
    }
  }
  return lexeme;
}

export function explain(x: ExplainInput): string {
  const sentences: string[] = [];
  const direct = x.matches.filter((m) => !m.expansion);
  const related = x.matches.filter((m) => m.expansion).slice(0, 3);
  const placeWords = new Set(x.places.flatMap((p) => p.place.queryWords.map(stem)));
  // A place word's location match is said by the place sentence below, not as a matched word.
  const inFields = direct
    .map((m) => (placeWords.has(stem(m.term)) ? { ...m, fields: m.fields.filter((f) => f !== 'location') } : m))
    .filter((m) => m.fields.length > 0);
  // Said apart: a word only in an organization's name is weak evidence, a corrected word is not the word typed.
  const orgOnly = inFields.filter((m) => !m.spelling && m.fields.every((f) => f === 'organization'));
  const spelled = inFields.filter((m) => m.spelling);
  const topical = inFields.filter((m) => !orgOnly.includes(m) && !spelled.includes(m));

  if (topical.length > 0) {
    const fields = fieldsOf(topical);
    const quotes = passages(x.texts, fields, stemsOf(topical), 2);
    sentences.push(`Matches ${list(quoted(topical.map((m) => m.term)))} in the ${list(fields.map((f) => LABEL[f]))}${quotes.length > 0 ? `: ${quotes.join('; ')}` : ''}.`);
  }
  for (const m of spelled) {
    const quotes = passages(x.texts, m.fields, new Set([m.spelling!]), 1);
    sentences.push(`Read as a misspelling: ${m.term} → ${surfaceOf(x.texts, m.fields, m.spelling!)}, in the ${list(m.fields.map((f) => LABEL[f]))}${quotes.length > 0 ? `: ${quotes[0]}` : ''}.`);
  }
  if (orgOnly.length > 0 && x.organization) {
    sentences.push(`${list(quoted(orgOnly.map((m) => m.term)))} only in the organization's name (${x.organization}), which says little of the person's work.`);
  }
  for (const m of related) {
    const e = m.expansion!;
    const quotes = passages(x.texts, m.fields, stemsOf([m]), 1);
    sentences.push(
      `Related: "${m.term}" (a ${e.relation} of "${e.from}") in the ${list(m.fields.map((f) => LABEL[f]))}${quotes.length > 0 ? `: ${quotes[0]}` : ''}.`,
    );
  }
  const found = new Set([...topical, ...spelled].map((m) => stem(m.term)));
  for (const m of related) for (const w of tokenize(m.expansion!.from)) found.add(stem(w));
  const said = new Set([...found, ...orgOnly.map((m) => stem(m.term))]);
  const missing = x.queryWords.filter((w) => !said.has(stem(w)) && !placeWords.has(stem(w)));
  if (missing.length > 0 && said.size > 0) sentences.push(`Not found: ${list(quoted(missing), 'or')}.`);

  for (const { place, matched } of x.places) {
    if (matched) sentences.push(`In ${place.name}, as asked (${x.location ?? place.name}).`);
    else sentences.push(x.location ? `Not in ${place.name}, which the request names: located in ${x.location}.` : `No location given; the request names ${place.name}.`);
  }
  if (x.nameSim >= 0.5) sentences.push(`The name resembles the request: "${x.name}" for "${x.query}".`);
  else if (x.orgSim >= 0.5) sentences.push(`The organization resembles the request: "${x.organization}" for "${x.query}".`);
  if (said.size === 0 && related.length === 0 && x.nameSim < 0.5 && x.orgSim < 0.5) {
    // Close in meaning only when it is: a request of stop words alone ("the of and") has no meaning
    // to be close to, and finds people by those words in an organization's name.
    sentences.push(x.semantic > 0
      ? `No word of the request appears in the profile; it was found as close in meaning (similarity ${x.semantic.toFixed(2)}).`
      : 'No word of the request appears in the profile.');
  }
  const inPlace = x.places.some((p) => p.matched);
  const counted = x.queryWords.filter((w) => found.has(stem(w)) || (inPlace && placeWords.has(stem(w)))).length;
  const spelledStems = new Set(spelled.map((m) => stem(m.term)));
  const byRelated = x.queryWords.some((w) => !topical.some((m) => stem(m.term) === stem(w)) && !spelledStems.has(stem(w)) && found.has(stem(w)));
  sentences.push(standing(x, counted, { related: byRelated, spelled: spelledStems.size > 0 }));
  if (x.degraded) sentences.push(`Degraded: ${x.degraded}.`);
  if (x.rerank !== null) sentences.push(`Reordered by the relevance service (relative score ${x.rerank.toFixed(2)}).`);
  if (x.rerankNote) sentences.push(`Degraded: ${x.rerankNote}.`);
  if (x.communities.length > 0) sentences.push(`In communities ${list(x.communities)}.`);
  return sentences.join(' ');
}

/** How good the match is (WEAK_EVIDENCE, GOOD_EVIDENCE) and how much of the request was found, in a sentence. */
function standing(x: ExplainInput, counted: number, by: { related: boolean; spelled: boolean }): string {
  const asked = x.queryWords.length;
  const placeNote = x.places.length > 0 ? (x.places.some((p) => p.matched) ? ', in the place asked for' : ', outside the place asked for') : '';
  // "3 of 5 words of the request found", "none of the 2 words…", "the one word of the request found".
  const one = by.related ? 'a related word' : 'a corrected spelling';
  const some = [...(by.related ? ['related words'] : []), ...(by.spelled ? ['corrected spellings'] : [])].join(' and ');
  const share = asked === 1
    ? `the one word of the request ${counted === 1 ? 'found' : 'not found'}${by.related || by.spelled ? ` (through ${one})` : ''}`
    : `${counted === 0 ? 'none of the' : `${counted} of`} ${asked} words of the request found${some ? ` (some through ${some})` : ''}`;
  const of = asked > 0 ? `${share}${placeNote}` : '';
  if (x.weak) return `Weak match${of ? `: ${counted > 0 ? 'only ' : ''}${of}` : ''}; nothing here fits the request well.`;
  const label = x.evidence < WEAK_EVIDENCE
    ? (x.nameSim >= 0.5 ? 'Match by name resemblance' : 'Match by organization resemblance')
    : x.evidence >= GOOD_EVIDENCE ? 'Good match' : 'Partial match';
  return `${label}${of ? `: ${of}` : ''}.`;
}
