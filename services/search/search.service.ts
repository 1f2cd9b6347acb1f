// The search service (docs/SEARCH.md): search jobs over its own corpus, and the corpus upkeep the
// communities service asks for. This file holds the rules of a search request — validation, scope
// against the caller's live read reach, funds before work — and hands the work to the in-process
// worker (search-jobs.ts). Ranking is the pipeline's (./pipeline), which never widens the set it is given.
import { gaugeFromStore } from '../kit/metrics.js';
import { randomUUID } from 'node:crypto';
import { Caller } from '../../proto/gen/expertnet/common/v1/common.js';
import { Access } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import {
  SearchScope,
  SearchServiceDefinition,
  SearchStatus,
  type Document,
  type SearchJob,
  type StartSearchRequest,
} from '../../proto/gen/expertnet/search/v1/search_service.js';
import { ownerTypes, type OwnerTypeName } from '../kit/enums.js';
import { callAs, type CallOptions } from '../kit/grpc/client.js';
import { domainError, relayOrUnavailable } from '../kit/grpc/errors.js';
import { requireCaller } from '../kit/grpc/require-caller.js';
import type { ServiceRegistration } from '../kit/grpc/server.js';
import type { ServiceDeps } from '../kit/service-deps.js';
import { createSearchPipeline } from './pipeline/index.js';
import type { SearchPipeline } from './pipeline/pipeline.js';
import { createJobRunner, type JobRunnerOptions } from './search-jobs.js';
import { createSearchCorpusRepository, type IndexedDocument } from './search-corpus.repository.js';
import { createSearchJobsRepository, type JobRow, type JobScope } from './search-jobs.repository.js';

export const QUERY_MAX = 1000;
export const LIMIT_DEFAULT = 20;
export const LIMIT_MAX = 50;
export const WAIT_DEFAULT_SECONDS = 20;
export const WAIT_MAX_SECONDS = 25;
export const POLL_AFTER_SECONDS = 2;

export type SearchDeps = Pick<ServiceDeps, 'db' | 'clients' | 'signer' | 'deadlineMs' | 'logger'>;

export interface SearchServiceOptions {
  /** The ranking pipeline; the product's is createSearchPipeline(). */
  pipeline?: SearchPipeline;
  /** Worker tuning (lease, attempts, tick). */
  worker?: Pick<JobRunnerOptions, 'leaseMs' | 'maxAttempts' | 'tickMs' | 'concurrency'>;
}

interface StartInput {
  query: string;
  scope: JobScope;
  communityId: string | null;
  limit: number;
  waitSeconds: number;
}

const SCOPES: Partial<Record<SearchScope, JobScope>> = {
  [SearchScope.SEARCH_SCOPE_COMMUNITY]: 'community',
  [SearchScope.SEARCH_SCOPE_ALL]: 'all',
  [SearchScope.SEARCH_SCOPE_PUBLIC]: 'public',
};

/** The request rules of POST /v1/search (the edge's schema refuses the same, first). */
function startInput(request: StartSearchRequest): StartInput {
  const query = request.query.trim();
  if (!query || query.length > QUERY_MAX) throw domainError('invalid_request', `query must hold 1 to ${QUERY_MAX} characters`);
  const scope = SCOPES[request.scope];
  if (!scope) throw domainError('invalid_request', 'scope must be community, all or public');
  const communityId = request.communityId.trim() || null;
  if (scope === 'community' && !communityId) throw domainError('invalid_request', 'community_id is required when scope is community');
  const waitSeconds = request.waitSeconds ?? WAIT_DEFAULT_SECONDS;
  if (waitSeconds > WAIT_MAX_SECONDS) throw domainError('invalid_request', `wait_seconds must be 0 to ${WAIT_MAX_SECONDS}`);
  return { query, scope, communityId: scope === 'community' ? communityId : null, limit: Math.min(request.limit || LIMIT_DEFAULT, LIMIT_MAX), waitSeconds };
}

