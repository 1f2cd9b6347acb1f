// The normalize step: the person's own fields made consistent before anything is looked up with
// them or stored. The identifier rules (ORCID iD and LinkedIn URL forms) are the shared ones of
// services/kit/identifiers.ts, so enrichment and the communities service agree on them. Also the
// name and organisation keys the providers match people and institutions by.
import * as identifiers from '../../kit/identifiers.js';
import type { NormalizedPerson, PersonInput } from './types.js';

/** Trimmed with inner whitespace collapsed to single spaces; empty → null. */
export function collapseWhitespace(text: string | null | undefined): string | null {
  if (!text) return null;
  const collapsed = text.replace(/\s+/g, ' ').trim();
  return collapsed === '' ? null : collapsed;
}

// ---- casing --------------------------------------------------------------------------------------

/** Lower-case words of names that stay lower-case inside a name ("Ludwig van Beethoven"). */
const NAME_PARTICLES = new Set(['van', 'der', 'den', 'de', 'del', 'della', 'di', 'da', 'du', 'dos', 'das', 'do', 'von', 'zu', 'la', 'le', 'ter', 'ten', 'bin', 'ibn', 'y']);
/** Short words that stay lower-case inside an organisation or place name ("University of Oslo"). */
const SMALL_WORDS = new Set(['of', 'and', 'for', 'the', 'in', 'at', 'on', 'upon', 'de', 'du', 'des', 'la', 'le', 'der', 'für', 'und', 'y', 'et', 'am', 'sur']);
/** Country codes written as words after a comma that stay upper-case ("Boston, USA"). */
const UPPER_WORDS = new Set(['usa', 'uk', 'uae', 'us', 'eu']);

export type CasingKind = 'name' | 'organization' | 'location';

/** True when the text's letters are all upper-case or all lower-case: a form nobody writes on purpose. */
function wronglyCased(text: string): boolean {
  const upper = /\p{Lu}/u.test(text);
  const lower = /\p{Ll}/u.test(text);
  return upper !== lower;
}

