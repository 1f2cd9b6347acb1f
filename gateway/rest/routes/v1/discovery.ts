// GET /v1/communities, GET /v1/communities/{id}/enrich/runs and GET /v1/me/enrich/runs: the core
// with the validated input (route.ts).
import type { FastifyInstance } from 'fastify';
import type { Edge } from '../../../core/edge.js';
import { listCommunities, listEnrichmentRuns } from '../../../core/discovery.js';
import { listCommunitiesEndpoint, listCommunityEnrichmentRunsEndpoint, listSelfEnrichmentRunsEndpoint } from '../../../core/contract/discovery.js';
import { callerContext } from '../../plugins/authentication.js';
import { route } from './route.js';

export default async function discoveryRoutes(app: FastifyInstance, { edge }: { edge: Edge }) {
  route(app, listCommunitiesEndpoint, async ({ query }, request) => listCommunities(edge, callerContext(request), query));

  route(app, listCommunityEnrichmentRunsEndpoint, async ({ params, query }, request) =>
    listEnrichmentRuns(edge, callerContext(request), params.id, query),
  );

  route(app, listSelfEnrichmentRunsEndpoint, async ({ query }, request) => listEnrichmentRuns(edge, callerContext(request), undefined, query));
}
