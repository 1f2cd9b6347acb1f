// The delivery log of a webhook endpoint (docs/WEBHOOKS.md "Delivery"): its deliveries, each with
// its attempts, a resend, and a test delivery. Fenced twice: to the endpoint's owner (another
// owner's endpoint or delivery is not found), and to the events the caller may see now, by the
// event log's own rule (a key that cannot see a community sees no delivery of its events); a person
// signed in to the settings app sees what their widest personal key would, and their own searches.
import type {
  GetWebhookDeliveryRequest,
  ListWebhookDeliveriesRequest,
  ListWebhookDeliveriesResponse,
  SendTestWebhookRequest,
  WebhookDelivery,
  WebhookDeliveryAttempt,
} from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import type { CommunitiesContext } from './communities-context.js';
import { audiencesOf } from './event-log.js';
import { decodeListCursor, encodeListCursor } from '../kit/list-cursor.js';
import { clampPageSize, pageOf } from '../kit/paging.js';
import { domainError } from '../kit/grpc/errors.js';
import type { ServiceContext } from '../kit/grpc/server.js';
import { newId } from '../kit/ids.js';
import { createWebhookDeliveriesRepository, type AttemptRow, type LoggedDelivery } from './webhook-deliveries.repository.js';
import { createWebhookEndpointsRepository } from './webhook-endpoints.repository.js';
import { ownerOfCall, readerOfCall, type WebhookScope } from './webhook-owner.js';

export const DELIVERIES_PAGE_DEFAULT = 20;
export const DELIVERIES_PAGE_MAX = 100;

function toAttempt(a: AttemptRow): WebhookDeliveryAttempt {
  return {
    attempt: a.attempt,
    at: new Date(a.at).toISOString(),
    statusCode: a.status_code ?? undefined,
    latencyMs: a.latency_ms,
    error: a.error ?? undefined,
    responseExcerpt: a.response_excerpt,
  };
}

/** A claimed delivery is still pending to its owner; an ended one has no next attempt. */
function toDelivery(row: LoggedDelivery, log: AttemptRow[] = []): WebhookDelivery {
  const status = row.status === 'running' ? 'pending' : row.status;
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.event_type,
    status,
    attempts: row.tried,
    nextAttemptAt: status === 'pending' ? new Date(row.next_attempt_at).toISOString() : undefined,
    createdAt: new Date(row.created_at).toISOString(),
    lastAttempt: row.last_attempt ? toAttempt(row.last_attempt) : undefined,
    attemptLog: log.map(toAttempt),
    error: row.error ?? undefined,
  };
}

export function webhookDeliveryHandlers(context: CommunitiesContext) {
  const db = context.deps.db;
  const repo = createWebhookDeliveriesRepository(db);
  const endpoints = createWebhookEndpointsRepository(db);
  async function callerOf(ctx: ServiceContext, scope: WebhookScope, endpointId: string) {
    const owner = ownerOfCall(ctx, scope);
    const reader = readerOfCall(ctx, scope);
    const endpoint = await endpoints.find(owner, endpointId);
    if (!endpoint) throw domainError('not_found', `webhook endpoint ${endpointId} not found`);
    return { owner, endpoint, audiences: { ...(await audiencesOf(context, reader.caller, ctx.requestId)), wholeOwner: reader.wholeOwner } };
  }
  async function shown(ctx: ServiceContext, scope: WebhookScope, request: GetWebhookDeliveryRequest) {
    const who = await callerOf(ctx, scope, request.endpointId);
    const row = await repo.find(who.owner, request.endpointId, who.audiences, request.deliveryId);
    if (!row) throw domainError('not_found', `webhook delivery ${request.deliveryId} not found`);
    return { ...who, row };
  }
  const answer = async (who: Awaited<ReturnType<typeof callerOf>>, id: string): Promise<{ delivery: WebhookDelivery }> => {
    const row = (await repo.find(who.owner, who.endpoint.id, who.audiences, id))!;
    return { delivery: toDelivery(row, await repo.attempts(id)) };
  };
  const requireEnabled = (status: string) => {
    if (status !== 'enabled') throw domainError('conflict', 'the endpoint is disabled: enable it (PATCH status enabled) to send to it');
  };
  return {
    async listWebhookDeliveries(request: ListWebhookDeliveriesRequest, ctx: ServiceContext): Promise<ListWebhookDeliveriesResponse> {
      const who = await callerOf(ctx, 'webhooks:read', request.endpointId);
      const list = `deliveries:${request.endpointId}`;
      const after = request.pageToken ? decodeListCursor(list, request.pageToken, true) : undefined;
      const limit = clampPageSize(request.pageSize, DELIVERIES_PAGE_DEFAULT, DELIVERIES_PAGE_MAX);
      const rows = await repo.page(who.owner, request.endpointId, who.audiences, after && { at: after.at!, id: after.id }, limit + 1);
      const page = pageOf(rows, limit, (last) => encodeListCursor(list, { id: last.id, at: last.created_key }));
      return { deliveries: page.items.map((row) => toDelivery(row)), nextPageToken: page.nextPageToken };
    },
    async getWebhookDelivery(request: GetWebhookDeliveryRequest, ctx: ServiceContext): Promise<{ delivery: WebhookDelivery }> {
      const { row } = await shown(ctx, 'webhooks:read', request);
      return { delivery: toDelivery(row, await repo.attempts(row.id)) };
    },
    async resendWebhookDelivery(request: GetWebhookDeliveryRequest, ctx: ServiceContext): Promise<{ delivery: WebhookDelivery }> {
      const who = await shown(ctx, 'webhooks:write', request);
      requireEnabled(who.endpoint.status);
      await repo.requeue(who.row.id);
      return answer(who, who.row.id);
    },
    async sendTestWebhook(request: SendTestWebhookRequest, ctx: ServiceContext): Promise<{ delivery: WebhookDelivery }> {
      const who = await callerOf(ctx, 'webhooks:write', request.endpointId);
      requireEnabled(who.endpoint.status);
      const id = newId('wdl');
      await repo.insertTest(id, who.endpoint.id, newId('evt'));
      return answer(who, id);
    },
  };
}

export const WEBHOOK_DELIVERY_ACCESS = {
  listWebhookDeliveries: ['caller', 'direct', 'user'],
  getWebhookDelivery: ['caller', 'direct', 'user'],
  resendWebhookDelivery: ['caller', 'direct', 'user'],
  sendTestWebhook: ['caller', 'direct', 'user'],
} as const;
