// Fused candidates as people: every in-scope document of each (for merging and community lists),
// with its BM25F score over the query's terms and the stems of each field (term-coverage.ts).
import type { Queryable } from '../../kit/db/database.js';
import { bm25fSelect, type QueryStats } from './bm25.js';
import type { Fused } from './candidate-fusion.js';
import type { FieldName } from './explain.js';
import type { DocumentRow } from './pipeline.js';
import type { LegName } from './retrieve.js';
import { isStopWord, stem, tokenize } from './text.js';
import { maxOf } from './top-k.js';

/** A document as hydrated: its fields and its stored vector (null: none, or another embedder's). */
export type Doc = DocumentRow & { embedding: number[] | null; embedding_model: string | null; bm25: number };

export const FIELDS = ['name', 'headline', 'organization', 'location', 'bio', 'enrichment_text'] as const satisfies readonly FieldName[];
export type Field = (typeof FIELDS)[number];

export interface Person {
  profileId: string;
  docs: Doc[];
  display: Doc;
  rrf: number;
  legs: Set<LegName>;
  fieldStems: Map<Field, Set<string>>;
  /** The best BM25F score of the person's in-scope documents. */
  bm25: number;
}

const DOC_COLUMNS = [
  'community_id', 'profile_id', 'user_id', 'name', 'headline', 'bio', 'organization', 'location', 'avatar_url', 'enrichment_text',
  'embedding', 'embedding_model',
];

/**
 * Every in-scope document of these candidates (for merging and community lists), as people in the
 * order given; displayed fields come from the person's best-matching document. Nothing of an
 * unrequested community is read.
 */
export async function hydrate(db: Queryable, chunk: [string, Fused][], scope: [string[], boolean], stats: QueryStats): Promise<Person[]> {
  const values: unknown[] = [...scope, chunk.map(([id]) => id)];
  const scoped = `(SELECT * FROM search.documents
      WHERE profile_id = ANY($3::text[]) AND (community_id = ANY($1::text[]) OR ($2::boolean AND community_id = ''))) d`;
  const select = bm25fSelect({ ...stats, terms: stats.rerankTerms }, DOC_COLUMNS, scoped, values);
  const docs = await db.query<Doc>(`${select} ORDER BY profile_id, community_id`, values);
  const byProfile = new Map<string, Doc[]>();
  for (const doc of docs) {
    const list = byProfile.get(doc.profile_id) ?? [];
    list.push(doc);
    byProfile.set(doc.profile_id, list);
  }
  const people: Person[] = [];
  for (const [profileId, entry] of chunk) {
    const list = byProfile.get(profileId);
    if (!list || list.length === 0) continue; // erased between the two reads
    const display = [...list].sort((a, b) => (entry.docScore.get(b.community_id) ?? 0) - (entry.docScore.get(a.community_id) ?? 0))[0]!;
    const fieldStems = new Map<Field, Set<string>>();
    for (const field of FIELDS) {
      const set = new Set<string>();
      for (const doc of list) {
        const words = field === 'organization' ? tokenize(doc[field] ?? '') : withoutRun(tokenize(doc[field] ?? ''), tokenize(doc.organization ?? ''));
        for (const w of words) if (!isStopWord(w)) set.add(stem(w));
      }
      fieldStems.set(field, set);
    }
    people.push({ profileId, docs: list, display, rrf: entry.score, legs: entry.legs, fieldStems, bm25: maxOf(list.map((d) => Number(d.bm25)), 0) });
  }
  return people;
}

/**
 * The words without each run of `run` in them: a headline "Engineer at Mila – Quebec AI Institute"
 * holds the organization's name, and its words are the organization's, not the person's topic
 * (term-coverage.ts weighs a word found only in an organization's name as weak evidence).
 */
export function withoutRun(words: readonly string[], run: readonly string[]): string[] {
  if (run.length === 0) return [...words];
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    if (run.every((w, j) => words[i + j] === w)) i += run.length - 1;
    else out.push(words[i]!);
  }
  return out;
}

/** The person's stored vector, when it has one document in scope and that embedder made its vector. */
export function storedVector(person: Person, embedderName: string): number[] | null {
  const [doc, ...others] = person.docs;
  return doc && others.length === 0 && doc.embedding_model === embedderName && doc.embedding && doc.embedding.length > 0 ? doc.embedding : null;
}
