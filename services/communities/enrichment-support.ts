// What the enrichment service needs from communities for its runs (service principal only; see
// docs/COMMUNITIES.md "Enrichment support"): the members a community run walks, the search
// documents of the people a run enriched, and a person's own profile after self-enrichment.
// The caller-facing checks of a run (scope, write reach, attestation) are the enrichment
// service's, through AuthorizeWrite; these methods trust the service and check only facts: the
// community or profile exists, the person is still a member, the identifiers are well formed.
import type {
  ApplyOwnEnrichmentRequest,
  IndexEnrichedMembersRequest,
  Member,
  Profile,
  ScanMembersRequest,
} from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { domainError } from '../kit/grpc/errors.js';
import { pageOf } from '../kit/paging.js';
import { NAME_MAX, TEXT_MAX } from './add-members.js';
import type { CommunitiesContext } from './communities-context.js';
import { toMember, toProfile } from './communities-messages.js';
import { createEnrichmentSupportRepository, type OwnEnrichmentFields } from './enrichment-support.repository.js';
import { asCommunitySees } from './member-view.js';
import { normalizeLinkedinUrl, normalizeOrcid, type Normalized } from './normalize.js';
import { indexEnrichedMembers as indexEnrichedDocuments, indexProfile } from './search-index.js';

export const SCAN_PAGE_DEFAULT = 500;
export const SCAN_PAGE_MAX = 2000;

/**
 * A page of a community's members for a run: each the whole record as this community sees it
 * (member-view.ts) — a run enriches a person the community added from what the community knows,
 * not from a private profile.
 */
export async function scanMembers(context: CommunitiesContext, request: ScanMembersRequest): Promise<{ members: Member[]; nextAfterProfileId: string; totalMembers: number }> {
  if (request.pageSize > SCAN_PAGE_MAX) throw domainError('invalid_request', `page_size is at most ${SCAN_PAGE_MAX}`);
  const limit = request.pageSize || SCAN_PAGE_DEFAULT;
  if (request.joinedSince !== undefined && Number.isNaN(Date.parse(request.joinedSince))) {
    throw domainError('invalid_request', 'joined_since is not a valid time');
  }
  // Archived communities are scanned too: whether a run may act on one is decided by the
  // enrichment service's AuthorizeWrite at the start of the run, not page by page.
  const scan = await createEnrichmentSupportRepository(context.deps.db).scanMembers(
    request.communityId,
    {
      profileIds: request.profileIds.length > 0 ? request.profileIds : undefined,
      joinedSince: request.joinedSince,
      afterProfileId: request.afterProfileId,
      withTotal: !request.omitTotal,
    },
    limit + 1,
  );
  if (!scan) throw domainError('not_found', `community ${request.communityId} not found`);
  const page = pageOf(scan.members, limit, (last) => last.id);
  return {
    members: page.items.map((row) => toMember(row, request.communityId, 'operator')),
    nextAfterProfileId: page.nextPageToken,
    totalMembers: scan.total,
  };
}

/**
 * Indexes the enrichment text of the people a run enriched; returns how many were indexed. The
 * last text given for a person wins; people erased since the run read them are left out, so a
 * late run never puts a document back for someone who is no longer a member.
 */
export async function indexEnrichedMembers(
  context: CommunitiesContext,
  request: IndexEnrichedMembersRequest,
  requestId: string,
): Promise<number> {
  if (!(await context.repo.findCommunity(request.communityId))) {
    throw domainError('not_found', `community ${request.communityId} not found`);
  }
  const texts = new Map(request.members.map((m) => [m.profileId, m.enrichmentText]));
  const profiles = await createEnrichmentSupportRepository(context.deps.db).findMemberProfiles(request.communityId, [...texts.keys()]);
  const enriched = profiles.map((profile) => ({ profile: asCommunitySees(profile, profile.supplied), enrichmentText: texts.get(profile.id)! }));
  await indexEnrichedDocuments(context, request.communityId, enriched, requestId);
  return enriched.length;
}

/** A person's own profile after self-enrichment, updated and indexed again. */
export async function applyOwnEnrichment(context: CommunitiesContext, request: ApplyOwnEnrichmentRequest, requestId: string): Promise<Profile> {
  // Everything is validated before anything is written: a bad identifier changes nothing.
  const fields: OwnEnrichmentFields = {
    name: textField('name', request.name, NAME_MAX),
    organization: textField('organization', request.organization, TEXT_MAX),
    location: textField('location', request.location, TEXT_MAX),
    orcid: identifierField(request.orcid, normalizeOrcid),
    linkedin_url: identifierField(request.linkedinUrl, normalizeLinkedinUrl),
  };
  const row = await createEnrichmentSupportRepository(context.deps.db).applyOwnEnrichment(request.profileId, fields);
  if (!row) throw domainError('not_found', `profile ${request.profileId} not found`);
  // The profile is updated whatever happens here; a failure is relayed, and a retry of the
  // call (idempotent) indexes it again.
  await indexProfile(context, row.id, requestId, request.enrichmentText);
  return toProfile(row, 'operator');
}

/** A trimmed text field: null when empty (leave the stored value), refused when too long. */
function textField(field: string, value: string, max: number): string | null {
  const trimmed = value.trim();
  if (trimmed.length > max) throw domainError('invalid_request', `${field} is longer than ${max} characters`);
  return trimmed === '' ? null : trimmed;
}

/** An identifier through its normaliser: null when empty, refused (invalid_request) when malformed. */
function identifierField(value: string, normalize: (input: string) => Normalized): string | null {
  if (value.trim() === '') return null;
  const n = normalize(value);
  if (!n.ok) throw domainError('invalid_request', n.reason);
  return n.value;
}
