// POST /v1/search and GET /v1/search/{search_id}: validate with the contract's schemas, call the
// core. A search still running when wait_seconds runs out answers 202 with Retry-After and the
// Location to poll (docs/API-DECISIONS.md).
import type { FastifyInstance } from 'fastify';
import type { Edge } from '../../../core/edge.js';
import { getSearch, startSearch, type SearchCompleteView, type SearchPendingView, type SearchPollView } from '../../../core/search.js';
import { SearchParams, SearchRequest } from '../../../core/contract/search.js';
import { callerContext } from '../../plugins/authentication.js';
import { validated } from '../../validate.js';

export default async function searchRoutes(app: FastifyInstance, { edge }: { edge: Edge }) {
  app.post('/search', { config: { scope: 'search:read' } }, async (request, reply): Promise<SearchCompleteView | SearchPendingView> => {
    const body = validated(SearchRequest, request.body, 'body');
    const result = await startSearch(edge, callerContext(request), body);
    if (result.status === 'pending') {
      reply.code(202).headers({
        'retry-after': String(result.poll_after_seconds),
        location: `/v1/search/${encodeURIComponent(result.search_id)}`,
      });
    }
    return result;
  });

  app.get('/search/:search_id', { config: { scope: 'search:read' } }, async (request): Promise<SearchPollView> => {
    const { search_id } = validated(SearchParams, request.params, 'path');
    return getSearch(edge, callerContext(request), search_id);
  });
}
