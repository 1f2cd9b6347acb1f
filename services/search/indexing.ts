// The corpus upkeep the communities service asks for (docs/SEARCH.md): indexing documents with
// their vectors, re-index runs (begin, progress, prune: mark and sweep, search-corpus.repository.ts),
// and removing documents — a public profile's, or a community's of an erased member.
import type { Document } from '../../proto/gen/expertnet/search/v1/search_service.js';
import { domainError } from '../kit/grpc/errors.js';
import { documentKey } from './pipeline/vectors.js';
import { createSearchCorpusRepository, distinctDocuments, type ReindexRunRow } from './search-corpus.repository.js';
import type { SearchContext, SearchDeps } from './search-context.js';
import { toIndexedDocument } from './search-messages.js';

function checked(d: Document): Document {
  if (!d.profileId || !d.name.trim()) throw domainError('invalid_request', 'each document needs profile_id and name');
  return d;
}

/** What writing documents uses of the service: its store, its logger and the ranking pipeline's vectors. */
export type IndexingContext = Pick<SearchContext, 'pipeline' | 'corpus'> & { deps: Pick<SearchDeps, 'db' | 'logger'> };

/**
 * Writes the documents (of re-index run `run`, or of none when 0) with their vectors; returns how
 * many were indexed. The vectors are made before the write (an embeddings service is never called
 * inside a transaction) and stored in the same statement as their text; a document the write
 * leaves without one (it keeps an enrichment text the vector was not made from, or a concurrent
 * write changed it) is embedded after the commit. If the embedder fails, the index call still
 * succeeds: those documents are embedded at rank time until the next index call stores them.
 */
export async function indexDocuments(context: IndexingContext, documents: Document[], run: number, requestId: string): Promise<number> {
  const { deps, pipeline } = context;
  const docs = distinctDocuments(documents.map((d) => toIndexedDocument(checked(d))));
  const withoutVectors = (err: unknown) => {
    deps.logger.warn({ err, requestId, documents: docs.length }, 'search documents indexed without vectors (embedded at rank time until stored)');
    return undefined;
  };
  const prepared = await pipeline.prepareVectors(deps.db, docs).catch(withoutVectors);
  const unvectored = await deps.db.transaction(async (tx) => {
    const txCorpus = createSearchCorpusRepository(tx);
    // A re-index batch names its run: refused once the run is swept (or was never opened), so
    // no batch of a run can write after its prune. Other writes name none, as before.
    if (run !== 0) {
      const found = await txCorpus.lockReindexRun(run, 'share');
      if (!found) throw domainError('not_found', `re-index run ${run} not found`);
      if (found.pruned_at) throw domainError('conflict', `re-index run ${run} is already pruned`);
    }
    return txCorpus.upsertDocuments(docs, prepared);
  });
  let embedded = 0;
  if (prepared) {
    const left = new Set(unvectored.map(documentKey));
    embedded = [...prepared.byKey.keys()].filter((key) => !left.has(key)).length;
    // Not tried again when preparing failed: the embedder would most likely fail again.
    if (unvectored.length > 0) embedded += (await pipeline.storeVectors(deps.db, unvectored).catch(withoutVectors)) ?? 0;
  }
  // A run's batch counts towards its progress (GetReindexRun) once its vectors are stored.
  if (run !== 0) await context.corpus.recordReindexProgress(run, documents.length, embedded);
  return documents.length;
}

export async function beginReindex(context: SearchContext, expectedDocuments: number): Promise<number> {
  return context.corpus.beginReindexRun(expectedDocuments);
}

/** The run; undefined for run 0 when there is no run yet. */
export async function getReindexRun(context: SearchContext, run: number): Promise<ReindexRunRow | undefined> {
  const found = await context.corpus.findReindexRun(run);
  if (!found && run !== 0) throw domainError('not_found', `re-index run ${run} not found`);
  return found;
}

/** Sweeps what the run did not touch; returns how many documents it removed. */
export async function pruneDocuments(context: { deps: Pick<SearchDeps, 'db' | 'logger'> }, run: number, requestId: string): Promise<number> {
  if (!run) throw domainError('invalid_request', 'run is required');
  // One DELETE over the whole corpus, as long as the corpus is large: an operator's command, so the
  // store's per-statement bound (none here) does not apply.
  const removed = await context.deps.db.transaction(async (tx) => {
    const txCorpus = createSearchCorpusRepository(tx);
    const found = await txCorpus.lockReindexRun(run, 'update');
    if (!found) throw domainError('not_found', `re-index run ${run} not found`);
    // Pruning twice sweeps nothing more: the first answer is kept (a retried call gets it).
    if (found.pruned_at) return found.removed ?? 0;
    return txCorpus.pruneReindexRun(run);
  }, { statementTimeoutMs: 0 });
  context.deps.logger.info({ requestId, run, removed }, 'search re-index run pruned');
  return removed;
}

export async function removePublicDocument(context: SearchContext, profileId: string): Promise<number> {
  if (!profileId) throw domainError('invalid_request', 'profile_id is required');
  return context.deps.db.transaction((tx) => createSearchCorpusRepository(tx).removePublicDocument(profileId));
}

export async function eraseDocuments(context: SearchContext, communityId: string, profileId: string): Promise<number> {
  // '' is the public corpus: a community's erasure never touches it.
  if (!communityId || !profileId) throw domainError('invalid_request', 'community_id and profile_id are required');
  return context.deps.db.transaction((tx) => createSearchCorpusRepository(tx).eraseCommunityDocument(communityId, profileId));
}
