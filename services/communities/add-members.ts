// Bulk add (docs/COMMUNITIES.md): each item is normalized, matched to an existing person (email,
// then LinkedIn URL, then ORCID iD; an item with a name alone: a member of this community of that
// name) or made a new unclaimed placeholder profile, and given a membership with a fresh source
// identifier. Items are independent: one rejected item — one the edge's schema already refused,
// or one these rules refuse — never stops the others. Text the store cannot keep (NUL, a lone
// surrogate: services/kit/request-text.ts) rejects its item here, naming the field: the gRPC door
// leaves a bulk add's items to this check (communities.service.ts `itemized`), so an internal caller
// gets the same per-item answer as the edge.
//
// Concurrency: each item runs in its own short transaction that first takes an advisory lock per
// normalized identifier (services/communities/member-write.repository.ts), so parallel adds of the
// same person — in this community or any other — find one profile instead of creating two, and
// the membership insert is ON CONFLICT DO NOTHING. No remote call happens inside a transaction.
//
// Whole or not at all: an item's transaction writes its profile, its membership (which is what makes
// the person eligible for the community's enrichment runs) and the follow-up that owes the person's
// search document (index-followup.ts), so a fault after the commit — search unreachable, the
// process gone — leaves the document to the sweeper rather than losing it; an item that fails
// before its commit writes nothing.
import { randomUUID } from 'node:crypto';
import { AddMemberStatus, type AddMemberItem, type AddMemberResult } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import type { RoleName } from '../kit/enums.js';
import { newId } from '../kit/ids.js';
import { textProblem } from '../kit/request-text.js';
import type { CommunitiesContext } from './communities-context.js';
import type { Supplied } from './community.repository.js';
import { createIndexFollowupRepository } from './index-followup.repository.js';
import { createMemberWriteRepository, type MatchField, type MemberWriteRepository } from './member-write.repository.js';
import { normalizeEmail, normalizeLinkedinUrl, normalizeOrcid, type Normalized } from './normalize.js';
import { runCreateAccount } from './placeholders.js';
import { recordMemberAdded } from './roster-events.js';

export const ADD_MEMBERS_MAX = 100;
export const NAME_MAX = 300;
export const TEXT_MAX = 10_000;

interface PreparedItem {
  email?: { value: string; key: string };
  linkedin?: { value: string; key: string };
  orcid?: { value: string; key: string };
  name: string | null;
  seed: { headline: string | null; bio: string | null; organization: string | null; location: string | null };
}

class ItemRejected extends Error {}

const text = (s: string) => (s.trim() === '' ? null : s.trim());

function accepted(n: Normalized): { value: string; key: string } {
  if (!n.ok) throw new ItemRejected(n.reason);
  return { value: n.value, key: n.key };
}

/** An item's text fields by their API names, in the order a rejection names the first bad one. */
const TEXT_FIELDS: Array<[string, keyof AddMemberItem]> = [
  ['email', 'email'], ['linkedin_url', 'linkedinUrl'], ['orcid', 'orcid'], ['name', 'name'],
  ['headline', 'headline'], ['bio', 'bio'], ['organization', 'organization'], ['location', 'location'],
];

/** Validates and normalizes one item; throws ItemRejected with the reason. */
export function prepareItem(item: AddMemberItem): PreparedItem {
  if (item.rejectedReason) throw new ItemRejected(item.rejectedReason);
  for (const [field, key] of TEXT_FIELDS) {
    const problem = textProblem(String(item[key]));
    if (problem) throw new ItemRejected(`${field}: ${problem}`);
  }
  const prepared: PreparedItem = {
    name: text(item.name),
    seed: { headline: text(item.headline), bio: text(item.bio), organization: text(item.organization), location: text(item.location) },
  };
  if (item.email.trim()) prepared.email = accepted(normalizeEmail(item.email));
  if (item.linkedinUrl.trim()) prepared.linkedin = accepted(normalizeLinkedinUrl(item.linkedinUrl));
  if (item.orcid.trim()) prepared.orcid = accepted(normalizeOrcid(item.orcid));
  if (!prepared.email && !prepared.linkedin && !prepared.orcid && !prepared.name) {
    throw new ItemRejected('give at least one of email, linkedin_url, orcid, name');
  }
  if (prepared.name && prepared.name.length > NAME_MAX) throw new ItemRejected(`name is longer than ${NAME_MAX} characters`);
  for (const [field, value] of Object.entries(prepared.seed)) {
    if (value && value.length > TEXT_MAX) throw new ItemRejected(`${field} is longer than ${TEXT_MAX} characters`);
  }
  return prepared;
}

