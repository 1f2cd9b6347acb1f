// The collaborators step (deep tier): which other members of the same community co-authored the
// person's recent works, and on how many of them. A co-author is matched to a peer by ORCID iD,
// else by their normalised name when exactly one peer has it — two peers of one name cannot be
// told apart, and a wrong collaborator is worse than a missing one.
import { nameKey, orcidOrNull } from './normalize.js';
import type { Collaborator, RecentWork } from './found.js';
import { skip, type CommunityPeer, type Step } from './types.js';

interface PeerIndex {
  byOrcid: Map<string, CommunityPeer>;
  /** null: several peers share the name. */
  byName: Map<string, CommunityPeer | null>;
}

// A run passes the same peers array for every person of the community: index it once.
const indexes = new WeakMap<readonly CommunityPeer[], PeerIndex>();

function indexOf(peers: readonly CommunityPeer[]): PeerIndex {
  let index = indexes.get(peers);
  if (!index) {
    index = { byOrcid: new Map(), byName: new Map() };
    for (const peer of peers) {
      const orcid = orcidOrNull(peer.orcid);
      if (orcid) index.byOrcid.set(orcid, peer);
      const key = nameKey(peer.name);
      if (key) index.byName.set(key, index.byName.has(key) ? null : peer);
    }
    indexes.set(peers, index);
  }
  return index;
}

/** Peers among the works' co-authors (the person themself left out), most shared works first. */
function findCollaborators(works: readonly RecentWork[], peers: readonly CommunityPeer[], selfProfileId: string): Collaborator[] {
  const index = indexOf(peers);
  const counts = new Map<string, Collaborator>();
  for (const work of works) {
    const inWork = new Set<CommunityPeer>();
    for (const coAuthor of work.coAuthors) {
      const peer = (coAuthor.orcid ? index.byOrcid.get(coAuthor.orcid) : undefined) ?? index.byName.get(nameKey(coAuthor.name));
      if (peer && peer.profileId !== selfProfileId) inWork.add(peer);
    }
    for (const peer of inWork) {
      const entry = counts.get(peer.profileId);
      if (entry) entry.sharedWorks++;
      else counts.set(peer.profileId, { profileId: peer.profileId, name: peer.name, sharedWorks: 1 });
    }
  }
  return [...counts.values()].sort((a, b) => b.sharedWorks - a.sharedWorks || a.name.localeCompare(b.name));
}

export const collaboratorsStep: Step = {
  name: 'collaborators',
  depth: 'deep',
  async run({ person, found, peers }) {
    if (!found.recentWorks || found.recentWorks.length === 0) return skip('no recent works');
    if (!peers.some((p) => p.profileId !== person.profileId)) return skip('no community peers');
    return { found: { collaborators: findCollaborators(found.recentWorks, peers, person.profileId) } };
  },
};
