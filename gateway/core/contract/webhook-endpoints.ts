// Webhook endpoints (docs/WEBHOOKS.md): POST/GET /v1/webhook_endpoints, GET/PATCH/DELETE
// /v1/webhook_endpoints/{endpoint_id} and POST …/{endpoint_id}/rotate_secret. An endpoint belongs
// to the owner of the credential that made it; its secret is shown at creation and rotation only.
import { z } from 'zod';
import { EventType } from './events.js';
import { defineEndpoint, Id, text, Timestamp } from './schemas.js';

const URL_MAX = 2048;
const DESCRIPTION_MAX = 500;

/**
 * An absolute http(s) URL without user name, password or fragment. The service decides the rest:
 * https only and a public host unless the deployment allows private URLs (local development).
 */
function isWebUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && !url.username && !url.password && !url.hash;
  } catch {
    return false;
  }
}

const Url = text()
  .max(URL_MAX)
  .refine(isWebUrl, { message: 'must be an absolute http(s) URL without user name, password or fragment' })
  .describe(
    'Where events are delivered: an absolute `https` URL, without user name, password or fragment, whose host is and resolves to ' +
      'public addresses only (never loopback, private, link-local or another special range). A deployment for local development ' +
      'may allow `http` and private addresses (`WEBHOOK_ALLOW_PRIVATE_URLS`).',
  );
const Events = z.array(EventType).min(1).describe('The event types the endpoint receives (at least one).');
const Description = text().max(DESCRIPTION_MAX).describe(`What the endpoint is for (at most ${DESCRIPTION_MAX} characters).`);
const Status = z.enum(['enabled', 'disabled']).describe('`enabled` receives events; `disabled` receives none.');

export const WebhookEndpointParams = z.object({ endpoint_id: Id.describe('Webhook endpoint id (`we_…`).') });

export const CreateWebhookEndpointRequest = z
  .strictObject({ url: Url, events: Events, description: Description.optional() })
  .describe('A new webhook endpoint.');

export const UpdateWebhookEndpointRequest = z
  .strictObject({ url: Url.optional(), events: Events.optional(), description: Description.optional(), status: Status.optional() })
  .describe('The fields to change; the others are kept.');

export const WebhookEndpoint = z
  .object({
    id: Id.describe('Webhook endpoint id (`we_…`).'),
    url: z.string().describe('Where events are delivered.'),
    events: z.array(EventType).describe('The event types it receives.'),
    description: z.string().nullable().describe('What it is for; null when not given.'),
    status: Status,
    disabled_reason: z
      .enum(['manual', 'gone', 'failing'])
      .nullable()
      .describe(
        'Why a disabled endpoint is: `manual` (its owner disabled it), `gone` (it answered 410 Gone), `failing` (a delivery failed its whole retry schedule). Null while enabled; enabling it clears it.',
      ),
    created_at: Timestamp.describe('When it was created.'),
  })
  .describe('A webhook endpoint of the credential’s owner.');

export const WebhookEndpointWithSecret = WebhookEndpoint.extend({
  secret: z.string().describe('The signing secret (`whsec_…`), shown here only: keep it. Deliveries are signed with it (Standard Webhooks).'),
}).describe('A webhook endpoint with its signing secret, answered at creation and rotation only.');

export const WebhookEndpointList = z
  .object({ endpoints: z.array(WebhookEndpoint).describe('The owner’s endpoints, newest first.') })
  .describe('The webhook endpoints of the credential’s owner.');

export const DeletedWebhookEndpoint = z
  .object({ id: Id.describe('The endpoint removed.'), deleted: z.literal(true).describe('Always true.') })
  .describe('A removed webhook endpoint.');

const OWNED = 'An endpoint belongs to the owner of the credential that made it (its user; a legacy organization key: the organization); any credential of that owner may manage it, any other gets 404.';
const notFound = { 404: { description: 'No such endpoint of the credential’s owner.' } };
const writeScope = { 403: { description: 'The credential lacks `webhooks:write`.' } };
const bad = (what: string) => ({ 400: { description: what, codes: ['invalid_request'] } });

