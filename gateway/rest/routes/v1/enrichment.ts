// POST /v1/me/enrich, POST /v1/communities/{id}/enrich and their run polls: the core with the
// validated input (route.ts). A started run answers 202 with the Location to poll and
// Retry-After; a dry run answers 200 with the estimate. Idempotency-Key is honoured on the
// community start only, as the endpoint table declares; the self start ignores it.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Edge } from '../../../core/edge.js';
import {
  getEnrichmentRun,
  startCommunityEnrichment,
  startSelfEnrichment,
  type CommunityRunStartView,
  type DryRunView,
  type RunPollView,
} from '../../../core/enrichment.js';
import type { RunView } from '../../../core/enrichment-view.js';
import {
  getCommunityEnrichmentRunEndpoint,
  getSelfEnrichmentRunEndpoint,
  startCommunityEnrichmentEndpoint,
  startSelfEnrichmentEndpoint,
} from '../../../core/contract/enrichment.js';
import { callerContext } from '../../plugins/authentication.js';
import { route } from './route.js';

/** Seconds a client should wait before its first poll of a run. */
const POLL_AFTER_SECONDS = 2;

function queued(reply: FastifyReply, location: string): void {
  reply.code(202).headers({ 'retry-after': String(POLL_AFTER_SECONDS), location });
}

export default async function enrichmentRoutes(app: FastifyInstance, { edge }: { edge: Edge }) {
  route(app, startSelfEnrichmentEndpoint, async (_input, request, reply): Promise<RunView> => {
    const run = await startSelfEnrichment(edge, callerContext(request));
    queued(reply, `/v1/me/enrich/runs/${encodeURIComponent(run.run_id)}`);
    return run;
  });

  route(app, getSelfEnrichmentRunEndpoint, async ({ params, query }, request): Promise<RunPollView> =>
    getEnrichmentRun(edge, callerContext(request), params.run_id, { itemsAfter: query.items_after }),
  );

  route(app, startCommunityEnrichmentEndpoint, async ({ params, body }, request, reply): Promise<CommunityRunStartView | DryRunView> => {
    const outcome = await startCommunityEnrichment(edge, callerContext(request), params.id, body);
    if (outcome.dryRun) return outcome.estimate;
    queued(reply, `/v1/communities/${encodeURIComponent(params.id)}/enrich/runs/${encodeURIComponent(outcome.run.run_id)}`);
    return outcome.run;
  });

  route(app, getCommunityEnrichmentRunEndpoint, async ({ params, query }, request): Promise<RunPollView> =>
    getEnrichmentRun(edge, callerContext(request), params.run_id, { communityId: params.id, itemsAfter: query.items_after }),
  );
}
