// Write gating (docs/COMMUNITIES.md), both checks live on every call:
//   (a) write reach — the caller is owner/admin of the community directly or through the owning
//       organization (a legacy organization key: ownership only); otherwise 403 forbidden;
//   (b) the community's API writes are attested (latest attestation version enabled), or an
//       approval of this very write still stands (same fingerprint — operation, community and
//       canonical body — approved within the window and not used yet: write-fingerprint.ts), which
//       this write then uses up; otherwise 422 — with the billing owner's just-in-time consent on,
//       `owner_consent_required` after queuing (at most) one pending consent request for this
//       write, else `unprocessable`.
// An approval lets its write through once: approving "5 eligible, est. 50 credits" must not start
// that run again later over however many people are eligible then, nor an approved erasure erase
// the person once more after they were added back.
// An estimate (AuthorizeWrite with reach_only) runs the scope check and (a) alone: it writes
// nothing, so it neither needs the attestation nor queues a consent request.
import { Status } from 'nice-grpc';
import type { Caller } from '../../proto/gen/expertnet/common/v1/common.js';
import { domainError, readRemoteError } from '../kit/grpc/errors.js';
import { newId } from '../kit/ids.js';
import type { Scope } from '../kit/scopes.js';
import type { CommunityRow } from './community.repository.js';
import type { CommunitiesContext } from './communities-context.js';
import { createMemberWriteRepository, WRITE_OPERATIONS, type WriteOperation } from './member-write.repository.js';
import { APPROVAL_WINDOW_SECONDS, writeFingerprint } from './write-fingerprint.js';
import { requireCommunityAccess } from './reach.js';
import { asCommunitiesService, relayOrUnavailable } from './remote.js';

export type { WriteOperation } from './member-write.repository.js';

/** Reads of the approval and the queue, at most, when a decision lands between them. */
const QUEUE_ATTEMPTS = 2;

/** The scope each gated operation needs. */
export const OPERATION_SCOPE: Record<WriteOperation, Scope> = {
  'members.add': 'member:write',
  'members.remove': 'member:write',
  'enrichment.start': 'enrich:write',
};

export function isWriteOperation(value: string): value is WriteOperation {
  return (WRITE_OPERATIONS as readonly string[]).includes(value);
}

/** Whether the community's billing owner (a user or an organization) has just-in-time consent on. */
async function ownerHasJitConsent(context: CommunitiesContext, community: CommunityRow, requestId: string): Promise<boolean> {
  const options = await asCommunitiesService(context, requestId);
  const identity = context.deps.clients.identity;
  try {
    if (community.owner_type === 'user') {
      return (await identity.getUser({ userId: community.owner_id }, options)).user?.jitConsent ?? false;
    }
    return (await identity.getOrganization({ organizationId: community.owner_id }, options)).organization?.jitConsent ?? false;
  } catch (error) {
    if (readRemoteError(error)?.status === Status.NOT_FOUND) return false;
    return relayOrUnavailable(error);
  }
}

/**
 * The community, when the caller holds the operation's scope and write reach on it. Throws
 * forbidden (scope or reach). Checks nothing about the community's API-write setting.
 */
export async function requireWriteReach(
  context: CommunitiesContext,
  caller: Caller,
  communityId: string,
  operation: WriteOperation,
  requestId: string,
): Promise<CommunityRow> {
  const scope = OPERATION_SCOPE[operation];
  if (!caller.scopes.includes(scope)) {
    throw domainError('forbidden', `this credential lacks the ${scope} scope`, { required_scope: scope });
  }
  // (a) ownership or community admin: 403 whatever the reason.
  return requireCommunityAccess(context.reachDeps, caller, communityId, 'write', requestId, (id) => context.repo.findCommunity(id));
}

/** The write asked for: its canonical body or target (write-fingerprint.ts) and what it is in words. */
export interface WriteAsked {
  target: string;
  description: string;
}

/**
 * The community, when the caller may perform this write on it now. Throws forbidden (scope or
 * reach), unprocessable, or owner_consent_required (having queued a consent request for this write).
 */
export async function requireWritable(
  context: CommunitiesContext,
  caller: Caller,
  communityId: string,
  operation: WriteOperation,
  requestId: string,
  write: WriteAsked,
): Promise<CommunityRow> {
  const community = await requireWriteReach(context, caller, communityId, operation, requestId);
  // (b) attestation.
  if (community.api_writes) return community;
  const writes = createMemberWriteRepository(context.deps.db);
  const fingerprint = writeFingerprint(operation, communityId, write.target);
  let jitConsent: boolean | undefined;
  // Twice at most: a request that waited gets resolved between the queue's insert and its read only
  // by an operator's decision landing in that instant; the approval it may be is then used here.
  for (let attempt = 0; attempt < QUEUE_ATTEMPTS; attempt++) {
    const version = await writes.latestAttestationVersion(communityId);
    if (await writes.useStandingApproval(communityId, fingerprint, version, APPROVAL_WINDOW_SECONDS)) return community;
    jitConsent ??= await ownerHasJitConsent(context, community, requestId);
    if (!jitConsent) break;
    const pending = await writes.queueConsentRequest(newId('consent'), communityId, operation, caller.credentialId, {
      fingerprint, description: write.description,
    });
    if (!pending) continue;
    throw domainError(
      'owner_consent_required',
      `API writes (${operation}) on community ${communityId} need its billing owner's consent: request ${pending.id} is pending; once it is approved, retry this same request (the approval lets it through once)`,
    );
  }
  if (jitConsent) throw domainError('unavailable', 'the consent request for this write was being resolved; retry shortly');
  throw domainError(
    'unprocessable',
    `API writes are not enabled for community ${communityId}: its billing owner must enable them in settings`,
  );
}
