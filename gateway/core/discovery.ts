// Discovery for the REST and MCP surfaces: the communities a credential reaches and the recent
// enrichment runs of a community or of the caller, asked of the communities and enrichment
// services as the caller (each re-checks the scope and the reach). Shapes: contract/discovery.ts.
import { Role } from '../../proto/gen/expertnet/common/v1/common.js';
import type { z } from 'zod';
import type { CommunitySummary as CommunitySummaryMessage } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { roles } from '../../services/kit/enums.js';
import { ApiError, fromRemote } from './api-error.js';
import type { CallerContext, Edge } from './edge.js';
import type { CommunityPage, CommunitySummary, RunPage } from './contract/discovery.js';
import { runView } from './enrichment-view.js';

export type CommunitySummaryView = z.output<typeof CommunitySummary>;
export type CommunityPageView = z.output<typeof CommunityPage>;
export type RunPageView = z.output<typeof RunPage>;

/** `limit` already defaulted and clamped by the contract; `after` passed on untouched (the service verifies it). */
export interface ListQuery {
  limit: number;
  after?: string | undefined;
}

function summaryView(s: CommunitySummaryMessage): CommunitySummaryView {
  const c = s.community;
  if (!c?.createdAt) throw new ApiError(500, 'internal', 'internal error');
  return {
    community_id: c.id,
    name: c.name,
    role: s.role === Role.ROLE_UNSPECIFIED ? null : roles.toName(s.role),
    write_access: s.writeAccess,
    api_writes_enabled: c.apiWrites,
    member_count: s.memberCount,
    created_at: c.createdAt,
  };
}

export async function listCommunities(edge: Edge, ctx: CallerContext, query: ListQuery): Promise<CommunityPageView> {
  try {
    const page = await edge.clients.communities.listCommunities({ pageSize: query.limit, pageToken: query.after ?? '' }, await edge.as(ctx));
    return { communities: page.communities.map(summaryView), next_cursor: page.nextPageToken || null };
  } catch (error) {
    throw fromRemote(error);
  }
}

/** A community's runs when communityId is given, else the caller's own self-enrichment runs. */
export async function listEnrichmentRuns(edge: Edge, ctx: CallerContext, communityId: string | undefined, query: ListQuery): Promise<RunPageView> {
  try {
    const page = await edge.clients.enrichment.listRuns(
      { communityId: communityId ?? '', pageSize: query.limit, pageToken: query.after ?? '' },
      await edge.as(ctx),
    );
    return { runs: page.runs.map(runView), next_cursor: page.nextPageToken || null };
  } catch (error) {
    throw fromRemote(error);
  }
}
