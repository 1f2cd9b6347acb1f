// BM25 over search_tsv (docs/SEARCH-RANKING.md "BM25"): the query's terms as the store analyses
// them (the 'english' text search configuration, as search_tsv), their document frequencies and
// the corpus size and length from the statistics migration 007 keeps exact, summed over the
// corpora searched. Retrieval (retrieve.ts) scores with it; the reranker (ranker.ts) scores every
// candidate with its field-weighted form (BM25F).
import type { Queryable } from '../../kit/db/database.js';
import { SPELLING_WEIGHT } from './spelling.js';

/** BM25's usual constants (Robertson et al.; Lucene's defaults). */
export const K1 = 1.2;
export const B = 0.75;

/**
 * BM25F's weight of an occurrence by search_tsv's label: A name and headline, B organization and
 * location, C bio and enrichment text. On the real-data dev split, all 1 measured the same (inside
 * the interval); a name or headline is where a profile says what the person does.
 */
export const LABEL_WEIGHT = { A: 2, B: 1.5, C: 1, D: 1 } as const;

/** Terms retrieval scores at most (the rarest first): each costs a ts_rank call per matching row. */
export const MAX_SCORED_TERMS = 12;
/**
 * Terms the reranker scores at most: every term of a pasted abstract, since it reads only the
 * ≤ 200 fused candidates. Scoring only the 12 rarest dropped the signal of a long query's commoner
 * words (a paper's field: "network", "learning").
 */
export const MAX_RERANK_TERMS = 40;
/**
 * Candidates come from the query's rarer terms: those in at most this share of the corpus (the
 * rarest term always). A term in most documents adds little to any score and would make every
 * document a candidate; documents holding only such terms are read only when the rarer terms
 * found too few.
 */
export const CANDIDATE_MAX_SHARE = 0.2;
/** Candidate terms at most (their OR is one GIN lookup per term). */
export const MAX_CANDIDATE_TERMS = 8;

export interface QueryTerm {
  /** The lexeme, as in search_tsv. */
  term: string;
  /** Documents of the searched corpora holding it. */
  df: number;
  idf: number;
}

export interface QueryStats {
  /** Terms found in the searched corpora, rarest first (at most MAX_SCORED_TERMS). */
  terms: QueryTerm[];
  /** The same, at most MAX_RERANK_TERMS: what the reranker scores candidates with. */
  rerankTerms: QueryTerm[];
  /** Of those, the ones candidates are retrieved by. */
  candidateTerms: QueryTerm[];
  docs: number;
  /** Average document length (lexeme occurrences). */
  avgLength: number;
}

/** The corpora a scope reads, as statistics keys ('' the public corpus). */
export function corporaOf(scope: { communityIds: readonly string[]; includePublic: boolean }): string[] {
  return [...scope.communityIds.filter((id) => id !== ''), ...(scope.includePublic ? [''] : [])];
}

/** BM25's idf (the "+1" form: never negative, however common the term). */
export function idf(docs: number, df: number): number {
  return Math.log(1 + (docs - df + 0.5) / (df + 0.5));
}

/**
 * The query text's terms with their statistics over `corpora`, in one statement: the store's own
 * analysis (stemming, stop words) of the text, so query and documents agree. Terms no document of
 * the corpora holds are left out (they match nothing). `corrected` are lexemes searched for
 * misspelled words (spelling.ts): their idf weighs SPELLING_WEIGHT, unless the text holds them too.
 */
