// What the communities service's handlers and domain modules share: dependencies, the
// repository and what reach needs.
import { batchedRead, distinctAsks } from '../kit/batched-read.js';
import type { ServiceDeps } from '../kit/service-deps.js';
import { createCommunityRepository, rosterAskKey, type CommunityRepository, type RosterAsk, type RosterRow } from './community.repository.js';
import type { ReachDeps } from './reach.js';
import { rosterCursorKey } from './roster-cursor.js';
import { createKeptRosterRows } from './roster-rows-kept.js';

export type CommunitiesDeps = Pick<ServiceDeps, 'db' | 'clients' | 'signer' | 'deadlineMs' | 'logger' | 'pepper'>;

export interface CommunitiesContext {
  deps: CommunitiesDeps;
  repo: CommunityRepository;
  reachDeps: ReachDeps;
  /**
   * A roster page and a member read (repo.listRosterPages, findRosterMembers), each read together
   * with the other requests of the same moment (batched-read.ts).
   */
  rosterPage: (ask: RosterAsk) => Promise<{ inReach: boolean; rows: RosterRow[] }>;
  rosterMember: (ask: RosterAsk) => Promise<{ inReach: boolean; row?: RosterRow }>;
  /** The key sealing roster cursors (roster-cursor.ts), derived from the pepper once. */
  rosterCursorKey: Buffer;
}

export function createCommunitiesContext(deps: CommunitiesDeps): CommunitiesContext {
  const repo = createCommunityRepository(deps.db, createKeptRosterRows<RosterRow>());
  return {
    deps,
    repo,
    rosterPage: batchedRead(distinctAsks(rosterAskKey, repo.listRosterPages)),
    rosterMember: batchedRead(distinctAsks(rosterAskKey, repo.findRosterMembers)),
    rosterCursorKey: rosterCursorKey(deps.pepper),
    reachDeps: { db: deps.db, clients: deps.clients, deadlineMs: deps.deadlineMs },
  };
}
