// The delivery log of a webhook endpoint for the REST surface (docs/WEBHOOKS.md "Delivery"): the
// communities service, asked as the caller (it re-checks the scope, fences the endpoint to the
// credential's owner and each delivery to the events the caller may see now).
import type { z } from 'zod';
import type { WebhookDelivery as DeliveryMessage, WebhookDeliveryAttempt as AttemptMessage } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { ApiError } from './api-error.js';
import type { WebhookDelivery, WebhookDeliveryAttempt, WebhookDeliveryPage, WebhookDeliveryWithAttempts } from './contract/webhook-deliveries.js';
import type { ListQuery } from './discovery.js';
import type { CallerContext, Edge } from './edge.js';
import { asCaller } from './webhook-endpoints.js';

export type WebhookDeliveryView = z.output<typeof WebhookDelivery>;
type AttemptView = z.output<typeof WebhookDeliveryAttempt>;
type WithAttemptsView = z.output<typeof WebhookDeliveryWithAttempts>;

function attemptView(a: AttemptMessage): AttemptView {
  return {
    attempt: a.attempt,
    at: a.at!,
    status_code: a.statusCode ?? null,
    latency_ms: a.latencyMs,
    error: a.error ?? null,
    response_excerpt: a.responseExcerpt,
  };
}

export function deliveryView(d: DeliveryMessage | undefined): WebhookDeliveryView {
  if (!d?.createdAt) throw new ApiError(500, 'internal', 'internal error');
  return {
    id: d.id,
    event_id: d.eventId,
    event_type: d.eventType as WebhookDeliveryView['event_type'],
    status: d.status as WebhookDeliveryView['status'],
    attempts: d.attempts,
    next_attempt_at: d.nextAttemptAt ?? null,
    created_at: d.createdAt,
    last_attempt: d.lastAttempt ? attemptView(d.lastAttempt) : null,
  };
}

const withAttempts = (d: DeliveryMessage | undefined): WithAttemptsView => ({ ...deliveryView(d), attempt_log: (d?.attemptLog ?? []).map(attemptView) });

export const listWebhookDeliveries = (edge: Edge, ctx: CallerContext, endpointId: string, query: ListQuery): Promise<z.output<typeof WebhookDeliveryPage>> =>
  asCaller(edge, ctx, async (o) => {
    const page = await edge.clients.communities.listWebhookDeliveries({ endpointId, pageSize: query.limit, pageToken: query.after ?? '' }, o);
    return { deliveries: page.deliveries.map(deliveryView), next_cursor: page.nextPageToken || null };
  });

export const getWebhookDelivery = (edge: Edge, ctx: CallerContext, endpointId: string, deliveryId: string) =>
  asCaller(edge, ctx, async (o) => withAttempts((await edge.clients.communities.getWebhookDelivery({ endpointId, deliveryId }, o)).delivery));

export const resendWebhookDelivery = (edge: Edge, ctx: CallerContext, endpointId: string, deliveryId: string) =>
  asCaller(edge, ctx, async (o) => withAttempts((await edge.clients.communities.resendWebhookDelivery({ endpointId, deliveryId }, o)).delivery));

export const sendTestWebhook = (edge: Edge, ctx: CallerContext, endpointId: string) =>
  asCaller(edge, ctx, async (o) => withAttempts((await edge.clients.communities.sendTestWebhook({ endpointId }, o)).delivery));
