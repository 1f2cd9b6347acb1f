// The delivery log of a webhook endpoint (docs/WEBHOOKS.md "Delivery"): GET
// /v1/webhook_endpoints/{endpoint_id}/deliveries and …/deliveries/{delivery_id}, POST
// …/deliveries/{delivery_id}/resend and POST …/{endpoint_id}/test. Fenced to the endpoint's owner
// and to the events the credential may see now.
import { z } from 'zod';
import { listQuery } from './discovery.js';
import { EventType } from './events.js';
import { defineEndpoint, Id, Timestamp, Cursor } from './schemas.js';
import { WebhookEndpointParams } from './webhook-endpoints.js';

export const DELIVERIES_LIMIT_DEFAULT = 20;
export const DELIVERIES_LIMIT_MAX = 100;

export const DeliveriesQuery = listQuery(DELIVERIES_LIMIT_DEFAULT, DELIVERIES_LIMIT_MAX, 'another endpoint’s');
export const WebhookDeliveryParams = WebhookEndpointParams.extend({ delivery_id: Id.describe('Delivery id (`wdl_…`).') });

export const WebhookDeliveryAttempt = z
  .object({
    attempt: z.number().int().describe('1 for the first attempt.'),
    at: Timestamp.describe('When the attempt was made.'),
    status_code: z.number().int().nullable().describe('The receiver’s HTTP status; null when no answer came (refused address, timeout, connection error).'),
    latency_ms: z.number().int().describe('From the request’s start to the answer (or the failure).'),
    error: z.string().nullable().describe('Why the attempt failed, when it did not end in a 2xx; null on success.'),
    response_excerpt: z.string().describe('The first 1 KiB of the answer’s body (UTF-8, invalid bytes replaced); empty when there was none.'),
  })
  .describe('One HTTP attempt of a delivery.');

export const WebhookDelivery = z
  .object({
    id: Id.describe('Delivery id (`wdl_…`).'),
    event_id: z.string().describe('The event delivered: the `webhook-id` header of each attempt.'),
    event_type: z.union([EventType, z.literal('webhook.test')]).describe('The event’s type; `webhook.test` for a test delivery.'),
    status: z
      .enum(['pending', 'succeeded', 'failed', 'skipped'])
      .describe('`pending` (waiting for an attempt, or being attempted), `succeeded` (a 2xx), `failed` (410, or the retry schedule ran out), `skipped` (the endpoint’s owner could not see the event when it was due, or the endpoint was disabled).'),
    attempts: z.number().int().describe('Attempts made.'),
    next_attempt_at: Timestamp.nullable().describe('When the next attempt is due; null once the delivery has ended.'),
    created_at: Timestamp.describe('When the delivery was made (with its event).'),
    last_attempt: WebhookDeliveryAttempt.nullable().describe('The latest attempt; null before the first.'),
  })
  .describe('A delivery of one event to one endpoint.');

export const WebhookDeliveryWithAttempts = WebhookDelivery.extend({
  attempt_log: z.array(WebhookDeliveryAttempt).describe('Every attempt, oldest first.'),
}).describe('A delivery with every attempt.');

export const WebhookDeliveryPage = z
  .object({
    deliveries: z.array(WebhookDelivery).describe('Deliveries of this page, newest first.'),
    next_cursor: Cursor.nullable().describe('Pass as `after` for the next page. Null only when the list is exhausted.'),
  })
  .describe('One page of an endpoint’s delivery log, newest first.');

const SHOWN =
  'The endpoint must be the credential owner’s (another owner’s is 404), and a delivery is shown only when its event is visible to this credential now, by the rule of `GET /v1/events`.';
const notFound = { 404: { description: 'No such endpoint of the credential’s owner, or no such delivery this credential may see.' } };
const readScope = { 403: { description: 'The credential lacks `webhooks:read`.' } };
const writeScope = { 403: { description: 'The credential lacks `webhooks:write`.' } };
const disabled = { 409: { description: 'The endpoint is disabled: enable it first (`PATCH` with `status: enabled`).', codes: ['conflict'] } };

export const listWebhookDeliveriesEndpoint = defineEndpoint({
  method: 'GET',
  path: '/v1/webhook_endpoints/{endpoint_id}/deliveries',
  operationId: 'listWebhookDeliveries',
  tag: 'Events',
  summary: 'List an endpoint’s deliveries',
  description: `Returns one page of the endpoint’s delivery log, newest first, each with its latest attempt. ${SHOWN} Follow \`next_cursor\` until it is null.`,
  scope: 'webhooks:read',
  params: WebhookEndpointParams,
  query: DeliveriesQuery,
  success: { 200: { description: 'A page of deliveries (empty when there are none).', body: WebhookDeliveryPage } },
  errors: { 400: { description: '`limit` below 1 or not a whole number, or `after` not a cursor of this list.', codes: ['invalid_request'] }, ...readScope, ...notFound },
});

export const getWebhookDeliveryEndpoint = defineEndpoint({
  method: 'GET',
  path: '/v1/webhook_endpoints/{endpoint_id}/deliveries/{delivery_id}',
  operationId: 'getWebhookDelivery',
  tag: 'Events',
  summary: 'Get a delivery',
  description: `Returns one delivery with every attempt. ${SHOWN}`,
  scope: 'webhooks:read',
  params: WebhookDeliveryParams,
  success: { 200: { description: 'The delivery.', body: WebhookDeliveryWithAttempts } },
  errors: { ...readScope, ...notFound },
});

export const resendWebhookDeliveryEndpoint = defineEndpoint({
  method: 'POST',
  path: '/v1/webhook_endpoints/{endpoint_id}/deliveries/{delivery_id}/resend',
  operationId: 'resendWebhookDelivery',
  tag: 'Events',
  summary: 'Resend a delivery',
  description: `Queues the delivery again, due now, with a fresh run of the retry schedule; the same event (the same \`webhook-id\`), signed anew. A delivery being attempted at this moment is left to that attempt. ${SHOWN}`,
  scope: 'webhooks:write',
  params: WebhookDeliveryParams,
  success: { 202: { description: 'The delivery, queued.', body: WebhookDeliveryWithAttempts } },
  errors: { ...writeScope, ...notFound, ...disabled },
});

export const sendTestWebhookEndpoint = defineEndpoint({
  method: 'POST',
  path: '/v1/webhook_endpoints/{endpoint_id}/test',
  operationId: 'sendTestWebhook',
  tag: 'Events',
  summary: 'Send a test event',
  description:
    'Queues a delivery of a synthetic `webhook.test` event to the endpoint, due now, signed like every delivery; its data is `{"endpoint_id": …, "test": true}`. It appears in the delivery log like any delivery. The endpoint must be the credential owner’s (another owner’s is 404).',
  scope: 'webhooks:write',
  params: WebhookEndpointParams,
  success: { 202: { description: 'The test delivery, queued.', body: WebhookDeliveryWithAttempts } },
  errors: { ...writeScope, 404: { description: 'No such endpoint of the credential’s owner.' }, ...disabled },
});

export const webhookDeliveryEndpoints = [listWebhookDeliveriesEndpoint, getWebhookDeliveryEndpoint, resendWebhookDeliveryEndpoint, sendTestWebhookEndpoint];
