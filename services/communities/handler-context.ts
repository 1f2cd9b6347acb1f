// What every group of communities handlers shares: dependencies, the repository and what reach
// needs. Handlers are split by concern (roster.handlers.ts, member-write.handlers.ts,
// enrichment-support.handlers.ts).
import type { ServiceDeps } from '../kit/service-deps.js';
import type { CommunityRepository } from './community.repository.js';
import type { ReachDeps } from './reach.js';

export type CommunitiesDeps = Pick<ServiceDeps, 'db' | 'clients' | 'signer' | 'deadlineMs' | 'logger' | 'pepper'>;

export interface HandlerContext {
  deps: CommunitiesDeps;
  repo: CommunityRepository;
  reachDeps: ReachDeps;
}
