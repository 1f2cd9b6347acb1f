// Whether an endpoint's owner may see an event now, decided at delivery time like every
// authorization here (docs/WEBHOOKS.md "Who receives what"): a search's events are the owner's of
// the credential that started it; a self run's, its person's; a community run's and the roster's,
// those whose live read reach holds the community — a user's widest (their own reach, no key's
// allowlist), or an organization's (its communities) — computed by the roster's rule (reach.ts).
import { Caller, CredentialKind, OwnerType } from '../../proto/gen/expertnet/common/v1/common.js';
import { isEventType, resourceOf } from '../kit/event-types.js';
import type { CommunitiesContext } from './communities-context.js';
import { computeReach } from './reach.js';
import type { EndpointOwner } from './webhook-endpoints.repository.js';

export interface AudienceOfEvent {
  type: string;
  user_id: string | null;
  community_id: string | null;
  owner_type: string | null;
  owner_id: string | null;
}

function ownerCaller(owner: EndpointOwner): Caller {
  if (owner.type === 'organization') return Caller.fromPartial({ credential: CredentialKind.CREDENTIAL_KIND_API_KEY, owner: { type: OwnerType.OWNER_TYPE_ORGANIZATION, id: owner.id } });
  return Caller.fromPartial({ credential: CredentialKind.CREDENTIAL_KIND_API_KEY, owner: { type: OwnerType.OWNER_TYPE_USER, id: owner.id }, userId: owner.id });
}

export async function ownerMaySee(context: CommunitiesContext, owner: EndpointOwner, event: AudienceOfEvent, requestId: string): Promise<boolean> {
  if (!isEventType(event.type)) return false;
  const resource = resourceOf(event.type);
  if (resource === 'search') return event.owner_type === owner.type && event.owner_id === owner.id;
  if (resource === 'self_enrichment_run') return owner.type === 'user' && event.user_id === owner.id;
  if (!event.community_id) return false;
  return (await computeReach(context.reachDeps, ownerCaller(owner), requestId)).read.has(event.community_id);
}
