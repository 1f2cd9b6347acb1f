// Applies a seed document through the services' own gRPC methods, as the operator, in dependency
// order (docs/API-DECISIONS.md "Seed files"). Keys go through the same minting path as any key (the
// tier is computed from the owner's standing now); a key without a secret is minted and its secret
// returned once.
//
// The seed ledger (identity) remembers a fingerprint of each record as it was applied:
//   - a record whose fields in the file are unchanged is skipped, so whatever the system did since
//     (a plan change, a write setting, a revocation, a charge) stands;
//   - a record the file changed is applied again — except that a membership or profile the ledger
//     knows but the store no longer holds was erased by the system, and is not brought back, and an
//     archived community stays archived;
//   - a wallet's balance is a grant posted to the ledger (billing GrantSeedBalance), never a balance
//     overwrite, so charges stay charged and `billing reconcile` stays true.
// Each section is recorded after it was applied; a crash between the two re-applies that section
// with the same fields on the next application, which changes nothing.
import { createHash } from 'node:crypto';
import type { SeedRecord } from '../../proto/gen/expertnet/identity/v1/identity_service.js';
import { callAs, type CallOptions, type ServiceClients } from '../../services/kit/grpc/client.js';
import type { TokenSigner } from '../../services/kit/grpc/caller-token.js';
import { keyEnvironments, ownerTypes, plans, roles } from '../../services/kit/enums.js';
import { readRemoteError } from '../../services/kit/grpc/errors.js';
import { parseSeed, SeedError, type SeedDocument } from './seed-schema.js';

type OwnerJson = { user: string } | { organization: string };
type Kind = 'user' | 'organization' | 'community' | 'profile' | 'membership' | 'wallet' | 'key';

function ownerRef(owner: OwnerJson) {
  return 'user' in owner
    ? { type: ownerTypes.toEnum('user'), id: owner.user }
    : { type: ownerTypes.toEnum('organization'), id: owner.organization };
}

const ownerKey = (owner: OwnerJson) => ('user' in owner ? `user:${owner.user}` : `organization:${owner.organization}`);

/** JSON with object keys sorted, so a record's fingerprint does not depend on key order in the file. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** A one-way digest of the record as the file gives it (a key's secret included, never stored as such). */
export function fingerprintOf(record: unknown): string {
  return createHash('sha256').update(canonical(record)).digest('base64url');
}

export interface SeedResult {
  /** Secrets of keys minted by this application (keys given a secret, or already present, are not listed). */
  keys: Record<string, string>;
}

async function exists(lookup: Promise<unknown>): Promise<boolean> {
  try {
    await lookup;
    return true;
  } catch (error) {
    if (readRemoteError(error)?.code === 'not_found') return false;
    throw error;
  }
}

