// Each gated write as the consent queue shows it, and the target its fingerprint is taken over
// (write-fingerprint.ts): a bulk add's people (how many, and their names or identifiers), an
// erasure's member. The person deciding sees what they approve, not just the operation's name.
import type { AddMemberItem, AddMembersRequest } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { textProblem } from '../kit/request-text.js';
import type { CommunitiesContext } from './communities-context.js';
import { canonicalJson } from './write-fingerprint.js';
import type { WriteAsked } from './write-gating.js';

/** How many people a description names before "and N more". */
const NAMED_MAX = 10;

const shortened = (value: string) => (value.length > 120 ? `${value.slice(0, 119)}…` : value);

/**
 * What an item is called: its name with the identifier that finds the person (a name alone could
 * be anyone's: the identifier decides who is added), else the identifier alone; text the store
 * cannot keep is not repeated.
 */
function label(item: AddMemberItem): string {
  const readable = (v: string) => (v.trim() && !textProblem(v) ? shortened(v.trim()) : '');
  const name = readable(item.name);
  const identifier = [item.email, item.linkedinUrl, item.orcid].map(readable).find(Boolean) ?? '';
  if (name && identifier) return `${name} <${identifier}>`;
  return name || identifier || '(an item without a readable name or identifier)';
}

export function addDescribed(request: AddMembersRequest, role: string): WriteAsked {
  const { communityId: _community, ...body } = request;
  const count = request.members.length;
  const named = request.members.slice(0, NAMED_MAX).map(label).join('; ');
  const more = count > NAMED_MAX ? `; and ${count - NAMED_MAX} more` : '';
  return {
    target: canonicalJson(body),
    description: `add ${count} ${count === 1 ? 'person' : 'people'} as ${role}: ${named}${more}`,
  };
}

/** An erasure: the member by id, and by name when the profile is public (the roster shows it so). */
export async function removeDescribed(context: CommunitiesContext, communityId: string, profileId: string): Promise<WriteAsked> {
  const target = canonicalJson({ profile_id: profileId });
  const membership = await context.repo.findMembership(communityId, profileId);
  if (!membership) return { target, description: `erase ${profileId} (not a member now)` };
  const profile = await context.repo.findProfile(profileId);
  const name = profile?.public && profile.name && !textProblem(profile.name) ? `${profile.name} ` : '';
  return { target, description: `erase member ${name}(${profileId}) and their data in this community` };
}
