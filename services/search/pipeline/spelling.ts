// Misspelled query words ("epidemology"): a word whose lexeme no document of the searched corpora
// holds is searched as the closest lexeme that they do hold ("epidemiolog"), at SPELLING_WEIGHT,
// and the explanation says so (explain.ts). The vocabulary is search.term_stats (migration 007):
// per corpus, kept exact by triggers as documents are indexed, updated and erased, so a
// suggestion is always a word of the corpora searched, never of another community's.
// Closeness is the edit distance (fastest-levenshtein) between lexemes. Candidates are read by the
// statistics table's primary key (corpus, term): the lexemes sharing the word's first two
// letters, of a length within the distance. pg_trgm is not assumed (the store runs without it, and
// the vocabulary has no trigram index); a misspelling in the first two letters is not corrected.
import { distance } from 'fastest-levenshtein';
import type { Queryable } from '../../kit/db/database.js';

/** A corrected word weighs this share of a typed one (BM25 idf, term coverage). */
export const SPELLING_WEIGHT = 0.6;
/** Lexemes shorter than this are not corrected: a short word is one edit away from too many others. */
const MIN_LENGTH = 5;
/** Edits allowed: one up to 7 letters, two from 8. */
const maxEdits = (length: number) => (length >= 8 ? 2 : 1);
/** Words corrected at most per query, and candidate lexemes read per word. */
const MAX_WORDS = 4;
const MAX_CANDIDATES = 2000;

export interface Correction {
  /** The word as typed ("epidemology"). */
  word: string;
  /** Its lexeme, found in no document of the corpora ("epidemolog"). */
  typed: string;
  /** The corpora's lexeme searched instead ("epidemiolog"). */
  lexeme: string;
}

/** The closest candidate within the allowed edits; ties go to the commoner lexeme, then the first in order. */
export function closest(typed: string, candidates: readonly { term: string; df: number }[]): string | null {
  let best: { term: string; d: number; df: number } | null = null;
  for (const c of candidates) {
    if (c.term === typed) continue;
    const d = distance(typed, c.term);
    if (d > maxEdits(typed.length)) continue;
    if (!best || d < best.d || (d === best.d && c.df > best.df)) best = { term: c.term, d, df: c.df };
  }
  return best?.term ?? null;
}

/**
 * The first string past every string starting with `prefix`, in a-z order ("ep" → "eq", "ez" →
 * "f"): the upper bound of the key range read ("zz…": the end, '{' sorting after the letters).
 */
export function after(prefix: string): string {
  const last = prefix.length - 1;
  if (last < 0) return '{';
  const code = prefix.charCodeAt(last);
  if (code >= 'z'.charCodeAt(0)) return last === 0 ? '{' : after(prefix.slice(0, last));
  return prefix.slice(0, last) + String.fromCharCode(code === '9'.charCodeAt(0) ? 'a'.charCodeAt(0) : code + 1);
}

/**
 * Corrections of `words` (the query's content words) over `corpora` (statistics keys, '' the public
 * corpus). A word whose lexeme some document holds, or too short, is not corrected.
 */
export async function correctSpellings(db: Queryable, words: readonly string[], corpora: readonly string[]): Promise<Correction[]> {
  if (words.length === 0 || corpora.length === 0) return [];
  const unknown = await db.query<{ word: string; lexeme: string }>(
    `SELECT w.word, l.lexeme
       FROM unnest($1::text[]) AS w(word)
       CROSS JOIN LATERAL (SELECT (tsvector_to_array(to_tsvector('english', w.word)))[1] AS lexeme) l
      WHERE l.lexeme IS NOT NULL AND length(l.lexeme) >= $3::int
        AND NOT EXISTS (SELECT 1 FROM search.term_stats s WHERE s.community_id = ANY($2::text[]) AND s.term = l.lexeme)`,
    [[...new Set(words)].slice(0, MAX_WORDS), [...corpora], MIN_LENGTH],
  );
  const out: Correction[] = [];
  for (const { word, lexeme } of unknown) {
    const prefix = lexeme.slice(0, 2);
    const edits = maxEdits(lexeme.length);
    const candidates = await db.query<{ term: string; df: number }>(
      `SELECT term, sum(df)::float8 AS df FROM search.term_stats
        WHERE community_id = ANY($1::text[]) AND term >= $2::text AND term < $3::text AND left(term, 2) = $2::text
          AND length(term) BETWEEN $4::int AND $5::int
        GROUP BY term ORDER BY df DESC, term LIMIT ${MAX_CANDIDATES}`,
      [[...corpora], prefix, after(prefix), lexeme.length - edits, lexeme.length + edits],
    );
    const found = closest(lexeme, candidates.map((c) => ({ term: c.term, df: Number(c.df) })));
    if (found) out.push({ word, typed: lexeme, lexeme: found });
  }
  return out;
}
