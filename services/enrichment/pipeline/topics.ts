// The topics step: what a person works on (topics) and what they can do (skills), read from their
// own headline and bio with compromise's part-of-speech tagger. It runs for every person at every
// tier, so it asks compromise for tags only and walks the tagged words once itself: compromise's
// phrase selections (.nouns(), .json()) and its context pass cost several times the tagging.
//   topics — noun phrases (adjectives then nouns), without pronouns, the person's own name, their
//            organisation, role nouns ("protein folding researcher" → "protein folding") and
//            filler ("our work", "several groups").
//   skills — a skill verb and its object ("teaching bioinformatics"), what follows "uses"/"applies",
//            and method or tool nouns ("x-ray crystallography", "deep learning models", "python").
import nlp from 'compromise';
import { foldedWords, organizationsMatch } from './normalize.js';
import type { Step } from './types.js';

export const MAX_TOPICS = 10;
export const MAX_SKILLS = 10;
/** Topics live in the first paragraphs; the rest of a long bio would only cost tagging time. */
const MAX_TEXT = 2000;
/**
 * compromise's passes that run: tokens, the lexicon and the suffix/neighbour tagger. Its
 * postTagger (about a thousand context patterns) would triple the cost of the step; the cases it
 * settles that matter for noun phrases are settled by settleRoles() below.
 */
const TAGGING = ['index', 'lexicon', 'preTagger'];
const LEXICON = (nlp.world() as { model: { one: { lexicon: Record<string, string | undefined> } } }).model.one.lexicon;

const wordSet = (list: string) => new Set(list.split(/\s+/));

/** Words after which a verb follows ("a group that combines…"). */
const RELATIVES = wordSet('that which who');

/** Nouns that name no subject on their own. */
const GENERIC = wordSet(
  'work works research team teams group groups lab labs focus intersection experience projects project questions question ' +
    'field fields area areas interest interests collaboration collaborations partner partners journal journals day days year ' +
    'years role roles member members people person thing things way ways part parts lot range variety number kind kinds type ' +
    'types time times career background expertise topic topics problem problems issue issues approach approaches application ' +
    'applications use uses level levels side today tool tools tooling method methods world life study studies student students ' +
    'colleague colleagues client clients company companies organisation organization account accounts university institute ' +
    'college school hospital centre center department laboratory laboratories data staff industry',
);

/** Adjectives that qualify nothing a search would look for. */
const GENERIC_ADJECTIVES = wordSet(
  'new current recent several various many small large big other own main early-career senior junior happy open key major ' +
    'general good great best first different previous former day-to-day',
);

/** Nouns naming a role, not a subject ("research engineer", "principal investigator"). */
const ROLE_NOUNS = wordSet(
  'engineer scientist researcher professor lecturer fellow director manager consultant physician economist investigator ' +
    'leader head candidate postdoc analyst developer designer officer advisor adviser architect founder cofounder co-founder ' +
    'ceo cto cfo coo lead chair editor admin administrator specialist expert practitioner associate assistant intern',
);

/** Method nouns: a phrase up to one is a skill ("x-ray crystallography", "deep learning models"). */
const SKILL_SUFFIX =
  /(?:graphy|scopy|metry|omics|matics|statistics|analysis|analytics|modelling|modeling|simulation|programming|engineering|sequencing|imaging|learning|design|mining|visuali[sz]ation)$/;
/** Tools and techniques named by one word: a skill wherever they appear. */
const SKILL_WORDS = wordSet(
  'python r sql rust java javascript typescript c++ c# go julia matlab stata spss sas scala kotlin swift haskell fortran ' +
    'pytorch tensorflow keras jax kubernetes docker aws gcp azure spark hadoop excel tableau latex git linux react crispr ' +
    'pcr qpcr nmr gis statistics econometrics biostatistics rlhf cryo-em cryo-et',
);

/** -ing words that are nouns even where a verb could stand ("computing at scale"). */
const NOMINAL_ING = wordSet('computing processing planning testing screening manufacturing marketing accounting banking nursing fundraising publishing networking tooling forecasting');

