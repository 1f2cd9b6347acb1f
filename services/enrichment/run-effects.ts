// What a run does outside the enrichment store, over gRPC as the enrichment service: read the people
// (communities), charge and meter (billing), and put the results where they belong (the search
// corpus through communities, the caller's own profile). The worker sees only this interface.
import { Status } from 'nice-grpc';
import { Caller } from '../../proto/gen/expertnet/common/v1/common.js';
import type { Member, Profile } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { ownerTypes, type OwnerTypeName } from '../kit/enums.js';
import type { CallOptions } from '../kit/grpc/client.js';
import { asService } from '../kit/grpc/acting.js';
import { readRemoteError } from '../kit/grpc/errors.js';
import type { ServiceDeps } from '../kit/service-deps.js';
import type { CommunityPeer, Depth, NormalizedFields, PersonInput } from './pipeline/index.js';
import type { RunRow } from './runs.repository.js';

export interface RunEffects {
  /** These people, when they are (still) members of the community. */
  members(communityId: string, profileIds: string[]): Promise<Map<string, PersonInput>>;
  /** Every member of the community, for the collaborators step of the deep tier. */
  peers(communityId: string): Promise<CommunityPeer[]>;
  /** A person's profile (self runs); undefined when it no longer exists. */
  profile(profileId: string): Promise<PersonInput | undefined>;
  /** Charges many people of a community run in one posting (each by its reference, once); the credits of each, in order. */
  chargeMany(run: RunRow, profileIds: readonly string[]): Promise<number[]>;
  /** Meters a self run (billing: paid → charged, free → the cooldown claim); returns the credits. */
  meterSelf(run: RunRow): Promise<number>;
  /** Re-indexes members' search documents of the community with their enrichment text. */
  indexCommunity(communityId: string, entries: { profileId: string; searchText: string }[]): Promise<void>;
  /** Writes the normalised fields onto the person's own profile and its public document. */
  applyOwn(profileId: string, normalized: NormalizedFields, searchText: string): Promise<void>;
}

export const chargeOperation = (depth: Depth) => `enrichment_${depth}` as const;

export function personOf(p: Profile): PersonInput {
  // An unset field (or blank text) is no value.
  const text = (s: string | undefined) => (s === undefined || s.trim() === '' ? null : s);
  return {
    profileId: p.id,
    name: p.name,
    headline: text(p.headline),
    bio: text(p.bio),
    organization: text(p.organization),
    location: text(p.location),
    orcid: text(p.orcid),
    linkedinUrl: text(p.linkedinUrl),
  };
}

const SCAN_PAGE = 2000;

type ScanDeps = Pick<ServiceDeps, 'clients' | 'signer' | 'deadlineMs'>;

/**
 * Walks a community's members (only `profileIds` when given, only those joined since `joinedSince`
 * when set) page by page, as the enrichment service; returns the community's member count, or 0
 * with `omitTotal` (a run reads its people a batch at a time: counting the whole community for
 * each batch made a run's reads grow with the square of its size).
 */
export async function scanMembers(
  deps: ScanDeps,
  filter: { communityId: string; profileIds?: string[]; joinedSince?: string; omitTotal?: boolean },
  onPage: (members: Member[]) => void,
  requestId?: string,
): Promise<number> {
  let after = '';
  let total = 0;
  do {
    const options = asService('enrichment', requestId, deps.deadlineMs);
    const page = await deps.clients.communities.scanMembers(
      {
        communityId: filter.communityId,
        profileIds: filter.profileIds ?? [],
        joinedSince: filter.joinedSince,
        afterProfileId: after,
        pageSize: SCAN_PAGE,
        omitTotal: filter.omitTotal ?? false,
      },
      options,
    );
    onPage(page.members);
    total = page.totalMembers;
    after = page.nextAfterProfileId;
  } while (after);
  return total;
}

export function createRunEffects(deps: ScanDeps): RunEffects {
  const ownCall = (): CallOptions => asService('enrichment', undefined, deps.deadlineMs);
  const scan = (communityId: string, profileIds: string[], onPage: (members: Member[]) => void) =>
    scanMembers(deps, { communityId, profileIds, omitTotal: true }, onPage);

  return {
    async members(communityId, profileIds) {
      const found = new Map<string, PersonInput>();
      await scan(communityId, profileIds, (members) => {
        for (const m of members) if (m.profile) found.set(m.profile.id, personOf(m.profile));
      });
      return found;
    },

    async peers(communityId) {
      const peers: CommunityPeer[] = [];
      await scan(communityId, [], (members) => {
        for (const m of members) if (m.profile) peers.push({ profileId: m.profile.id, name: m.profile.name, orcid: m.profile.orcid || null });
      });
      return peers;
    },

    async profile(profileId) {
      const { profile } = await deps.clients.communities.getProfile({ profileId }, ownCall()).catch((error: unknown) => {
        if (readRemoteError(error)?.status === Status.NOT_FOUND) return { profile: undefined };
        throw error;
      });
      return profile ? personOf(profile) : undefined;
    },

    async chargeMany(run, profileIds) {
      if (!run.payer_type || !run.payer_id || !run.community_id) throw new Error(`run ${run.id} has no payer`);
      const operation = chargeOperation(run.depth);
      const { charges } = await deps.clients.billing.chargeMany(
        {
          payer: { type: ownerTypes.toEnum(run.payer_type as OwnerTypeName), id: run.payer_id },
          operation,
          references: profileIds.map((profileId) => `${operation}:${run.id}:${profileId}`),
          credentialId: run.credential_id,
          communityId: run.community_id,
        },
        ownCall(),
      );
      return charges.map((c) => -(c.entry?.amount ?? 0));
    },

    async meterSelf(run) {
      const { entry } = await deps.clients.billing.meterSelfEnrich({ runId: run.id, caller: Caller.fromJSON(run.caller) }, ownCall());
      return -(entry?.amount ?? 0);
    },

    async indexCommunity(communityId, entries) {
      if (entries.length === 0) return;
      await deps.clients.communities.indexEnrichedMembers(
        { communityId, members: entries.map((e) => ({ profileId: e.profileId, enrichmentText: e.searchText })) },
        ownCall(),
      );
    },

    async applyOwn(profileId, normalized, searchText) {
      await deps.clients.communities.applyOwnEnrichment(
        {
          profileId,
          name: normalized.name,
          organization: normalized.organization ?? '',
          location: normalized.location ?? '',
          orcid: normalized.orcid ?? '',
          linkedinUrl: normalized.linkedinUrl ?? '',
          enrichmentText: searchText,
        },
        ownCall(),
      );
    },
  };
}