/** "o'brien" → "O'Brien", "jean-pierre" → "Jean-Pierre", "mcdonald" → "McDonald", "children's" → "Children's". */
function capitaliseWord(word: string): string {
  return word
    .toLowerCase()
    .replace(/(^|[-'’])(\p{L})(\p{L}*)/gu, (match, separator: string, first: string, rest: string) =>
      // An apostrophe's lone "s" is a possessive, not a new name part.
      /['’]/.test(separator) && first === 's' && rest === '' ? match : separator + first.toUpperCase() + rest,
    )
    .replace(/^Mc(\p{Ll})/u, (_m, letter: string) => `Mc${letter.toUpperCase()}`);
}

/**
 * Re-cases a name, organisation or place only when it is ALL-CAPS or all lower-case; anything else
 * is kept as written ("McDonald", "deVries" and "ETH Zürich" are the person's own spelling).
 */
export function recase(text: string, kind: CasingKind): string {
  if (!wronglyCased(text)) return text;
  // A lone short all-caps organisation is an acronym (MIT, CERN, NASA), not a shouted word.
  if (kind === 'organization' && /^\p{Lu}{2,5}$/u.test(text)) return text;
  const lowerSet = kind === 'name' ? NAME_PARTICLES : SMALL_WORDS;
  let afterComma = false;
  return text
    .split(' ')
    .map((word, index) => {
      const bare = word.toLowerCase().replace(/[,.;]+$/, '');
      const follows = afterComma;
      afterComma = word.endsWith(',');
      if (index > 0 && lowerSet.has(bare)) return word.toLowerCase();
      // "Cambridge, MA": a two-letter region or country code after a comma.
      if (kind === 'location' && follows && (/^\p{L}{2}$/u.test(bare) || UPPER_WORDS.has(bare))) return word.toUpperCase();
      return capitaliseWord(word);
    })
    .join(' ');
}

// ---- ORCID iD ------------------------------------------------------------------------------------

export { orcidCheckCharacter } from '../../kit/identifiers.js';

/**
 * An ORCID iD in its bare form (`0000-0002-1825-0097`, hyphens optional, `x` or `X`) or as an
 * orcid.org URL, as `0000-0000-0000-000X`; or why it is not one. The reasons never repeat the value
 * (they are stored and traced).
 */
export function normalizeOrcid(input: string): { orcid: string } | { problem: string } {
  const result = identifiers.normalizeOrcid(input);
  return result.ok ? { orcid: result.value } : { problem: `orcid ${result.problem}` };
}

/** The bare iD of a valid ORCID iD or URL (as OpenAlex writes them), else null. */
export function orcidOrNull(input: string | null | undefined): string | null {
  if (!input) return null;
  const result = normalizeOrcid(input);
  return 'orcid' in result ? result.orcid : null;
}

// ---- LinkedIn URL --------------------------------------------------------------------------------

/**
 * A LinkedIn profile URL in any scheme-less, http or https form on linkedin.com or a subdomain
 * (www., uk., m.) as `https://www.linkedin.com/in/<handle>`; anything but a /in/ profile URL is null.
 */
export function normalizeLinkedinUrl(input: string): string | null {
  const result = identifiers.normalizeLinkedinUrl(input);
  return result.ok ? result.value : null;
}

// ---- the step ------------------------------------------------------------------------------------

/** The person as every later step sees them, and what was dropped (for the step's reason). */
export function normalizePerson(person: PersonInput): { person: NormalizedPerson; problems: string[] } {
  const problems: string[] = [];
  const cased = (text: string | null, kind: CasingKind) => (text === null ? null : recase(text, kind));
  let orcid: string | null = null;
  let orcidProblem: string | undefined;
  const rawOrcid = collapseWhitespace(person.orcid);
  if (rawOrcid) {
    const result = normalizeOrcid(rawOrcid);
    if ('orcid' in result) orcid = result.orcid;
    else problems.push((orcidProblem = `${result.problem}; dropped`));
  }
  const rawLinkedin = collapseWhitespace(person.linkedinUrl);
  const linkedinUrl = rawLinkedin ? normalizeLinkedinUrl(rawLinkedin) : null;
  if (rawLinkedin && !linkedinUrl) problems.push('linkedin_url is not a LinkedIn profile URL; dropped');
  return {
    person: {
      profileId: person.profileId,
      name: cased(collapseWhitespace(person.name), 'name') ?? '',
      headline: collapseWhitespace(person.headline),
      bio: collapseWhitespace(person.bio),
      organization: cased(collapseWhitespace(person.organization), 'organization'),
      location: cased(collapseWhitespace(person.location), 'location'),
      orcid,
      linkedinUrl,
      ...(orcidProblem ? { orcidProblem } : {}),
    },
    problems,
  };
}

// ---- matching keys -------------------------------------------------------------------------------

/** Lower-case words without accents or punctuation. */
export function foldedWords(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
}

const HONORIFICS = new Set(['dr', 'prof', 'professor', 'mr', 'mrs', 'ms', 'mx', 'sir', 'dame', 'phd', 'md', 'jr', 'sr']);

/** A name's words for matching: folded, without titles ("Dr. María Núñez, PhD" → maria nunez). */
function nameWords(name: string): string[] {
  return foldedWords(name).filter((w) => !HONORIFICS.has(w));
}

/** The key two spellings of one name share ("Dr. María Núñez" and "maria nunez"). */
export function nameKey(name: string): string {
  return nameWords(name).join(' ');
}

/**
 * Whether two names are close enough to be one person's: the same words, or the same family name
 * (last word) with first names that agree or where one is the other's initial ("M. Lindqvist").
 */
export function namesMatch(a: string, b: string): boolean {
  const x = nameWords(a);
  const y = nameWords(b);
  if (x.length === 0 || y.length === 0) return false;
  if (x.join(' ') === y.join(' ')) return true;
  if (x.length < 2 || y.length < 2 || x.at(-1) !== y.at(-1)) return false;
  const [p, q] = [x[0]!, y[0]!];
  return p === q || (p.length === 1 && q.startsWith(p)) || (q.length === 1 && p.startsWith(q));
}

/** Words every other institution has too: they say nothing about which one is meant. */
const GENERIC_ORG_WORDS = new Set([
  'university', 'universidad', 'universitat', 'universite', 'universita', 'universiteit', 'institute', 'institutet', 'institut',
  'instituto', 'college', 'school', 'of', 'the', 'for', 'and', 'de', 'la', 'department', 'dept', 'centre', 'center', 'lab',
  'laboratory', 'hospital', 'inc', 'ltd', 'llc', 'gmbh', 'ag', 'sa', 'foundation',
]);

/**
 * Whether two organisation names are the same institution: their distinctive words agree, one set
 * containing the other ("Karolinska Institutet" ~ "Karolinska Institute", "Oxford University" ~
 * "University of Oxford"; "University of California, Berkeley" is not "…, San Diego").
 */
export function organizationsMatch(a: string, b: string): boolean {
  const x = foldedWords(a);
  const y = foldedWords(b);
  if (x.length === 0 || y.length === 0) return false;
  const dx = new Set(x.filter((w) => !GENERIC_ORG_WORDS.has(w)));
  const dy = new Set(y.filter((w) => !GENERIC_ORG_WORDS.has(w)));
  if (dx.size === 0 || dy.size === 0) return x.join(' ') === y.join(' ');
  const [small, large] = dx.size <= dy.size ? [dx, dy] : [dy, dx];
  for (const w of small) if (!large.has(w)) return false;
  return true;
}
