// Self-enrichment (docs/ENRICHMENT.md): a run about the caller's own profile, at the self tier,
// metered through billing when it starts so that a refusal (cooldown, funds) is the answer and
// leaves no run behind.
import { Caller } from '../../proto/gen/expertnet/common/v1/common.js';
import type { Run } from '../../proto/gen/expertnet/enrichment/v1/enrichment_service.js';
import { asService } from '../kit/grpc/acting.js';
import { domainError, readRemoteError, relayOrUnavailable } from '../kit/grpc/errors.js';
import { newId } from '../kit/ids.js';
import type { EnrichmentContext } from './enrichment-context.js';
import { runPage } from './run-page.js';
import { SELF_DEPTH } from './run-worker.js';
import { createRunsRepository } from './runs.repository.js';

/** Starts a self run and answers it as accepted (queued); its work starts here and now. */
export async function startSelfRun(context: EnrichmentContext, caller: Caller, requestId: string): Promise<Run | undefined> {
  const { deps, runs } = context;
  // Target-locked: the run is about the caller's own profile, whoever else the body might name.
  if (!caller.userId) throw domainError('forbidden', 'self-enrich needs a user behind the credential; an organization-owned key has none');
  // Asked as this service: self:enrich alone (without profile:read) is enough to enrich oneself.
  const ownCall = asService('enrichment', requestId, deps.deadlineMs);
  const { profile } = await deps.clients.communities.getProfile({ userId: caller.userId }, ownCall).catch(relayOrUnavailable);
  if (!profile) throw domainError('not_found', 'the caller has no profile of its own');
  const row = await deps.db.transaction((tx) =>
    createRunsRepository(tx).insert(
      {
        id: newId('run'),
        kind: 'self',
        userId: caller.userId,
        profileId: profile.id,
        credentialId: caller.credentialId,
        caller: Caller.toJSON(caller),
        depth: SELF_DEPTH,
        payer: null,
      },
      [{ profileId: profile.id }],
    ),
  );
  let accepted = row;
  try {
    // Metered now, so a refusal (cooldown, funds) is the answer and leaves no run behind.
    const credits = await context.effects.meterSelf(row);
    await runs.markMetered(row.id, credits);
    accepted = { ...row, metered: true, metered_credits: credits };
  } catch (err) {
    if (readRemoteError(err)?.code) {
      await runs.remove(row.id);
      return relayOrUnavailable(err);
    }
    // Billing did not answer: the run stays and its worker meters it (by the run id, once).
    deps.logger.warn({ err, requestId, runId: row.id }, 'self-enrich metering deferred to the worker');
  }
  deps.logger.info({ requestId, runId: row.id }, 'self-enrich run started');
  // The run as accepted (queued), whatever a worker has done with it since.
  const { run } = await runPage(context.runs, accepted);
  context.kick(row.id);
  return run;
}
