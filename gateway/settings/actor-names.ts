// Who did something, as the communities screen names them: the services record an actor
// (`user:ID` for a person, `seed-file` or `demo-seed` for a seed, an operator's own name) and, for
// a person acting here, their display name as it was then (the app sends it with the change; it
// reads no other user's record). The signed-in person is *you (their name)*; a fellow manager is
// named by their recorded name, never by id; one who acted before names were recorded is "another
// manager of this community".
import type { ConsentRequest, ControlledCommunity } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import type { SignedInUser } from './context.js';

const SEEDS: Record<string, string> = { 'seed-file': 'the seed file', 'demo-seed': 'the demo seed' };

/** An actor (with the name recorded beside it, or '') in words, seen by `viewer`. */
export function actorInWords(actor: string, name: string, viewer: SignedInUser): string {
  if (actor === `user:${viewer.id}`) return `you (${viewer.name})`;
  if (actor.startsWith('user:')) return name || 'another manager of this community';
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
    controlled: {
      ...item.controlled,
      attestations: item.controlled.attestations.map((a) => ({ ...a, actor: actorInWords(a.actor, a.actorName, viewer) })),
    },
    ...(item.resolved && { resolved: item.resolved.map((r) => ({ ...r, resolvedBy: actorInWords(r.resolvedBy, r.resolvedByName, viewer) })) }),
  }));
}
