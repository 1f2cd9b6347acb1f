// Webhook endpoints for the REST surface (docs/WEBHOOKS.md): the communities service, asked as the
// caller (it re-checks the scope and fences every endpoint to the credential's owner).
import type { z } from 'zod';
import type { WebhookEndpoint as EndpointMessage } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { ApiError, fromRemote } from './api-error.js';
import type {
  CreateWebhookEndpointRequest,
  DeletedWebhookEndpoint,
  UpdateWebhookEndpointRequest,
  WebhookEndpoint,
  WebhookEndpointList,
  WebhookEndpointWithSecret,
} from './contract/webhook-endpoints.js';
import type { CallerContext, Edge } from './edge.js';

export type WebhookEndpointView = z.output<typeof WebhookEndpoint>;
export type WebhookEndpointWithSecretView = z.output<typeof WebhookEndpointWithSecret>;

function endpointView(e: EndpointMessage | undefined): WebhookEndpointView {
  if (!e?.createdAt) throw new ApiError(500, 'internal', 'internal error');
  return {
    id: e.id,
    url: e.url,
    events: e.events as WebhookEndpointView['events'],
    description: e.description ?? null,
    status: e.status as WebhookEndpointView['status'],
    disabled_reason: (e.disabledReason ?? null) as WebhookEndpointView['disabled_reason'],
    created_at: e.createdAt,
  };
}

function withSecret(e: EndpointMessage | undefined): WebhookEndpointWithSecretView {
  if (!e?.secret) throw new ApiError(500, 'internal', 'internal error');
  return { ...endpointView(e), secret: e.secret };
}

/** Runs a call to the communities service as the caller, its refusals mapped to the API's. */
export async function asCaller<T>(edge: Edge, ctx: CallerContext, call: (options: Awaited<ReturnType<Edge['as']>>) => Promise<T>): Promise<T> {
  try {
    return await call(await edge.as(ctx));
  } catch (error) {
    throw fromRemote(error);
  }
}

export const createWebhookEndpoint = (edge: Edge, ctx: CallerContext, body: z.output<typeof CreateWebhookEndpointRequest>) =>
  asCaller(edge, ctx, async (o) => withSecret((await edge.clients.communities.createWebhookEndpoint(body, o)).endpoint));

export const listWebhookEndpoints = (edge: Edge, ctx: CallerContext): Promise<z.output<typeof WebhookEndpointList>> =>
  asCaller(edge, ctx, async (o) => ({ endpoints: (await edge.clients.communities.listWebhookEndpoints({}, o)).endpoints.map(endpointView) }));

export const getWebhookEndpoint = (edge: Edge, ctx: CallerContext, endpointId: string) =>
  asCaller(edge, ctx, async (o) => endpointView((await edge.clients.communities.getWebhookEndpoint({ endpointId }, o)).endpoint));

export const updateWebhookEndpoint = (edge: Edge, ctx: CallerContext, endpointId: string, body: z.output<typeof UpdateWebhookEndpointRequest>) =>
  asCaller(edge, ctx, async (o) =>
    endpointView(
      (
        await edge.clients.communities.updateWebhookEndpoint(
          { endpointId, url: body.url, updateEvents: body.events !== undefined, events: body.events ?? [], description: body.description, status: body.status },
          o,
        )
      ).endpoint,
    ),
  );

export const deleteWebhookEndpoint = (edge: Edge, ctx: CallerContext, endpointId: string): Promise<z.output<typeof DeletedWebhookEndpoint>> =>
  asCaller(edge, ctx, async (o) => ({ id: (await edge.clients.communities.deleteWebhookEndpoint({ endpointId }, o)).endpointId, deleted: true }));

export const rotateWebhookSecret = (edge: Edge, ctx: CallerContext, endpointId: string) =>
  asCaller(edge, ctx, async (o) => withSecret((await edge.clients.communities.rotateWebhookSecret({ endpointId }, o)).endpoint));
