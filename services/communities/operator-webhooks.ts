// The operator's reads of webhooks (npm run admin -- webhooks endpoints, events; docs/CLI.md): every
// owner's endpoints (or one owner's) with whose each is and why a disabled one is, never a secret;
// and the whole event log with whose each event is — no caller's fence, the operator sees it all.
// Newest first, keyset pages bound to their list (services/kit/list-cursor.ts).
import type { OwnerRef } from '../../proto/gen/expertnet/common/v1/common.js';
import {
  Event,
  type ListAllEventsResponse,
  type ListAllWebhookEndpointsRequest,
  type ListAllWebhookEndpointsResponse,
  type ListAllEventsRequest,
} from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { ownerTypes } from '../kit/enums.js';
import { isEventType } from '../kit/event-types.js';
import { domainError } from '../kit/grpc/errors.js';
import { decodeListCursor, encodeListCursor } from '../kit/list-cursor.js';
import { clampPageSize, pageOf } from '../kit/paging.js';
import type { CommunitiesContext } from './communities-context.js';
import { createOperatorWebhooksRepository, type OwnedEndpointRow } from './operator-webhooks.repository.js';

const PAGE_DEFAULT = 50;
const PAGE_MAX = 200;

/** A page's rows cut to `limit`, and the cursor of what follows, bound to `list`. */
function paged<T extends { id: string; created_key: string }>(list: string, rows: T[], limit: number) {
  return pageOf(rows, limit, (last) => encodeListCursor(list, { id: last.id, at: last.created_key }));
}

const positionOf = (list: string, token: string) => {
  if (!token) return undefined;
  const { id, at } = decodeListCursor(list, token, true);
  return { id, at: at! };
};

const ownerRef = (type: string | null, id: string | null): OwnerRef | undefined =>
  type && id && ownerTypes.isName(type) ? { type: ownerTypes.toEnum(type), id } : undefined;

function ownedEndpoint(row: OwnedEndpointRow) {
  return {
    owner: ownerRef(row.owner_type, row.owner_id),
    endpoint: {
      id: row.id, url: row.url, events: row.events, description: row.description ?? undefined, status: row.status,
      createdAt: row.created_at.toISOString(), disabledReason: row.disabled_reason ?? undefined,
    },
  };
}

export function operatorWebhookHandlers(context: CommunitiesContext) {
  const repo = createOperatorWebhooksRepository(context.deps.db);
  return {
    async listAllWebhookEndpoints(request: ListAllWebhookEndpointsRequest): Promise<ListAllWebhookEndpointsResponse> {
      const owner = request.owner?.id ? { type: ownerTypes.toName(request.owner.type, 'owner.type'), id: request.owner.id } : undefined;
      const list = `webhook_endpoints:${owner ? `${owner.type}:${owner.id}` : '*'}`;
      const limit = clampPageSize(request.pageSize, PAGE_DEFAULT, PAGE_MAX);
      const page = paged(list, await repo.endpoints(owner, positionOf(list, request.pageToken), limit + 1), limit);
      return { endpoints: page.items.map(ownedEndpoint), nextPageToken: page.nextPageToken };
    },

    async listAllEvents(request: ListAllEventsRequest): Promise<ListAllEventsResponse> {
      const type = request.type.trim() || undefined;
      if (type !== undefined && !isEventType(type)) throw domainError('invalid_request', 'type: not an event type');
      const list = `all_events:${type ?? '*'}`;
      const limit = clampPageSize(request.pageSize, PAGE_DEFAULT, PAGE_MAX);
      const page = paged(list, await repo.events(type, positionOf(list, request.pageToken), limit + 1), limit);
      return {
        events: page.items.map((row) => ({
          event: Event.fromJSON(row.payload), credentialId: row.credential_id ?? '', userId: row.user_id ?? '', communityId: row.community_id ?? '',
          credentialOwner: ownerRef(row.owner_type, row.owner_id),
        })),
        nextPageToken: page.nextPageToken,
      };
    },
  };
}

/** The operator only: end users read their own through ListWebhookEndpoints and ListEvents. */
export const OPERATOR_WEBHOOK_ACCESS = {
  listAllWebhookEndpoints: ['operator'],
  listAllEvents: ['operator'],
} as const;
