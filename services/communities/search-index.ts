// Keeps the search service's corpus in step with communities (docs/SEARCH.md "Corpus upkeep"). The
// search service owns its corpus; communities only tells it what changed, as itself:
//   - a membership (seed/operator upsert, bulk add) → that community's document of the person (a
//     bulk add's indexing is durable: index-followup.ts);
//   - a profile (seed/operator upsert, self-enrichment) → its document in every community it belongs
//     to, and in the public corpus ('') exactly while it is public and claimed (otherwise it is
//     taken out);
//   - a community enrichment run → that community's documents of the people it enriched.
// Every path builds the document with documentOf. Enrichment text travels only with enrichment:
// the other paths send '', which search's upsert reads as "keep the text you hold", so indexing a
// profile again never wipes what a run added (services/search/search-corpus.repository.ts).
// Erasure removes a community's document itself (erasure.ts); an index call that raced it erases
// what it wrote once it sees the membership gone (indexed-non-members.ts). A community's document
// of a person holds what that community sees of them (member-view.ts); only the public corpus holds
// the profile.

/** What each community of these memberships supplied about the person (null: not added by identifier). */
async function suppliedOf(context: CommunitiesContext, pairs: Array<{ communityId: string; profileId: string }>): Promise<Map<string, Supplied | null>> {
  if (pairs.length === 0) return new Map();
  const rows = await context.deps.db.query<{ community_id: string; profile_id: string; supplied: Supplied | null }>(
    `SELECT m.community_id, m.profile_id, m.supplied FROM communities.memberships m
       JOIN unnest($1::text[], $2::text[]) AS t(c, p) ON m.community_id = t.c AND m.profile_id = t.p`,
    [pairs.map((x) => x.communityId), pairs.map((x) => x.profileId)],
  );
  return new Map(rows.map((r) => [`${r.community_id}/${r.profile_id}`, r.supplied]));
}
import type { Document } from '../../proto/gen/expertnet/search/v1/search_service.js';
import type { ProfileRow, Supplied } from './community.repository.js';
import type { CommunitiesContext } from './communities-context.js';
import { eraseIndexedNonMembers } from './indexed-non-members.js';
import { asCommunitySees } from './member-view.js';
import { asCommunitiesService, relayOrUnavailable } from './remote.js';

/** Re-index batches sent to the search service and not yet answered, at most. */
const INDEX_CALLS_IN_FLIGHT = 2;

/** The public corpus's community id. */
const PUBLIC_CORPUS = '';

/** The person's document in one corpus; enrichmentText '' leaves the text search already holds. */
function documentOf(p: ProfileRow, communityId: string, enrichmentText = ''): Document {
  return {
    communityId,
    profileId: p.id,
    userId: p.user_id ?? '',
    name: p.name,
    headline: p.headline ?? '',
    bio: p.bio ?? '',
    organization: p.organization ?? '',
    location: p.location ?? '',
    avatarUrl: p.avatar_url ?? '',
    enrichmentText,
  };
}

/** Indexes documents of one community's members, then erases again those erased while the call ran. */
async function indexInCommunity(context: CommunitiesContext, communityId: string, documents: Document[], requestId: string | undefined): Promise<void> {
  await context.deps.clients.search.indexDocuments({ documents }, await asCommunitiesService(context, requestId)).catch(relayOrUnavailable);
  await eraseIndexedNonMembers(context, communityId, documents.map((d) => d.profileId), requestId);
}

/**
 * Indexes these members of one community; people who are not members (no membership row, so
 * nothing to say what the community sees of them) are skipped, and anyone erased while the call
 * ran has the document erased again (indexed-non-members.ts). Failures are relayed (the caller
 * decides).
 */
export async function indexMemberships(context: CommunitiesContext, communityId: string, profileIds: string[], requestId: string | undefined): Promise<void> {
  const documents: Document[] = [];
  const ids = [...new Set(profileIds)];
  const supplied = await suppliedOf(context, ids.map((profileId) => ({ communityId, profileId })));
  for (const id of ids) {
    const key = `${communityId}/${id}`;
    if (!supplied.has(key)) continue;
    const profile = await context.repo.findProfile(id);
    if (profile) documents.push(documentOf(asCommunitySees(profile, supplied.get(key)), communityId));
  }
  if (documents.length === 0) return;
  await indexInCommunity(context, communityId, documents, requestId);
}

/**
 * Indexes members of one community with the text a community enrichment run wrote for each, in one
 * call. The caller has checked they are still members; anyone erased while the call ran has the
 * document erased again (indexed-non-members.ts). Failures are relayed.
 */
export async function indexEnrichedMembers(
  context: CommunitiesContext,
  communityId: string,
  enriched: Array<{ profile: ProfileRow; enrichmentText: string }>,
  requestId: string,
): Promise<void> {
  if (enriched.length === 0) return;
  const documents = enriched.map((e) => documentOf(e.profile, communityId, e.enrichmentText));
  await indexInCommunity(context, communityId, documents, requestId);
}

/**
 * Re-indexes a profile everywhere it is searchable, and in or out of the public corpus.
 * publicEnrichmentText (self-enrichment) goes into the public-corpus document only: each community
 * document keeps the text that community's own enrichment gave it.
 */
