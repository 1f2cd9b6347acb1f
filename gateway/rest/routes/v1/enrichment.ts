// POST /v1/me/enrich, POST /v1/communities/{id}/enrich and their run polls. Thin: validate with the
// contract's schemas, call the core. A started run answers 202 with the Location to poll and
// Retry-After; a dry run answers 200 with the estimate. Idempotency-Key is honoured on the
// community start only (the idempotency plugin reads `idempotent`); the self start ignores it.
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
import { CommunityParams } from '../../../core/contract/members.js';
import { CommunityRunParams, EnrichmentRequest, RunParams, RunPollQuery, SelfEnrichmentRequest } from '../../../core/contract/enrichment.js';
import { callerContext } from '../../plugins/authentication.js';
import { validated } from '../../validate.js';

/** Seconds a client should wait before its first poll of a run. */
const POLL_AFTER_SECONDS = 2;

function queued(reply: FastifyReply, location: string): void {
  reply.code(202).headers({ 'retry-after': String(POLL_AFTER_SECONDS), location });
}

export default async function enrichmentRoutes(app: FastifyInstance, { edge }: { edge: Edge }) {
  app.post('/me/enrich', { config: { scope: 'self:enrich' } }, async (request, reply): Promise<RunView> => {
    validated(SelfEnrichmentRequest, request.body ?? {}, 'body');
    const run = await startSelfEnrichment(edge, callerContext(request));
    queued(reply, `/v1/me/enrich/runs/${encodeURIComponent(run.run_id)}`);
    return run;
  });

  app.get('/me/enrich/runs/:run_id', { config: { scope: 'self:enrich' } }, async (request): Promise<RunPollView> => {
    const { run_id } = validated(RunParams, request.params, 'path');
    const { items_after } = validated(RunPollQuery, request.query, 'query');
    return getEnrichmentRun(edge, callerContext(request), run_id, { itemsAfter: items_after });
  });

  app.post(
    '/communities/:id/enrich',
    { config: { scope: 'enrich:write', idempotent: true } },
    async (request, reply): Promise<CommunityRunStartView | DryRunView> => {
      const { id } = validated(CommunityParams, request.params, 'path');
      const body = validated(EnrichmentRequest, request.body ?? {}, 'body');
      const outcome = await startCommunityEnrichment(edge, callerContext(request), id, body);
      if (outcome.dryRun) return outcome.estimate;
      queued(reply, `/v1/communities/${encodeURIComponent(id)}/enrich/runs/${encodeURIComponent(outcome.run.run_id)}`);
      return outcome.run;
    },
  );

  app.get('/communities/:id/enrich/runs/:run_id', { config: { scope: 'enrich:read' } }, async (request): Promise<RunPollView> => {
    const { id, run_id } = validated(CommunityRunParams, request.params, 'path');
    const { items_after } = validated(RunPollQuery, request.query, 'query');
    return getEnrichmentRun(edge, callerContext(request), run_id, { communityId: id, itemsAfter: items_after });
  });
}