/** Verbs whose object is something the person does: "teach bioinformatics" → "teaching bioinformatics". */
const SKILL_VERBS = [
  'analyse', 'analyze', 'build', 'consult', 'design', 'develop', 'implement', 'manage', 'mentor', 'optimise', 'optimize',
  'review', 'simulate', 'teach', 'train', 'write', 'advise', 'coach', 'deploy', 'automate', 'audit', 'negotiate',
  'edit', 'translate', 'curate', 'supervise', 'lecture',
];
const IRREGULAR: Record<string, string[]> = { build: ['built'], teach: ['taught'], write: ['wrote', 'written'] };

/** Every inflection of a skill verb → its gerund ("teaches", "taught"… → "teaching"). */
const SKILL_VERB_FORMS = new Map<string, string>(
  SKILL_VERBS.flatMap((verb) => {
    const stem = verb.endsWith('e') ? verb.slice(0, -1) : verb;
    const third = /(?:sh|ch|s|x|z)$/.test(verb) ? `${verb}es` : `${verb}s`;
    const past = verb.endsWith('e') ? `${verb}d` : `${verb}ed`;
    return [verb, third, past, `${stem}ing`, ...(IRREGULAR[verb] ?? [])].map((form) => [form, `${stem}ing`] as [string, string]);
  }),
);
/** Verbs whose object is a method the person uses: "uses cryo-EM" → "cryo-em". */
const USE_VERBS = wordSet('use uses used using apply applies applied applying employ employs employing leverage leverages leveraging');

type Role = 'noun' | 'adjective' | 'verb' | 'other';

interface Word {
  /** Lower-case, hyphenated parts joined ("cryo-electron"). */
  text: string;
  tags: Set<string>;
  role: Role;
  /** Written with a capital: the tagger's name and place tags are trusted only then ("grant proposals"). */
  capitalised: boolean;
  /** A clause ends after this word (punctuation follows it). */
  breaksAfter: boolean;
}

function roleOf(tags: Set<string>): Role {
  if (tags.has('Date') || tags.has('Pronoun') || tags.has('Possessive')) return 'other';
  if (tags.has('Noun')) return 'noun';
  if (tags.has('Adjective')) return 'adjective';
  return tags.has('Verb') ? 'verb' : 'other';
}

/**
 * The words of each sentence with their role. Hyphenated parts become one word: a noun when the
 * last part is one ("cryo-electron"), else an adjective ("self-supervised"). Words in parentheses
 * are left out: they restate what precedes them ("antimicrobial resistance (AMR)").
 */
function taggedSentences(text: string): Word[][] {
  const doc = nlp.tokenize(text).compute(TAGGING);
  return doc.docs.map((terms) => {
    const out: Word[] = [];
    let parts: string[] = [];
    let inParentheses = false;
    for (const term of terms) {
      const post = term.post ?? '';
      if ((term.pre ?? '').includes('(')) inParentheses = true;
      if (inParentheses) {
        if (post.includes(')')) {
          inParentheses = false;
          if (/[^\s)]/.test(post) && out.length > 0) out.at(-1)!.breaksAfter = true;
        }
        continue;
      }
      // "C++", "C#": the tokenizer leaves the symbols in the punctuation after the word.
      const symbols = /^[+#]+/.exec(post)?.[0] ?? '';
      const after = post.slice(symbols.length);
      parts.push((term.normal || term.text.toLowerCase()) + symbols);
      if (after === '-') continue;
      const tags = term.tags ?? new Set<string>();
      let role = roleOf(tags);
      if (parts.length > 1 && role !== 'noun') role = 'adjective';
      out.push({ text: parts.join('-'), tags, role, capitalised: /^\p{Lu}/u.test(term.text), breaksAfter: /[^\s-]/.test(after) || /^-\s/.test(after) });
      parts = [];
    }
    return out;
  });
}

const inPhrase = (w: Word | undefined) => w !== undefined && !w.breaksAfter && (w.role === 'noun' || w.role === 'adjective');
const takesNounPhrase = (w: Word) => w.role === 'noun' || w.role === 'adjective' || w.tags.has('Determiner');
const opensPhrase = (w: Word | undefined) => w === undefined || w.breaksAfter || w.tags.has('Determiner') || w.tags.has('Preposition') || w.tags.has('Conjunction') || w.role === 'adjective';