const STATUS: Record<JobRow['status'], SearchStatus> = {
  pending: SearchStatus.SEARCH_STATUS_PENDING,
  running: SearchStatus.SEARCH_STATUS_RUNNING,
  complete: SearchStatus.SEARCH_STATUS_COMPLETE,
  failed: SearchStatus.SEARCH_STATUS_FAILED,
};

function toJob(row: JobRow): SearchJob {
  const finished = row.status === 'complete' || row.status === 'failed';
  return {
    searchId: row.id,
    status: STATUS[row.status],
    matches:
      row.status === 'complete'
        ? (row.matches ?? []).map((m) => ({
            profileId: m.profileId,
            userId: m.userId ?? '',
            name: m.name,
            headline: m.headline ?? '',
            organization: m.organization ?? '',
            location: m.location ?? '',
            avatarUrl: m.avatarUrl ?? '',
            score: m.score,
            semanticScore: m.semanticScore,
            explanation: m.explanation ?? '',
            sharedCommunities: m.sharedCommunities,
            weakMatch: m.weakMatch ?? false,
          }))
        : [],
    pollAfterSeconds: finished ? 0 : POLL_AFTER_SECONDS,
    error: row.status === 'failed' ? 'the search failed; start a new one' : '',
    expiresAt: row.expires_at?.toISOString(),
  };
}

const text = (s: string) => (s.trim() === '' ? null : s);

function indexedDocument(d: Document): IndexedDocument {
  if (!d.profileId || !d.name.trim()) throw domainError('invalid_request', 'each document needs profile_id and name');
  return {
    community_id: d.communityId,
    profile_id: d.profileId,
    user_id: text(d.userId),
    name: d.name,
    headline: text(d.headline),
    bio: text(d.bio),
    organization: text(d.organization),
    location: text(d.location),
    avatar_url: text(d.avatarUrl),
    enrichment_text: text(d.enrichmentText),
  };
}

const TIMED_OUT = Symbol('timed out');

