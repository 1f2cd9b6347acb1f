// POST /v1/search and GET /v1/search/{search_id}: the core with the validated input (route.ts). A
// search still running when wait_seconds runs out answers 202 with Retry-After and the Location to
// poll (docs/API-DECISIONS.md).
import type { FastifyInstance } from 'fastify';
import type { Edge } from '../../../core/edge.js';
import { getSearch, startSearch, type SearchCompleteView, type SearchPendingView, type SearchPollView } from '../../../core/search.js';
import { getSearchEndpoint, startSearchEndpoint } from '../../../core/contract/search.js';
import { callerContext } from '../../plugins/authentication.js';
import { route } from './route.js';

export default async function searchRoutes(app: FastifyInstance, { edge }: { edge: Edge }) {
  route(app, startSearchEndpoint, async ({ body }, request, reply): Promise<SearchCompleteView | SearchPendingView> => {
    const result = await startSearch(edge, callerContext(request), body);
    if (result.status === 'pending') {
      reply.code(202).headers({
        'retry-after': String(result.poll_after_seconds),
        location: `/v1/search/${encodeURIComponent(result.search_id)}`,
      });
    }
    return result;
  });

  route(app, getSearchEndpoint, async ({ params }, request): Promise<SearchPollView> => getSearch(edge, callerContext(request), params.search_id));
}
