// Text helpers shared by the embedder, the reranker and the explanations: word tokens, English
// stop words (the `stopword` package) and the Porter2 ("Snowball
// English") stemmer (`wink-porter2-stemmer`) — the stemmer of PostgreSQL's 'english'
// configuration, so the words an explanation names are the words full-text search matched — and
// trigram similarity (what pg_trgm's similarity() computes, done in the service so it works
// without the extension). BM25 itself analyses text in the store (bm25.ts), never here.
import { eng } from 'stopword';
import porter2 from 'wink-porter2-stemmer';

/** The filler of search requests ("find an expert who knows…"): no topic in them. */
const REQUEST_FILLER = ['expert', 'experts', 'someone', 'somebody', 'person', 'people', 'find', 'looking', 'need', 'who', 'knows', 'know', 'works', 'anyone'];
const STOP_WORDS = new Set<string>([...eng, ...REQUEST_FILLER]);

/** Words that carry no topic: English stop words plus the filler of search requests. */
export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}

/**
 * Lower-cased word tokens: runs of a-z and 0-9 once accents are folded ("e-mail" → e, mail), as
 * PostgreSQL's parser splits plain words. Not Intl.Segmenter: measured, it took 689 ms to split
 * the 200 candidates of one query over 1 KB bios that this does in 2 ms, and every token it
 * finds would still be split at anything but a-z and 0-9 to meet the tsquery alphabet.
 */
export function tokenize(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((t) => t.length > 0);
}

/** Tokens without stop words. */
export function contentTokens(text: string): string[] {
  return tokenize(text).filter((t) => !isStopWord(t));
}

const stemCache = new Map<string, string>();

/** The Porter2 stem of one lower-case word (numbers are kept as they are, as PostgreSQL does). */
export function stem(word: string): string {
  const cached = stemCache.get(word);
  if (cached !== undefined) return cached;
  const result = /\d/.test(word) ? word : porter2(word);
  if (stemCache.size < 100_000) stemCache.set(word, result);
  return result;
}

/** Stems of the content words of a text. */
export function stems(text: string): string[] {
  return contentTokens(text).map(stem);
}

// ---- trigram similarity (pg_trgm semantics: words padded with two spaces in front, one behind) ----

export function trigrams(text: string): Set<string> {
  const set = new Set<string>();
  for (const word of tokenize(text)) {
    const padded = `  ${word} `;
    for (let i = 0; i + 3 <= padded.length; i++) set.add(padded.slice(i, i + 3));
  }
  return set;
}

/** Jaccard similarity of the trigram sets, as pg_trgm's similarity(). */
export function trigramSimilarity(a: string, b: string): number {
  const ta = trigrams(a);
  const tb = trigrams(b);
  if (ta.size === 0 || tb.size === 0) return 0;
  let shared = 0;
  for (const t of ta) if (tb.has(t)) shared++;
  return shared / (ta.size + tb.size - shared);
}

/**
 * How well the query is contained in the text, as pg_trgm's word_similarity(): the best share of
 * the query's trigrams found in one run of whole words of the text.
 */
export function wordSimilarity(query: string, text: string): number {
  const q = trigrams(query);
  if (q.size === 0) return 0;
  const words = tokenize(text);
  let best = 0;
  const span = Math.max(1, tokenize(query).length);
  for (let i = 0; i < words.length; i++) {
    for (let j = i + 1; j <= Math.min(words.length, i + span + 1); j++) {
      const t = trigrams(words.slice(i, j).join(' '));
      let shared = 0;
      for (const g of q) if (t.has(g)) shared++;
      const sim = shared / (q.size + t.size - shared);
      if (sim > best) best = sim;
    }
  }
  return best;
}
