// The consent queue the operator works: write requests waiting for a community's consent, listed
// in keyset pages and resolved once (docs/COMMUNITIES.md).
import type { ListConsentRequestsRequest, ResolveConsentRequestRequest } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { ConsentStatus } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { domainError } from '../kit/grpc/errors.js';
import type { ServiceContext } from '../kit/grpc/server.js';
import { actorNameOf } from './actor-name.js';
import type { CommunitiesContext } from './communities-context.js';
import { consentStatusName } from './communities-messages.js';
import { createMemberWriteRepository, type ConsentRequestRow } from './member-write.repository.js';

const PAGE_DEFAULT = 50;
const PAGE_MAX = 200;

function encodeToken(row: { cursor_at: string; id: string }): string {
  return Buffer.from(JSON.stringify([row.cursor_at, row.id])).toString('base64url');
}

function decodeToken(token: string): { createdAt: string; id: string } | undefined {
  if (!token) return undefined;
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown[];
    if (typeof createdAt === 'string' && typeof id === 'string' && !Number.isNaN(Date.parse(createdAt))) return { createdAt, id };
  } catch {
    // fall through
  }
  throw domainError('invalid_request', 'page_token is not a token this method returned');
}

/** One page of consent requests, of one community and/or one status when asked. */
export async function listConsentRequests(
  context: CommunitiesContext,
  request: ListConsentRequestsRequest,
): Promise<{ requests: ConsentRequestRow[]; nextPageToken: string }> {
  const limit = Math.min(Math.max(request.pageSize || PAGE_DEFAULT, 1), PAGE_MAX);
  const status = consentStatusName(request.status);
  if (request.status !== ConsentStatus.CONSENT_STATUS_UNSPECIFIED && !status) throw domainError('invalid_request', 'unknown status');
  const rows = await createMemberWriteRepository(context.deps.db).listConsentRequests(
    { communityId: request.communityId || undefined, status, newestFirst: request.newestFirst },
    decodeToken(request.pageToken),
    limit + 1,
  );
  const page = rows.slice(0, limit);
  return { requests: page, nextPageToken: rows.length > limit ? encodeToken(page[page.length - 1]!) : '' };
}

/**
 * Approves or denies a pending request. Repeating the same decision is a no-op; changing a
 * decision is refused. An approval lets through one retry of the very write it was queued for
 * (write-gating.ts: same fingerprint, within APPROVAL_WINDOW_SECONDS), while the attestation
 * version it was given under is the latest; the same write again queues a new request. It never
 * turns API writes on.
 */
export async function resolveConsentRequest(
  context: CommunitiesContext,
  request: ResolveConsentRequestRequest,
  ctx: ServiceContext,
): Promise<ConsentRequestRow> {
  const { deps } = context;
  const decision = request.approve ? 'approved' : 'denied';
  const actor = request.actor || (ctx.principal.kind === 'operator' ? ctx.principal.actor : 'unknown');
  const actorName = actorNameOf(request.actorName);
  const row = await deps.db.transaction(async (tx) => {
    const w = createMemberWriteRepository(tx);
    const found = await w.findConsentRequest(request.consentRequestId, true);
    if (!found) throw domainError('not_found', `consent request ${request.consentRequestId} not found`);
    if (found.status !== 'pending') {
      if (found.status === decision) return found;
      throw domainError('conflict', `consent request ${found.id} is already ${found.status}`);
    }
    const version = decision === 'approved' ? await w.latestAttestationVersion(found.community_id) : null;
    return w.resolveConsentRequest(found.id, decision, { id: actor, name: actorName }, version);
  });
  deps.logger.info(
    { requestId: ctx.requestId, consentRequest: row.id, communityId: row.community_id, operation: row.operation, status: row.status, actor },
    'consent request resolved',
  );
  return row;
}