/** Display name of a new placeholder when the item names none: the identifier it came with. */
function displayName(p: PreparedItem): string {
  if (p.name) return p.name;
  if (p.email) return p.email.value.slice(0, p.email.value.indexOf('@'));
  if (p.linkedin) return decodeURIComponentSafe(p.linkedin.key);
  return `ORCID ${p.orcid!.value}`;
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

const MATCH_ORDER: Array<[keyof Pick<PreparedItem, 'email' | 'linkedin' | 'orcid'>, MatchField, string]> = [
  ['email', 'email_key', 'e:'],
  ['linkedin', 'linkedin_key', 'l:'],
  ['orcid', 'orcid_key', 'o:'],
];

interface Placed {
  profileId: string;
  created: boolean;
  added: boolean;
}

/** A name as it is matched: trimmed, inner whitespace collapsed, lower-cased. */
export const nameKey = (name: string) => name.trim().replace(/\s+/g, ' ').toLowerCase();

/**
 * The member of this community an item with a name alone stands for: the one member of that name,
 * or none (a new person). Two or more members of that name reject the item: guessing would add
 * nobody and report the wrong person, and a new namesake would be a duplicate more often than not.
 */
async function memberByName(writes: MemberWriteRepository, communityId: string, name: string): Promise<string | undefined> {
  const found = await writes.findMembersByName(communityId, nameKey(name), 2);
  if (found.length > 1) {
    throw new ItemRejected(`several members of this community are named "${name}"; identify the person by email, linkedin_url or orcid`);
  }
  return found[0];
}

/** One item's transaction: match or create the person, then the membership. */
async function place(context: CommunitiesContext, communityId: string, role: RoleName, p: PreparedItem): Promise<Placed> {
  return context.deps.db.transaction(async (tx) => {
    const writes = createMemberWriteRepository(tx);
    const present = MATCH_ORDER.filter(([field]) => p[field]);
    // A name alone is matched within this community only, so it is locked there: two concurrent
    // adds of one name find one person.
    const locks = present.length > 0 ? present.map(([field, , prefix]) => prefix + p[field]!.key) : [`n:${communityId}:${nameKey(p.name!)}`];
    await writes.lockIdentifiers(locks);
    let profileId: string | undefined;
    for (const [field, column] of present) {
      profileId = (await writes.findProfileBy(column, p[field]!.key))?.id;
      if (profileId) break;
    }
    if (present.length === 0) profileId = await memberByName(writes, communityId, p.name!);
    let created = false;
    if (!profileId) {
      profileId = newId('p');
      created = true;
      await writes.insertProfile({
        id: profileId,
        name: displayName(p),
        ...p.seed,
        email: p.email?.value ?? null,
        linkedin_url: p.linkedin?.value ?? null,
        orcid: p.orcid?.value ?? null,
      });
      await writes.addTask('create_account', profileId, null);
    }
    // What this community said about the person: all it sees of them while their profile is not
    // public, whether the add matched someone or created them (member-view.ts).
    const supplied: Supplied = {
      name: displayName(p),
      ...p.seed,
      email: p.email?.value ?? null,
      linkedin_url: p.linkedin?.value ?? null,
      orcid: p.orcid?.value ?? null,
    };
    const added = await writes.insertMembershipIfAbsent(communityId, profileId, role, `src_${randomUUID()}`, supplied);
    // Its event, once: only the item that made the membership records it.
    if (added) await recordMemberAdded(tx, communityId, profileId);
    // The person's search document is owed from this commit on, added or already a member.
    await createIndexFollowupRepository(tx).add(communityId, profileId);
    return { profileId, created, added };
  });
}

/** Adds the items in order; one result per item. The caller has passed write gating. */
export async function addMembers(
  context: CommunitiesContext,
  communityId: string,
  role: RoleName,
  items: AddMemberItem[],
  requestId: string,
): Promise<AddMemberResult[]> {
  const results: AddMemberResult[] = [];
  const createdProfiles: string[] = [];
  for (const [index, item] of items.entries()) {
    let placed: Placed;
    try {
      placed = await place(context, communityId, role, prepareItem(item));
    } catch (error) {
      if (!(error instanceof ItemRejected)) throw error;
      results.push({ index, status: AddMemberStatus.ADD_MEMBER_STATUS_REJECTED, profileId: '', errorCode: 'invalid_request', errorMessage: error.message });
      continue;
    }
    if (placed.created) createdProfiles.push(placed.profileId);
    results.push({
      index,
      status: placed.added ? AddMemberStatus.ADD_MEMBER_STATUS_ADDED : AddMemberStatus.ADD_MEMBER_STATUS_ALREADY_MEMBER,
      profileId: placed.profileId,
      errorCode: '',
      errorMessage: '',
    });
  }
  // Auth accounts of the new placeholders, after the commits. A failure leaves the task to the
  // sweeper: the people are members either way.
  for (const profileId of createdProfiles) await runCreateAccount(context, profileId, requestId);
  context.deps.logger.info(
    { requestId, communityId, items: items.length, created: createdProfiles.length,
      added: results.filter((r) => r.status === AddMemberStatus.ADD_MEMBER_STATUS_ADDED).length },
    'members added',
  );
  return results;
}
