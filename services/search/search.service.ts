// The search service. This release owns its schema and corpus table and answers health and
// reflection; search jobs and the retrieval pipeline arrive with the search issue.
import { SearchServiceDefinition } from '../../proto/gen/expertnet/search/v1/search_service.js';
import type { ServiceRegistration } from '../kit/grpc/server.js';

export function createSearchService() {
  const registration: ServiceRegistration<typeof SearchServiceDefinition> = {
    definition: SearchServiceDefinition,
    implementation: {},
    access: {
      startSearch: ['caller'],
      getSearch: ['caller'],
      indexDocuments: ['service', 'operator'],
      eraseDocuments: ['service', 'operator'],
    },
  };
  return { registration, stop: async () => undefined };
}
