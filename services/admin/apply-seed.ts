// Applies a seed document through the services' own gRPC methods, as the operator, in dependency
// order. Upserts by id, so applying a file twice changes nothing. Keys go through the same minting
// path as any key (the tier is computed from the owner's standing now); a key without a secret is
// minted and its secret returned once.
import { callAs, type CallOptions, type ServiceClients } from '../kit/grpc/client.js';
import type { TokenSigner } from '../kit/grpc/caller-token.js';
import { keyEnvironments, ownerTypes, plans, roles } from '../kit/enums.js';
import { readRemoteError } from '../kit/grpc/errors.js';
import { parseSeed, SeedError, type SeedDocument } from './seed-schema.js';

type OwnerJson = { user: string } | { organization: string };

function ownerRef(owner: OwnerJson) {
  return 'user' in owner
    ? { type: ownerTypes.toEnum('user'), id: owner.user }
    : { type: ownerTypes.toEnum('organization'), id: owner.organization };
}

export interface SeedResult {
  /** Secrets of keys minted by this application (keys given a secret, or already present, are not listed). */
  keys: Record<string, string>;
}

export async function applySeed(
  clients: ServiceClients,
  signer: TokenSigner,
  input: unknown,
  options: { actor?: string; deadlineMs?: number } = {},
): Promise<SeedResult> {
  const seed: SeedDocument = parseSeed(input);
  // Options per call, not one set for the whole seed: a caller token lives 60 s, and a large seed on
  // a busy machine takes longer. The signer reuses a token until shortly before it expires.
  const fresh = (): Promise<CallOptions> => callAs(signer, { kind: 'operator', actor: options.actor ?? 'seed' }, undefined, options.deadlineMs ?? 30_000);
  const result: SeedResult = { keys: {} };
  try {
    for (const u of seed.users) {
      await clients.identity.upsertUser(
        { user: { id: u.id, email: u.email ?? '', name: u.name, plan: plans.toEnum(u.plan), jitConsent: u.jit_consent } },
        await fresh(),
      );
    }
    for (const o of seed.organizations) {
      await clients.identity.upsertOrganization(
        {
          organization: {
            id: o.id,
            name: o.name,
            jitConsent: o.jit_consent,
            members: o.members.map((m) => ({ userId: m.user, role: roles.toEnum(m.role), joinedAt: m.joined_at })),
          },
        },
        await fresh(),
      );
    }
    for (const c of seed.communities) {
      await clients.communities.upsertCommunity(
        { community: { id: c.id, name: c.name, billingOwner: ownerRef(c.owner), archived: c.archived, apiWrites: c.api_writes } },
        await fresh(),
      );
    }
    for (const p of seed.profiles) {
      await clients.communities.upsertProfile(
        {
          profile: {
            id: p.id, userId: p.user ?? '', public: p.public, name: p.name, headline: p.headline ?? '', bio: p.bio ?? '',
            organization: p.organization ?? '', location: p.location ?? '', email: p.email ?? '',
            linkedinUrl: p.linkedin_url ?? '', orcid: p.orcid ?? '', avatarUrl: p.avatar_url ?? '', placeholderUserId: '',
          },
        },
        await fresh(),
      );
    }
    for (const m of seed.memberships) {
      await clients.communities.upsertMembership(
        { membership: { communityId: m.community, profileId: m.profile, role: roles.toEnum(m.role), joinedAt: m.joined_at, sourceIdentifier: '' } },
        await fresh(),
      );
    }
    for (const w of seed.wallets) {
      await clients.billing.setWalletBalance({ owner: ownerRef(w.owner), balance: w.balance }, await fresh());
    }
    for (const k of seed.keys) {
      const allowlist = k.allowlist ? { communityIds: k.allowlist } : undefined;
      if ('organization' in k.owner) {
        await clients.identity.importLegacyOrganizationKey(
          { id: k.id, organizationId: k.owner.organization, secret: k.secret ?? '', scopes: k.scopes, allowlist,
            requestedRate: k.requested_rate ?? 0, mintedByUserId: '' },
          await fresh(),
        );
        continue;
      }
      const minted = await clients.identity.mintKey(
        { id: k.id, userId: k.owner.user, secret: k.secret ?? '', scopes: k.scopes, allowlist,
          requestedRate: k.requested_rate ?? 0, environment: k.environment ? keyEnvironments.toEnum(k.environment) : 0 },
        await fresh(),
      );
      if (!k.secret && minted.secret) result.keys[k.id] = minted.secret;
    }
  } catch (error) {
    const remote = readRemoteError(error);
    if (remote) throw new SeedError([`${remote.code ?? 'error'}: ${remote.message}`]);
    throw error;
  }
  return result;
}