export async function applySeed(
  clients: ServiceClients,
  signer: TokenSigner,
  input: unknown,
  options: { actor?: string; deadlineMs?: number; onProgress?: (done: number, total: number) => void } = {},
): Promise<SeedResult> {
  const seed: SeedDocument = parseSeed(input);
  const actor = options.actor ?? 'seed';
  // Fresh options per call: a large file (the demo set) takes longer than one signed token lives
  // (the signer reuses a token while it is fresh, so this costs nothing).
  const call = (): Promise<CallOptions> => callAs(signer, { kind: 'operator', actor }, undefined, options.deadlineMs ?? 30_000);
  const result: SeedResult = { keys: {} };
  // Progress over every record of the file, applied or skipped as unchanged.
  const total = seed.users.length + seed.organizations.length + seed.communities.length + seed.profiles.length +
    seed.memberships.length + seed.wallets.length + seed.keys.length;
  let progressed = 0;
  options.onProgress?.(0, total);
  // Nothing to apply, nothing to ask: a serving process given an empty seed (deploy/k8s) makes no operator call.
  if (total === 0) return result;

  try {
    const state = await clients.identity.getSeedState({}, await call());
    const applied = new Map(state.records.map((r) => [`${r.kind}\u0000${r.recordId}`, r.fingerprint]));

    /**
     * Works one section: for each record whose fingerprint differs from the ledger's, `apply` is
     * called with whether the ledger knew the record; then the section is recorded.
     */
    async function section<T>(kind: Kind, records: T[], idOf: (r: T) => string, apply: (r: T, known: boolean) => Promise<void>): Promise<void> {
      const done: SeedRecord[] = [];
      for (const record of records) {
        const recordId = idOf(record);
        const fingerprint = fingerprintOf(record);
        const before = applied.get(`${kind}\u0000${recordId}`);
        if (before !== fingerprint) {
          await apply(record, before !== undefined);
          done.push({ kind, recordId, fingerprint });
          applied.set(`${kind}\u0000${recordId}`, fingerprint);
        }
        options.onProgress?.(++progressed, total);
      }
      if (done.length > 0) await clients.identity.recordSeedRecords({ records: done, seededBy: '' }, await call());
    }

    await section('user', seed.users, (u) => u.id, async (u) => {
      await clients.identity.upsertUser(
        { user: { id: u.id, email: u.email ?? '', name: u.name, plan: plans.toEnum(u.plan), jitConsent: u.jit_consent } },
        await call(),
      );
    });
    await section('organization', seed.organizations, (o) => o.id, async (o) => {
      await clients.identity.upsertOrganization(
        {
          organization: {
            id: o.id,
            name: o.name,
            jitConsent: o.jit_consent,
            members: o.members.map((m) => ({ userId: m.user, role: roles.toEnum(m.role), joinedAt: m.joined_at })),
          },
        },
        await call(),
      );
    });
    await section('community', seed.communities, (c) => c.id, async (c) => {
      // An archival is never undone by a seed: archived now stays archived.
      let archived = c.archived;
      try {
        archived ||= (await clients.communities.getCommunity({ communityId: c.id }, await call())).community?.archived ?? false;
      } catch (error) {
        if (readRemoteError(error)?.code !== 'not_found') throw error;
      }
      await clients.communities.upsertCommunity(
        { community: { id: c.id, name: c.name, billingOwner: ownerRef(c.owner), archived, apiWrites: c.api_writes } },
        await call(),
      );
    });
    await section('profile', seed.profiles, (p) => p.id, async (p, known) => {
      // Known to the ledger but gone from the store: erased (an unclaimed person erased from their
      // last community). Not brought back.
      if (known && !(await exists(clients.communities.getProfile({ profileId: p.id, userId: '' }, await call())))) return;
      await clients.communities.upsertProfile(
        {
          // A value the file leaves out (or null) is an unset field.
          profile: {
            id: p.id, userId: p.user ?? undefined, public: p.public, name: p.name, headline: p.headline ?? undefined, bio: p.bio ?? undefined,
            organization: p.organization ?? undefined, location: p.location ?? undefined, email: p.email ?? undefined,
            linkedinUrl: p.linkedin_url ?? undefined, orcid: p.orcid ?? undefined, avatarUrl: p.avatar_url ?? undefined,
          },
        },
        await call(),
      );
    });
    await section('membership', seed.memberships, (m) => `${m.community}/${m.profile}`, async (m, known) => {
      // Known to the ledger but gone from the store: erased by the community. Not re-created.
      if (known && !(await exists(clients.communities.getMembership({ communityId: m.community, profileId: m.profile }, await call())))) return;
      await clients.communities.upsertMembership(
        { membership: { communityId: m.community, profileId: m.profile, role: roles.toEnum(m.role), joinedAt: m.joined_at, sourceIdentifier: '' } },
        await call(),
      );
    });
    await section('wallet', seed.wallets, (w) => ownerKey(w.owner), async (w) => {
      await clients.billing.grantSeedBalance({ owner: ownerRef(w.owner), balance: w.balance }, await call());
    });
    await section('key', seed.keys, (k) => k.id, async (k) => {
      const allowlist = k.allowlist ? { communityIds: k.allowlist } : undefined;
      if ('organization' in k.owner) {
        await clients.identity.importLegacyOrganizationKey(
          { id: k.id, organizationId: k.owner.organization, secret: k.secret ?? '', scopes: k.scopes, allowlist,
            requestedRate: k.requested_rate ?? 0, mintedByUserId: '' },
          await call(),
        );
        return;
      }
      // An existing key keeps its secret and its revocation; only its grants follow the file.
      const minted = await clients.identity.mintKey(
        { id: k.id, userId: k.owner.user, secret: k.secret ?? '', scopes: k.scopes, allowlist,
          requestedRate: k.requested_rate ?? 0, environment: k.environment ? keyEnvironments.toEnum(k.environment) : 0 },
        await call(),
      );
      if (!k.secret && minted.secret) result.keys[k.id] = minted.secret;
    });
    // From now on the store counts as seeded: a start without SEED_FILE adds no demo data.
    await clients.identity.recordSeedRecords({ records: [], seededBy: actor }, await call());
  } catch (error) {
    const remote = readRemoteError(error);
    if (remote) throw new SeedError([`${remote.code ?? 'error'}: ${remote.message}`]);
    throw error;
  }
  return result;
}
