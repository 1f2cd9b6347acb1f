// The communities a caller reaches (GET /v1/communities): the read reach, computed live like every
// other read (archived communities and those outside an allowlist are not in it), one keyset page
// in id order. Each carries the caller's own membership role, whether it is in the write reach, its
// API-write setting and its member count.
import { OwnerType, Role } from '../../proto/gen/expertnet/common/v1/common.js';
import type { CommunitySummary, ListCommunitiesRequest, ListCommunitiesResponse } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { roles } from '../kit/enums.js';
import { requireCaller } from '../kit/grpc/require-caller.js';
import type { ServiceContext } from '../kit/grpc/server.js';
import { decodeListCursor, encodeListCursor } from '../kit/list-cursor.js';
import { clampPageSize, pageOf } from '../kit/paging.js';
import type { CommunitiesContext } from './communities-context.js';
import { toCommunity } from './communities-messages.js';
import { computeReach } from './reach.js';

export const COMMUNITIES_PAGE_DEFAULT = 50;
export const COMMUNITIES_PAGE_MAX = 200;
const LIST = 'communities';

export async function listCommunities(context: CommunitiesContext, request: ListCommunitiesRequest, ctx: ServiceContext): Promise<ListCommunitiesResponse> {
  // Any valid credential: the list describes the credential's own reach (docs/API-DECISIONS.md).
  const caller = requireCaller(ctx);
  const after = request.pageToken ? decodeListCursor(LIST, request.pageToken, false).id : '';
  const limit = clampPageSize(request.pageSize, COMMUNITIES_PAGE_DEFAULT, COMMUNITIES_PAGE_MAX);
  const reach = await computeReach(context.reachDeps, caller, ctx.requestId);
  // A legacy organization key acts on ownership only: it has no membership role of its own.
  const userId = caller.owner?.type === OwnerType.OWNER_TYPE_ORGANIZATION || !caller.userId ? null : caller.userId;
  const rows = await context.repo.listCommunitiesAmong([...reach.read], after, limit + 1, userId);
  const page = pageOf(rows, limit, (last) => encodeListCursor(LIST, { id: last.id }));
  const communities = page.items.map(
    (row): CommunitySummary => ({
      community: toCommunity(row),
      role: row.role ? roles.toEnum(row.role) : Role.ROLE_UNSPECIFIED,
      writeAccess: reach.write.has(row.id),
      memberCount: row.member_count,
    }),
  );
  return { communities, nextPageToken: page.nextPageToken };
}
