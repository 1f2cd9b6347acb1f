// Webhook endpoints (docs/WEBHOOKS.md): an endpoint belongs to the owner of the credential that made
// it — the user behind a personal key, or a legacy key's organization — and any credential of that
// owner manages it (webhooks:write) or reads it (webhooks:read); another owner's is not found. The
// secret (whsec_…, the Standard Webhooks form) is answered at creation and rotation only; after a
// rotation the previous secret keeps signing beside the new one for 24 hours.
import { randomBytes } from 'node:crypto';
import type {
  CreateWebhookEndpointRequest,
  GetWebhookEndpointRequest,
  UpdateWebhookEndpointRequest,
  WebhookEndpoint,
} from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { isEventType } from '../kit/event-types.js';
import { domainError } from '../kit/grpc/errors.js';
import type { ServiceContext } from '../kit/grpc/server.js';
import { newId } from '../kit/ids.js';
import type { CommunitiesContext } from './communities-context.js';
import { WEBHOOK_DELIVERY_ACCESS, webhookDeliveryHandlers } from './webhook-deliveries.js';
import { createWebhookEndpointsRepository, type EndpointRow } from './webhook-endpoints.repository.js';
import { ownerOfCall } from './webhook-owner.js';
import { checkedWebhookUrl, type WebhookUrlPolicy } from './webhook-url.js';

export const DESCRIPTION_MAX = 500;
/** Hours the previous secret keeps signing after a rotation. */
export const ROTATION_OVERLAP_HOURS = 24;

function checkedEvents(events: string[]): string[] {
  if (events.length === 0) throw domainError('invalid_request', 'events: name at least one event type');
  const unknown = events.find((e) => !isEventType(e));
  if (unknown !== undefined) throw domainError('invalid_request', 'events: not an event type');
  return [...new Set(events)];
}

function checkedDescription(description: string | undefined): string | undefined {
  if (description !== undefined && description.length > DESCRIPTION_MAX) throw domainError('invalid_request', `description: longer than ${DESCRIPTION_MAX} characters`);
  return description;
}

const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

function toEndpoint(row: EndpointRow, withSecret = false): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    description: row.description ?? undefined,
    status: row.status,
    createdAt: row.created_at.toISOString(),
    secret: withSecret ? row.secret : undefined,
    disabledReason: row.status === 'disabled' ? (row.disabled_reason ?? 'manual') : undefined,
  };
}

function found(row: EndpointRow | undefined, id: string): EndpointRow {
  if (!row) throw domainError('not_found', `webhook endpoint ${id} not found`);
  return row;
}

/** `urls`: where endpoints may point (webhook-url.ts); public https addresses only unless allowed. */
export function webhookEndpointHandlers(context: CommunitiesContext, urls: WebhookUrlPolicy = { allowPrivate: false }) {
  const repo = createWebhookEndpointsRepository(context.deps.db);
  const owner = ownerOfCall;
  return {
    async createWebhookEndpoint(request: CreateWebhookEndpointRequest, ctx: ServiceContext) {
      const who = owner(ctx, 'webhooks:write');
      const events = checkedEvents(request.events);
      const description = checkedDescription(request.description) ?? null;
      const row = await repo.insert(who, {
        id: newId('we'),
        url: await checkedWebhookUrl(request.url, urls),
        events,
        description,
        secret: newSecret(),
      });
      return { endpoint: toEndpoint(row, true) };
    },
    async listWebhookEndpoints(_request: unknown, ctx: ServiceContext) {
      return { endpoints: (await repo.list(owner(ctx, 'webhooks:read'))).map((row) => toEndpoint(row)) };
    },
    async getWebhookEndpoint(request: GetWebhookEndpointRequest, ctx: ServiceContext) {
      return { endpoint: toEndpoint(found(await repo.find(owner(ctx, 'webhooks:read'), request.endpointId), request.endpointId)) };
    },
    async updateWebhookEndpoint(request: UpdateWebhookEndpointRequest, ctx: ServiceContext) {
      const who = owner(ctx, 'webhooks:write');
      if (request.status !== undefined && request.status !== 'enabled' && request.status !== 'disabled') {
        throw domainError('invalid_request', 'status: must be enabled or disabled');
      }
      const events = request.updateEvents ? checkedEvents(request.events) : undefined;
      const description = checkedDescription(request.description);
      const url = request.url === undefined ? undefined : await checkedWebhookUrl(request.url, urls);
      const row = await repo.update(who, request.endpointId, { url, events, description, status: request.status });
      return { endpoint: toEndpoint(found(row, request.endpointId)) };
    },
    async deleteWebhookEndpoint(request: GetWebhookEndpointRequest, ctx: ServiceContext) {
      if (!(await repo.remove(owner(ctx, 'webhooks:write'), request.endpointId))) found(undefined, request.endpointId);
      return { endpointId: request.endpointId };
    },
    async rotateWebhookSecret(request: GetWebhookEndpointRequest, ctx: ServiceContext) {
      const row = await repo.rotate(owner(ctx, 'webhooks:write'), request.endpointId, newSecret(), ROTATION_OVERLAP_HOURS);
      return { endpoint: toEndpoint(found(row, request.endpointId), true) };
    },
    ...webhookDeliveryHandlers(context),
  };
}

/** Who may call them: end users, through the edge or directly, and a person in the settings app (their own). */
export const WEBHOOK_ENDPOINT_ACCESS = {
  createWebhookEndpoint: ['caller', 'direct', 'user'],
  listWebhookEndpoints: ['caller', 'direct', 'user'],
  getWebhookEndpoint: ['caller', 'direct', 'user'],
  updateWebhookEndpoint: ['caller', 'direct', 'user'],
  deleteWebhookEndpoint: ['caller', 'direct', 'user'],
  rotateWebhookSecret: ['caller', 'direct', 'user'],
  ...WEBHOOK_DELIVERY_ACCESS,
} as const;
