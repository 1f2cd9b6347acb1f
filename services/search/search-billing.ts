// What a search costs, asked of billing as the search service: funds before work when a search
// starts (the payer billing resolves is kept on the job), and the charge `search:<id>` by reference
// once the job's result is stored (billing posts a reference once, however often it is sent).
import type { Caller } from '../../proto/gen/expertnet/common/v1/common.js';
import { ownerTypes, type OwnerTypeName } from '../kit/enums.js';
import type { CallOptions } from '../kit/grpc/client.js';
import { asService } from '../kit/grpc/acting.js';
import { relayOrUnavailable } from '../kit/grpc/errors.js';
import type { ServiceDeps } from '../kit/service-deps.js';
import type { JobRow } from './search-jobs.repository.js';

type BillingCalls = Pick<ServiceDeps, 'clients' | 'signer' | 'deadlineMs'>;

const asSearchService = (deps: BillingCalls, requestId: string | undefined): Promise<CallOptions> =>
  Promise.resolve(asService('search', requestId, deps.deadlineMs));

/**
 * Funds before work (402 with the payer when enforcement is on); returns the payer to charge, or
 * null when billing names none.
 */
export async function checkSearchFunds(
  deps: BillingCalls,
  caller: Caller,
  communityId: string | null,
  requestId: string,
): Promise<{ type: OwnerTypeName; id: string } | null> {
  const funds = await deps.clients.billing
    .checkFunds({ operation: 'search', communityId: communityId ?? '', units: 1, caller }, await asSearchService(deps, requestId))
    .catch(relayOrUnavailable);
  const payer = funds.payer?.payer;
  return payer?.id ? { type: ownerTypes.toName(payer.type, 'payer.type'), id: payer.id } : null;
}

/**
 * Charges a stored job's payer, the one CheckFunds resolved at start (who pays depends on the
 * operation and its community), under the starting request's id so the ledger entry names it.
 */
export async function chargeSearch(deps: BillingCalls, job: JobRow): Promise<void> {
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
    await asSearchService(deps, job.request_id ?? undefined),
  );
}