export async function indexProfile(context: CommunitiesContext, profileId: string, requestId: string, publicEnrichmentText = ''): Promise<void> {
  const profile = await context.repo.findProfile(profileId);
  if (!profile) return;
  const memberships = await context.deps.db.query<{ community_id: string; supplied: Supplied | null }>(
    'SELECT community_id, supplied FROM communities.memberships WHERE profile_id = $1',
    [profileId],
  );
  const documents = memberships.map((m) => documentOf(asCommunitySees(profile, m.supplied), m.community_id));
  const searchable = profile.public && profile.user_id !== null;
  if (searchable) documents.push(documentOf(profile, PUBLIC_CORPUS, publicEnrichmentText));
  const options = await asCommunitiesService(context, requestId);
  if (documents.length > 0) await context.deps.clients.search.indexDocuments({ documents }, options).catch(relayOrUnavailable);
  // As indexMemberships: a community that erased the person while the call ran loses the document again.
  for (const m of memberships) await eraseIndexedNonMembers(context, m.community_id, [profileId], requestId);
  if (!searchable) await context.deps.clients.search.removePublicDocument({ profileId }, options).catch(relayOrUnavailable);
}

export interface ReindexCounts {
  profiles: number;
  membershipDocuments: number;
  publicDocuments: number;
  batches: number;
  removed: number;
}

/**
 * The operator's full re-index (ReindexSearch), a mark and sweep: opens a run in the search
 * service, walks every profile in id order, a batch at a time, and indexes its document in every
 * community it belongs to and, while it is public and claimed, in the public corpus — the same
 * documents indexMemberships and indexProfile write —, then has search delete every document
 * written neither by the run nor by any other write since it began (PruneDocuments): people no
 * longer members, profiles no longer public and claimed. A write made while the run goes on (a
 * member added) is stamped with the run too, so it is never swept. Failures are relayed and
 * nothing is pruned then; a re-run starts over and is harmless.
 *
 * Two batches are in flight at once: the next batch is read, and the search service embeds one
 * batch while it writes the other (a full re-index of 100,000 documents: docs/SEARCH-RANKING.md).
 */
export async function reindexAll(context: CommunitiesContext, batchSize: number, requestId: string): Promise<ReindexCounts> {
  const counts: ReindexCounts = { profiles: 0, membershipDocuments: 0, publicDocuments: 0, batches: 0, removed: 0 };
  const search = context.deps.clients.search;
  // Fresh call options per call: a big corpus takes longer than one signed token lives.
  const options = () => asCommunitiesService(context, requestId);
  // What the run is going to index, for its progress reports only (the walk below decides what is
  // indexed; a member added meanwhile makes it a little more).
  const [expected] = await context.deps.db.query<{ n: number }>(
    `SELECT ((SELECT count(*) FROM communities.memberships) +
             (SELECT count(*) FROM communities.profiles WHERE public AND user_id IS NOT NULL))::float8 AS n`,
  );
  // The run opens before the first read, so anything written after a read is stamped with it.
  const { run } = await search.beginReindex({ expectedDocuments: expected?.n ?? 0 }, await options()).catch(relayOrUnavailable);
  let after = '';
  const inFlight: Promise<unknown>[] = [];
  for (;;) {
    const profiles = await context.deps.db.query<ProfileRow>(
      'SELECT * FROM communities.profiles WHERE id > $1 ORDER BY id LIMIT $2',
      [after, batchSize],
    );
    if (profiles.length === 0) break;
    after = profiles[profiles.length - 1]!.id;
    const memberships = await context.deps.db.query<{ community_id: string; profile_id: string; supplied: Supplied | null }>(
      'SELECT community_id, profile_id, supplied FROM communities.memberships WHERE profile_id = ANY($1::text[]) ORDER BY profile_id, community_id',
      [profiles.map((p) => p.id)],
    );
    const byId = new Map(profiles.map((p) => [p.id, p]));
    const documents: Document[] = memberships.map((m) => documentOf(asCommunitySees(byId.get(m.profile_id)!, m.supplied), m.community_id));
    const membershipDocuments = documents.length;
    for (const p of profiles) if (p.public && p.user_id !== null) documents.push(documentOf(p, PUBLIC_CORPUS));
    counts.profiles += profiles.length;
    counts.membershipDocuments += membershipDocuments;
    counts.publicDocuments += documents.length - membershipDocuments;
    if (documents.length > 0) {
      const indexed = options().then((o) => search.indexDocuments({ documents, reindexRun: run }, o)).catch(relayOrUnavailable);
      // Handled when awaited below; until then a failure must not count as unhandled.
      indexed.catch(() => {});
      inFlight.push(indexed);
      counts.batches++;
      if (inFlight.length === INDEX_CALLS_IN_FLIGHT) await inFlight.shift();
    }
    if (profiles.length < batchSize) break;
  }
  await Promise.all(inFlight);
  counts.removed = (await search.pruneDocuments({ run }, await options()).catch(relayOrUnavailable)).removed;
  return counts;
}