/**
 * Settles what the tagger cannot without its context pass:
 *  - an -ing word is a noun when it names a method ("sequencing studies"), or ends a phrase, or
 *    continues one without taking an object ("satellite remote sensing used…"); a verb otherwise
 *    ("developing methods", "working on"); a skill verb only ends a phrase ("grant writing.");
 *  - an -ed verb opening a phrase before a noun is an adjective ("in distributed systems");
 *  - an "-s" verb right after a noun, with no object after it, is a plural noun ("…experts models.",
 *    "general circulation models can…");
 *  - a plural noun the lexicon knows as a verb, between a subject (or "that", "also", a list) and
 *    its object, is a verb ("a group that combines cryo-EM with…", "also mentors students").
 */
function settleRoles(sentence: Word[]): void {
  sentence.forEach((w, i) => {
    const previous = sentence[i - 1];
    const next = sentence[i + 1];
    const ends = w.breaksAfter || next === undefined;
    // A name before it ("Karolinska Institutet developing…") ends a phrase rather than starts one.
    const afterPhraseWord = inPhrase(previous) && !(previous!.capitalised && previous!.tags.has('ProperNoun'));
    if (w.text.endsWith('ing') && (w.tags.has('Gerund') || w.role === 'noun')) {
      const verbish = SKILL_VERB_FORMS.has(w.text) || USE_VERBS.has(w.text);
      const takesObject = !ends && (next!.tags.has('Preposition') || next!.tags.has('Determiner'));
      const nominal = NOMINAL_ING.has(w.text) || SKILL_SUFFIX.test(w.text) || (afterPhraseWord && (verbish ? ends : !takesObject));
      w.role = nominal ? 'noun' : 'verb';
    } else if (w.role === 'verb' && w.tags.has('PastTense') && w.text.endsWith('ed') && !ends && next!.role === 'noun' && opensPhrase(previous)) {
      w.role = 'adjective';
    } else if (w.role === 'verb' && w.tags.has('PresentTense') && w.text.endsWith('s') && previous?.role === 'noun' && !previous.breaksAfter && (ends || !takesNounPhrase(next!))) {
      w.role = 'noun';
    } else if (w.role === 'noun' && w.tags.has('Plural') && (LEXICON[w.text] === 'PresentTense' || SKILL_VERB_FORMS.has(w.text)) && !ends && takesNounPhrase(next!)) {
      const subjectOrListBefore =
        previous === undefined || previous.breaksAfter || previous.tags.has('Conjunction') || previous.tags.has('Adverb') || previous.role === 'noun' || RELATIVES.has(previous.text);
      if (subjectOrListBefore) w.role = 'verb';
    }
  });
}

/** Noun phrases: adjectives then nouns, split at punctuation and at any other word. */
function nounPhrases(sentence: Word[]): Word[][] {
  const phrases: Word[][] = [];
  let run: Word[] = [];
  const flush = () => {
    while (run.length > 0 && run.at(-1)!.role !== 'noun') run.pop();
    while (run.length > 1 && run[0]!.role === 'adjective' && GENERIC_ADJECTIVES.has(run[0]!.text)) run.shift();
    if (run.length > 0) phrases.push(run);
    run = [];
  };
  for (const w of sentence) {
    // An adjective after a noun starts a new phrase: "studies | non-communicable diseases".
    if (w.role === 'adjective' && run.at(-1)?.role === 'noun') flush();
    if (w.role === 'noun' || w.role === 'adjective') {
      run.push(w);
      if (w.breaksAfter) flush();
    } else flush();
  }
  flush();
  return phrases;
}

/** The noun phrase a verb takes as its object, at most four words. */
function objectAt(sentence: Word[], from: number): Word[] {
  const object: Word[] = [];
  for (let i = from; i < sentence.length && object.length < 4; i++) {
    const w = sentence[i]!;
    if (w.tags.has('Determiner') && object.length === 0) continue;
    if (w.role !== 'noun' && w.role !== 'adjective') break;
    if (w.role === 'adjective' && object.at(-1)?.role === 'noun') break;
    object.push(w);
    if (w.breaksAfter) break;
  }
  while (object.length > 0 && object.at(-1)!.role !== 'noun') object.pop();
  return object;
}

const textOf = (phrase: Word[]) => phrase.map((w) => w.text).join(' ');
const isRole = (w: Word) => w.tags.has('Actor') || ROLE_NOUNS.has(w.text);

