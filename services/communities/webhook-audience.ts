// Whether an endpoint's owner may see an event now, decided at delivery time like every
// authorization here (docs/WEBHOOKS.md "Who receives what"): a search's events are the owner's of
// the credential that started it; a self run's, its person's; a community run's and the roster's,
// those whose live read reach holds the community — a user's widest (their own reach, no key's
// allowlist), or an organization's (its communities) — computed by the roster's rule (reach.ts).
import { isEventType, resourceOf } from '../kit/event-types.js';
import type { CommunitiesContext } from './communities-context.js';
import { computeReach } from './reach.js';
import type { EndpointOwner } from './webhook-endpoints.repository.js';
import { ownerAsCaller } from './webhook-owner.js';

export interface AudienceOfEvent {
  type: string;
  user_id: string | null;
  community_id: string | null;
  owner_type: string | null;
  owner_id: string | null;
}

export async function ownerMaySee(context: CommunitiesContext, owner: EndpointOwner, event: AudienceOfEvent, requestId: string): Promise<boolean> {
  if (!isEventType(event.type)) return false;
  const resource = resourceOf(event.type);
  if (resource === 'search') return event.owner_type === owner.type && event.owner_id === owner.id;
  if (resource === 'self_enrichment_run') return owner.type === 'user' && event.user_id === owner.id;
  if (!event.community_id) return false;
  return (await computeReach(context.reachDeps, ownerAsCaller(owner), requestId)).read.has(event.community_id);
}