export async function queryStats(db: Queryable, text: string, corpora: readonly string[], corrected: readonly string[] = []): Promise<QueryStats> {
  const rows = await db.query<{ term: string; typed: boolean; df: number; docs: number; length: number }>(
    `WITH q AS (SELECT t AS term, bool_or(typed) AS typed
                  FROM (SELECT t, true AS typed FROM unnest(tsvector_to_array(to_tsvector('english', $1::text))) AS t
                        UNION ALL SELECT t, false FROM unnest($3::text[]) AS t) x GROUP BY t),
          c AS (SELECT coalesce(sum(docs), 0)::float8 AS docs, coalesce(sum(total_length), 0)::float8 AS length
                  FROM search.corpus_stats WHERE community_id = ANY($2::text[]))
     SELECT q.term, q.typed, coalesce(sum(s.df), 0)::float8 AS df, c.docs, c.length
       FROM q CROSS JOIN c LEFT JOIN search.term_stats s ON s.term = q.term AND s.community_id = ANY($2::text[])
      GROUP BY q.term, q.typed, c.docs, c.length`,
    [text, [...corpora], [...corrected]],
  );
  const docs = Number(rows[0]?.docs ?? 0);
  const length = Number(rows[0]?.length ?? 0);
  let terms = rows
    .filter((r) => Number(r.df) > 0)
    .map((r) => ({ term: r.term, df: Number(r.df), idf: idf(docs, Number(r.df)) * (r.typed ? 1 : SPELLING_WEIGHT) }))
    .sort((a, b) => a.df - b.df || (a.term < b.term ? -1 : 1))
    .slice(0, MAX_RERANK_TERMS);
  const rerankTerms = terms;
  terms = rerankTerms.slice(0, MAX_SCORED_TERMS);
  const rarest = terms[0]?.df ?? 0;
  const candidateTerms = terms.filter((t) => t.df <= Math.max(rarest, CANDIDATE_MAX_SHARE * docs)).slice(0, MAX_CANDIDATE_TERMS);
  return { terms, rerankTerms, candidateTerms, docs, avgLength: docs > 0 ? Math.max(length / docs, 1) : 1 };
}

/** A lexeme as a tsquery operand: quoted, so the cast takes it verbatim (no parsing, no stemming). */
export function lexemeQuery(term: string): string {
  return `'${term.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/**
 * A BM25F score over the rows of `from` (which must expose search_tsv and doc_length; `columns`
 * are passed through): each query term's occurrences weighted by their label (LABEL_WEIGHT),
 * saturated by K1 and normalised by the document's length against the scope's average, times the
 * term's idf, summed. Occurrences per label are read as retrieval reads them (term_frequency) from
 * the label's part of the tsvector (ts_filter), each tsvector decompressed once (OFFSET 0 keeps a
 * level from being merged into the next). Parameters are appended to `values`.
 */
export function bm25fSelect(stats: QueryStats, columns: readonly string[], from: string, values: unknown[]): string {
  const cols = columns.join(', ');
  if (stats.terms.length === 0) return `SELECT ${cols}, 0::float8 AS bm25 FROM ${from}`;
  const p = (value: unknown, cast: string) => {
    values.push(value);
    return `$${values.length}::${cast}`;
  };
  const tf = stats.terms.flatMap((t, i) => {
    const q = p(lexemeQuery(t.term), 'tsquery');
    return [`search.term_frequency(t, ${q}) AS t${i}`, `search.term_frequency(a, ${q}) AS a${i}`, `search.term_frequency(b, ${q}) AS b${i}`];
  });
  const [wa, wb, wc] = [p(LABEL_WEIGHT.A, 'float8'), p(LABEL_WEIGHT.B, 'float8'), p(LABEL_WEIGHT.C, 'float8')];
  const norm = `(${1 - B} + ${B} * doc_length / ${p(stats.avgLength, 'float8')})`;
  const parts = stats.terms.map((t, i) => {
    const weighted = `(${wa} * a${i} + ${wb} * b${i} + ${wc} * (t${i} - a${i} - b${i}))`;
    return `${p(t.idf, 'float8')} * ${weighted} * ${K1 + 1} / (${weighted} + ${K1} * ${norm})`;
  });
  return `SELECT ${cols}, (${parts.join(' + ')})::float8 AS bm25 FROM (
    SELECT ${cols}, doc_length, ${tf.join(', ')} FROM (
      SELECT ${cols}, doc_length, search_tsv || ''::tsvector AS t, ts_filter(search_tsv, '{a}') AS a, ts_filter(search_tsv, '{b}') AS b
        FROM ${from} OFFSET 0) x OFFSET 0) y`;
}