/** What p resolves to within ms (undefined when it rejects), or TIMED_OUT; never rejects. */
async function within<T>(p: Promise<T>, ms: number): Promise<T | undefined | typeof TIMED_OUT> {
  if (ms <= 0) return TIMED_OUT;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<typeof TIMED_OUT>((r) => (timer = setTimeout(() => r(TIMED_OUT), ms)));
  try {
    return await Promise.race([p.catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}

const finished = (row: JobRow) => row.status === 'complete' || row.status === 'failed';

/** How often a wait reads the row of a job another process runs. */
const CROSS_PROCESS_POLL_MS = 200;

export function createSearchService(deps: SearchDeps, options: SearchServiceOptions = {}) {
  const repo = createSearchJobsRepository(deps.db);
  const corpus = createSearchCorpusRepository(deps.db);
  const asService = (requestId: string | undefined): Promise<CallOptions> =>
    callAs(deps.signer, { kind: 'service', service: 'search' }, requestId, deps.deadlineMs);

  const pipeline = options.pipeline ?? createSearchPipeline({ logger: deps.logger });
  const runner = createJobRunner({
    db: deps.db,
    pipeline,
    logger: deps.logger,
    ...options.worker,
    async charge(job) {
      // The payer CheckFunds resolved at start (who pays depends on the operation and its community).
      if (!job.payer_type || !job.payer_id) throw new Error(`search ${job.id} has no payer`);
      await deps.clients.billing.charge(
        {
          payer: { type: ownerTypes.toEnum(job.payer_type as OwnerTypeName), id: job.payer_id },
          operation: 'search',
          units: 1,
          reference: `search:${job.id}`,
          credentialId: job.credential_id,
          communityId: job.named_community_id ?? '',
        },
        await asService(undefined),
      );
    },
  });
  runner.start();
  // Queue depth, read from the store when /metrics is scraped (every replica reports the same total).
  gaugeFromStore('search_jobs_open', 'Search jobs pending or running (all replicas).', () => runner.countOpen());

  /**
   * The job's row once it finished or at the deadline, for a job another process runs. A short
   * poll, and only in this case: a job this process runs is answered by its worker (startSearch).
   * The store interface has no LISTEN/NOTIFY (PGlite is embedded: every worker of its store is in
   * this process), and a crossed wait is rare: it needs another replica's tick to claim a job in
   * the moment between its insert and its claim here, or this claim's lease to be lost. A process
   * that is stopping claims nothing and answers at once (pending): another replica's tick takes the job.
   */
  async function watchElsewhere(row: JobRow, deadline: number): Promise<JobRow> {
    for (;;) {
      row = (await repo.find(row.id)) ?? row;
      if (finished(row) || Date.now() >= deadline || runner.isStopping()) return row;
      await new Promise((r) => setTimeout(r, Math.min(CROSS_PROCESS_POLL_MS, deadline - Date.now())));
    }
  }

  const implementation: ServiceRegistration<typeof SearchServiceDefinition>['implementation'] = {
    async startSearch(request, ctx) {
      const caller = requireCaller(ctx, 'search:read');
      const input = startInput(request);

      // Scope against the live read reach (allowlist applied, archived communities out).
      const asCaller = await callAs(deps.signer, { kind: 'caller', caller }, ctx.requestId, deps.deadlineMs);
      const reach = (await deps.clients.communities.getReach({ access: Access.ACCESS_READ }, asCaller).catch(relayOrUnavailable)).communityIds;
      let communityIds: string[];
      if (input.scope === 'community') {
        // Fail closed: a community outside reach is 403, never an empty result.
        if (!reach.includes(input.communityId!)) {
          throw domainError('forbidden', `community ${input.communityId} is outside this credential's read reach`);
        }
        communityIds = [input.communityId!];
      } else if (input.scope === 'all') {
        // No fallback to the public corpus: an empty authorized set searches nothing.
        if (reach.length === 0) {
          throw domainError('unprocessable', 'scope all needs at least one community this credential may read; use scope public for public profiles');
        }
        communityIds = reach;
      } else {
        communityIds = [];
      }

      // Funds before work (402 with the payer when enforcement is on); the payer is kept for the charge.
      const funds = await deps.clients.billing
        .checkFunds({ operation: 'search', communityId: input.communityId ?? '', units: 1, caller }, await asService(ctx.requestId))
        .catch(relayOrUnavailable);
      const payer = funds.payer?.payer;

      const job = await repo.insert({
        id: `srch_${randomUUID().replaceAll('-', '')}`,
        credentialId: caller.credentialId,
        caller: Caller.toJSON(caller),
        query: input.query,
        scope: input.scope,
        namedCommunityId: input.communityId,
        communityIds,
        includePublic: input.scope !== 'community',
        reachIds: reach,
        limit: input.limit,
        payer: payer?.id ? { type: ownerTypes.toName(payer.type, 'payer.type'), id: payer.id } : null,
      });
      deps.logger.info({ requestId: ctx.requestId, searchId: job.id, scope: input.scope, communities: communityIds.length }, 'search started');

      // The job runs here and now; the answer waits for it at most wait_seconds, and comes from the
      // worker that ran it. Only a job another process holds is watched through its row.
      const deadline = Date.now() + input.waitSeconds * 1000;
      const here = await runner.runHere(job.id);
      const outcome = here ? await within(here.done, deadline - Date.now()) : undefined;
      let row: JobRow = job;
      if (outcome !== TIMED_OUT) row = outcome && finished(outcome) ? outcome : await watchElsewhere(job, deadline);
      if (row.status === 'failed') throw domainError('search_unavailable', 'the search backend is unavailable; start a new search');
      if (row.status === 'complete') return { job: toJob(row) };
      return { job: { ...toJob(row), status: SearchStatus.SEARCH_STATUS_PENDING } };
    },

    async getSearch(request, ctx) {
      const caller = requireCaller(ctx, 'search:read');
      // Fenced to the starting credential: unknown, foreign and expired are one answer.
      const row = request.searchId ? await repo.findForCredential(request.searchId, caller.credentialId) : undefined;
      if (!row) throw domainError('not_found', `search ${request.searchId} not found`);
      // Stored but not yet recorded as charged (the worker is charging, or crashed before): charge by
      // reference — billing posts search:<id> once however many polls race here.
      if (row.status === 'complete' && !row.charged_at) await runner.chargeStored(row);
      return { job: toJob(row) };
    },

    async indexDocuments(request) {
      const docs = request.documents.map(indexedDocument);
      const run = request.reindexRun;
      const indexed = await deps.db.transaction(async (tx) => {
        const txCorpus = createSearchCorpusRepository(tx);
        // A re-index batch names its run: refused once the run is swept (or was never opened), so
        // no batch of a run can write after its prune. Other writes name none, as before.
        if (run !== 0) {
          const found = await txCorpus.lockReindexRun(run, 'share');
          if (!found) throw domainError('not_found', `re-index run ${run} not found`);
          if (found.pruned_at) throw domainError('conflict', `re-index run ${run} is already pruned`);
        }
        return txCorpus.upsertDocuments(docs);
      });
      // The documents' vectors, after the text is committed (an embeddings service is never called
      // inside a transaction). Written only where the text is still what was embedded; if the
      // embedder fails, the documents are embedded at rank time until the next index call.
      const embedded = await pipeline.storeVectors(deps.db, docs).catch((err: unknown) => {
        deps.logger.warn({ err, documents: docs.length }, 'search documents indexed without vectors (embedded at rank time until stored)');
        return 0;
      });
      // A run's batch counts towards its progress (GetReindexRun) once its vectors are stored.
      if (run !== 0) await corpus.recordReindexProgress(run, indexed, embedded);
      return { indexed };
    },

    async beginReindex(request) {
      return { run: await corpus.beginReindexRun(request.expectedDocuments) };
    },

    async getReindexRun(request) {
      const found = await corpus.findReindexRun(request.run);
      if (!found) {
        if (request.run !== 0) throw domainError('not_found', `re-index run ${request.run} not found`);
        return { run: 0, startedAt: undefined, updatedAt: undefined, expectedDocuments: 0, indexedDocuments: 0, embeddedDocuments: 0, embedder: pipeline.provider, pruned: false, removed: 0 };
      }
      return {
        run: found.id,
        startedAt: new Date(found.started_at).toISOString(),
        updatedAt: new Date(found.updated_at).toISOString(),
        expectedDocuments: found.expected_documents,
        indexedDocuments: found.indexed_documents,
        embeddedDocuments: found.embedded_documents,
        embedder: pipeline.provider,
        pruned: found.pruned_at !== null,
        removed: found.removed ?? 0,
      };
    },

    async pruneDocuments(request) {
      if (!request.run) throw domainError('invalid_request', 'run is required');
      const removed = await deps.db.transaction(async (tx) => {
        const txCorpus = createSearchCorpusRepository(tx);
        const found = await txCorpus.lockReindexRun(request.run, 'update');
        if (!found) throw domainError('not_found', `re-index run ${request.run} not found`);
        // Pruning twice sweeps nothing more: the first answer is kept (a retried call gets it).
        if (found.pruned_at) return found.removed ?? 0;
        return txCorpus.pruneReindexRun(request.run);
      });
      deps.logger.info({ run: request.run, removed }, 'search re-index run pruned');
      return { removed };
    },

    async removePublicDocument(request) {
      if (!request.profileId) throw domainError('invalid_request', 'profile_id is required');
      return { removed: await corpus.removePublicDocument(request.profileId) };
    },

    async eraseDocuments(request) {
      // '' is the public corpus: a community's erasure never touches it.
      if (!request.communityId || !request.profileId) throw domainError('invalid_request', 'community_id and profile_id are required');
      return { erased: await corpus.eraseCommunityDocument(request.communityId, request.profileId) };
    },
  };

  const registration: ServiceRegistration<typeof SearchServiceDefinition> = {
    definition: SearchServiceDefinition,
    implementation,
    access: {
      startSearch: ['caller'],
      getSearch: ['caller'],
      indexDocuments: ['service', 'operator'],
      eraseDocuments: ['service', 'operator'],
      removePublicDocument: ['service', 'operator'],
      beginReindex: ['service', 'operator'],
      pruneDocuments: ['service', 'operator'],
      getReindexRun: ['service', 'operator'],
    },
  };
  return { registration, stop: () => runner.stop(), runner };
}
