// The search service. This release owns its schema and corpus table and erases a person's
// documents of one community (a step of the erasure saga); search jobs, indexing and the retrieval
// pipeline arrive with the search issue.
import { SearchServiceDefinition } from '../../proto/gen/expertnet/search/v1/search_service.js';
import { domainError } from '../kit/grpc/errors.js';
import type { ServiceRegistration } from '../kit/grpc/server.js';
import type { ServiceDeps } from '../kit/service-deps.js';

export function createSearchService(deps: Pick<ServiceDeps, 'db'>) {
  const implementation: ServiceRegistration<typeof SearchServiceDefinition>['implementation'] = {
    async eraseDocuments(request) {
      // '' is the public corpus: a community's erasure never touches it.
      if (!request.communityId || !request.profileId) throw domainError('invalid_request', 'community_id and profile_id are required');
      const rows = await deps.db.query(
        'DELETE FROM search.documents WHERE community_id = $1 AND profile_id = $2 RETURNING profile_id',
        [request.communityId, request.profileId],
      );
      return { erased: rows.length };
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
    },
  };
  return { registration, stop: async () => undefined };
}