export const createWebhookEndpointEndpoint = defineEndpoint({
  method: 'POST',
  path: '/v1/webhook_endpoints',
  operationId: 'createWebhookEndpoint',
  tag: 'Events',
  summary: 'Create a webhook endpoint',
  description: `Registers an https URL to receive the named event types. Answers the endpoint with its signing secret, shown only here. ${OWNED}`,
  scope: 'webhooks:write',
  body: { schema: CreateWebhookEndpointRequest, required: true },
  success: { 201: { description: 'The endpoint, with its secret.', body: WebhookEndpointWithSecret } },
  errors: { ...bad('A missing or bad `url`, `events` or `description`, or an unknown field.'), ...writeScope },
});

export const listWebhookEndpointsEndpoint = defineEndpoint({
  method: 'GET',
  path: '/v1/webhook_endpoints',
  operationId: 'listWebhookEndpoints',
  tag: 'Events',
  summary: 'List webhook endpoints',
  description: `Returns the webhook endpoints of the credential’s owner, newest first, without their secrets. ${OWNED}`,
  scope: 'webhooks:read',
  success: { 200: { description: 'The endpoints (empty when there are none).', body: WebhookEndpointList } },
  errors: { 403: { description: 'The credential lacks `webhooks:read`.' } },
});

export const getWebhookEndpointEndpoint = defineEndpoint({
  method: 'GET',
  path: '/v1/webhook_endpoints/{endpoint_id}',
  operationId: 'getWebhookEndpoint',
  tag: 'Events',
  summary: 'Get a webhook endpoint',
  description: `Returns one webhook endpoint, without its secret. ${OWNED}`,
  scope: 'webhooks:read',
  params: WebhookEndpointParams,
  success: { 200: { description: 'The endpoint.', body: WebhookEndpoint } },
  errors: { 403: { description: 'The credential lacks `webhooks:read`.' }, ...notFound },
});

export const updateWebhookEndpointEndpoint = defineEndpoint({
  method: 'PATCH',
  path: '/v1/webhook_endpoints/{endpoint_id}',
  operationId: 'updateWebhookEndpoint',
  tag: 'Events',
  summary: 'Change a webhook endpoint',
  description: `Changes the fields given — \`url\`, \`events\`, \`description\`, \`status\` (enabled or disabled) — and keeps the others. ${OWNED}`,
  scope: 'webhooks:write',
  params: WebhookEndpointParams,
  body: { schema: UpdateWebhookEndpointRequest, required: true },
  success: { 200: { description: 'The endpoint as changed.', body: WebhookEndpoint } },
  errors: { ...bad('A bad `url`, `events`, `description` or `status`, or an unknown field.'), ...writeScope, ...notFound },
});

export const deleteWebhookEndpointEndpoint = defineEndpoint({
  method: 'DELETE',
  path: '/v1/webhook_endpoints/{endpoint_id}',
  operationId: 'deleteWebhookEndpoint',
  tag: 'Events',
  summary: 'Remove a webhook endpoint',
  description: `Removes the endpoint; it receives nothing more. ${OWNED}`,
  scope: 'webhooks:write',
  params: WebhookEndpointParams,
  success: { 200: { description: 'The endpoint was removed.', body: DeletedWebhookEndpoint } },
  errors: { ...writeScope, ...notFound },
});

export const rotateWebhookSecretEndpoint = defineEndpoint({
  method: 'POST',
  path: '/v1/webhook_endpoints/{endpoint_id}/rotate_secret',
  operationId: 'rotateWebhookSecret',
  tag: 'Events',
  summary: 'Rotate a webhook endpoint’s secret',
  description: `Makes a new signing secret, shown only here; the previous one keeps signing beside it for 24 hours, so a receiver can switch without missing a delivery. ${OWNED}`,
  scope: 'webhooks:write',
  params: WebhookEndpointParams,
  success: { 200: { description: 'The endpoint, with its new secret.', body: WebhookEndpointWithSecret } },
  errors: { ...writeScope, ...notFound },
});

export const webhookEndpointEndpoints = [
  createWebhookEndpointEndpoint,
  listWebhookEndpointsEndpoint,
  getWebhookEndpointEndpoint,
  updateWebhookEndpointEndpoint,
  deleteWebhookEndpointEndpoint,
  rotateWebhookSecretEndpoint,
];
