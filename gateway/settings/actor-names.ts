// Who did something, as the communities screen names them: the services record an actor
// (`user:ID` for a person, `seed-file` or `demo-seed` for a seed, an operator's own name), and a
// person reads a name. The signed-in person is named by their name; another person (a fellow
// manager of the organization) is not named by id either: the settings app reads no other user's
// record, so they are "another manager of this community".
import type { ConsentRequest, ControlledCommunity } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import type { SignedInUser } from './context.js';

const SEEDS: Record<string, string> = { 'seed-file': 'the seed file', 'demo-seed': 'the demo seed' };

/** An actor in words, seen by `viewer`. */
export function actorInWords(actor: string, viewer: SignedInUser): string {
  if (actor === `user:${viewer.id}`) return `you (${viewer.name})`;
  if (actor.startsWith('user:')) return 'another manager of this community';
  if (Object.hasOwn(SEEDS, actor)) return SEEDS[actor]!;
  return actor ? `an operator (${actor})` : 'an operator';
}

interface Item {
  controlled: ControlledCommunity;
  resolved?: readonly ConsentRequest[];
}

/** The screen's items with every recorded actor (attestations, decisions) in words, ready to show. */
export function withActorsInWords<T extends Item>(items: readonly T[], viewer: SignedInUser): T[] {
  return items.map((item) => ({
    ...item,
    controlled: { ...item.controlled, attestations: item.controlled.attestations.map((a) => ({ ...a, actor: actorInWords(a.actor, viewer) })) },
    ...(item.resolved && { resolved: item.resolved.map((r) => ({ ...r, resolvedBy: actorInWords(r.resolvedBy, viewer) })) }),
  }));
}
