// What the communities service's handlers and domain modules share: dependencies, the
// repository and what reach needs.
import type { ServiceDeps } from '../kit/service-deps.js';
import { createCommunityRepository, type CommunityRepository } from './community.repository.js';
import type { ReachDeps } from './reach.js';

export type CommunitiesDeps = Pick<ServiceDeps, 'db' | 'clients' | 'signer' | 'deadlineMs' | 'logger' | 'pepper'>;

export interface CommunitiesContext {
  deps: CommunitiesDeps;
  repo: CommunityRepository;
  reachDeps: ReachDeps;
}

export function createCommunitiesContext(deps: CommunitiesDeps): CommunitiesContext {
  return {
    deps,
    repo: createCommunityRepository(deps.db),
    reachDeps: { db: deps.db, clients: deps.clients, signer: deps.signer, deadlineMs: deps.deadlineMs },
  };
}
