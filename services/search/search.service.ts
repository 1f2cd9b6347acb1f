// The search service (docs/SEARCH.md): search jobs over its own corpus, worked by the in-process
// job runner (search-jobs.ts), and the corpus upkeep the communities service asks for. Each handler
// delegates to the domain module named for what it does (search-requests.ts, indexing.ts) and maps
// the result with search-messages.ts.
import { SearchServiceDefinition } from '../../proto/gen/expertnet/search/v1/search_service.js';
import { requireCaller } from '../kit/grpc/require-caller.js';
import type { ServiceRegistration } from '../kit/grpc/server.js';
import { gaugeFromStore } from '../kit/metrics.js';
import * as indexing from './indexing.js';
import { createSearchContext, type SearchDeps, type SearchServiceOptions } from './search-context.js';
import { toJob, toReindexRun } from './search-messages.js';
import * as searches from './search-requests.js';

export function createSearchService(deps: SearchDeps, options: SearchServiceOptions = {}) {
  const context = createSearchContext(deps, options);
  const { runner } = context;
  runner.start();
  // Queue depth, read from the store when /metrics is scraped (every replica reports the same total).
  gaugeFromStore('search_jobs_open', 'Search jobs pending or running (all replicas).', () => runner.countOpen());

  const implementation: ServiceRegistration<typeof SearchServiceDefinition>['implementation'] = {
    async startSearch(request, ctx) {
      const caller = requireCaller(ctx, 'search:read');
      return { job: toJob(await searches.startSearch(context, caller, request, ctx)) };
    },

    async getSearch(request, ctx) {
      const caller = requireCaller(ctx, 'search:read');
      return { job: toJob(await searches.getSearch(context, caller, request)) };
    },

    async indexDocuments(request, ctx) {
      return { indexed: await indexing.indexDocuments(context, request.documents, request.reindexRun, ctx.requestId) };
    },

    async beginReindex(request) {
      return { run: await indexing.beginReindex(context, request.expectedDocuments) };
    },

    async getReindexRun(request) {
      return toReindexRun(await indexing.getReindexRun(context, request.run), context.pipeline.provider);
    },

    async pruneDocuments(request, ctx) {
      return { removed: await indexing.pruneDocuments(context, request.run, ctx.requestId) };
    },

    async removePublicDocument(request) {
      return { removed: await indexing.removePublicDocument(context, request.profileId) };
    },

    async eraseDocuments(request) {
      return { erased: await indexing.eraseDocuments(context, request.communityId, request.profileId) };
    },
  };

  const registration: ServiceRegistration<typeof SearchServiceDefinition> = {
    definition: SearchServiceDefinition,
    implementation,
    access: {
      startSearch: ['caller', 'direct'],
      getSearch: ['caller', 'direct'],
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