/** A phrase without the role it ends in: "protein folding researcher" → "protein folding", "computational biologist" → "". */
function withoutRole(phrase: Word[]): Word[] {
  const out = [...phrase];
  while (out.length > 0 && (isRole(out.at(-1)!) || out.at(-1)!.role !== 'noun')) out.pop();
  return out;
}

const isGeneric = (phrase: Word[]) => phrase.every((w) => GENERIC.has(w.text) || GENERIC_ADJECTIVES.has(w.text));

/** Counts phrases by a crudely singular key, keeping the first spelling. */
class Tally {
  private readonly entries = new Map<string, { text: string; count: number; order: number }>();

  add(phrase: string): void {
    const key = phrase.replace(/(?<![su])s\b/g, '');
    const entry = this.entries.get(key);
    if (entry) entry.count++;
    else this.entries.set(key, { text: phrase, count: 1, order: this.entries.size });
  }

  /** Most frequent first, then in order of appearance (the headline comes first). */
  top(limit: number): string[] {
    return [...this.entries.values()]
      .sort((a, b) => b.count - a.count || a.order - b.order)
      .slice(0, limit)
      .map((e) => e.text);
  }
}

interface TopicsAndSkills {
  topics: string[];
  skills: string[];
}

/** Whose text it is: their name and organisation are never topics of their own text. */
export interface Author {
  name?: string;
  organization?: string | null;
}

/** Topics and skills of a headline and a bio (either may be empty). */
export function extractTopics(headline: string | null, bio: string | null, author: Author = {}): TopicsAndSkills {
  // Headlines separate their parts with symbols ("Data scientist · NLP | Python"): clause breaks.
  const input = [headline, bio]
    .filter((t): t is string => Boolean(t))
    .map((t) => t.replace(/\s+[·•|—–/]\s+/g, ', ').replace(/([^.!?])$/, '$1.'))
    .join(' ')
    .slice(0, MAX_TEXT);
  const ownName = new Set(foldedWords(author.name ?? ''));
  const isOwnName = (w: Word) => w.text.split('-').some((part) => ownName.has(part));
  const topics = new Tally();
  const skills = new Tally();
  for (const sentence of taggedSentences(input)) {
    settleRoles(sentence);
    for (const phrase of nounPhrases(sentence).map(withoutRole)) {
      if (phrase.length === 0 || isGeneric(phrase)) continue;
      const head = phrase.at(-1)!;
      const phraseText = textOf(phrase);
      if (phrase.some((w) => isOwnName(w) || (w.capitalised && (w.tags.has('Person') || w.tags.has('Place'))))) continue;
      if (phrase.every((w) => w.tags.has('Organization')) || (author.organization && organizationsMatch(phraseText, author.organization))) continue;
      // A method word makes the phrase up to it a skill: "deep learning models" → "deep learning".
      const method = phrase.map((w) => SKILL_SUFFIX.test(w.text)).lastIndexOf(true);
      if (method >= 0) skills.add(textOf(phrase.slice(0, method + 1)));
      else if (SKILL_WORDS.has(phraseText)) skills.add(phraseText);
      else for (const w of phrase) if (SKILL_WORDS.has(w.text)) skills.add(w.text);
      if (phrase.length > 1 || head.text.length > 2) topics.add(phraseText);
    }
    sentence.forEach((w, i) => {
      if (w.role !== 'verb') return;
      const gerund = SKILL_VERB_FORMS.get(w.text);
      const object = w.breaksAfter ? [] : objectAt(sentence, i + 1);
      const usable = object.length > 0 && !isGeneric(object) && !object.some(isOwnName);
      // A bare skill verb is a skill only as a gerund ("enjoys teaching"), not "trained in…".
      if (gerund && (usable || w.text === gerund)) skills.add(usable ? `${gerund} ${textOf(object)}` : gerund);
      else if (USE_VERBS.has(w.text) && usable) skills.add(textOf(object));
    });
  }
  return { topics: topics.top(MAX_TOPICS), skills: skills.top(MAX_SKILLS) };
}

export const topicsStep: Step = {
  name: 'topics',
  depth: 'quick',
  async run({ person }) {
    if (!person.headline && !person.bio) return { skipped: 'no headline or bio' };
    return { found: extractTopics(person.headline, person.bio, person) };
  },
};
